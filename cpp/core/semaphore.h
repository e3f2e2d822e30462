// A counting semaphore for the hot path: it spins briefly before it sleeps, and Post makes a
// system call only when a thread is asleep and no spinning thread will take the permits.
//
// Unlike the classic "lightweight semaphore", a sleeping thread does not own a permit: a
// woken thread competes for permits like everyone else. That matters here because the
// caller steps envs itself while it waits: if it has already taken every queued item, a
// worker that wakes late simply goes back to sleep, and the batch never waits on a futex
// wake-up (which costs tens of microseconds on a busy VM).
//
// Sleeping is a futex on the count itself (Linux), called directly rather than through
// std::atomic::wait, because the caller's wait in recv() needs a timeout (it wakes to let
// Python handle Ctrl-C) and std::atomic::wait has none. Elsewhere a sleeper polls briefly.
#ifndef ENVFLEET_CORE_SEMAPHORE_H_
#define ENVFLEET_CORE_SEMAPHORE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <thread>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ENVFLEET_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define ENVFLEET_CPU_RELAX() asm volatile("yield")
#else
#define ENVFLEET_CPU_RELAX() ((void)0)
#endif

namespace envfleet {

class Semaphore {
 public:
  // `spin`: tries before sleeping. Short, so idle workers do not take a core away from the
  // Python thread between steps.
  explicit Semaphore(int32_t initial = 0, int spin = 256) : count_(initial), spin_(spin) {}

  bool TryWait() {
    int32_t count = count_.load(std::memory_order_relaxed);
    while (count > 0) {
      if (count_.compare_exchange_weak(count, count - 1, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }

  // Takes between 1 and `most` permits if any are there: count / `share` of them, so that
  // `share` takers splitting a burst each get a fair part with one atomic operation.
  int32_t TryWaitSome(int32_t most, int32_t share) {
    int32_t count = count_.load(std::memory_order_relaxed);
    while (count > 0) {
      int32_t take = count / share;
      take = take < 1 ? 1 : (take > most ? most : take);
      if (count_.compare_exchange_weak(count, count - take, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
        return take;
      }
    }
    return 0;
  }

  void Wait() { WaitSome(1, 1); }

  // Wait() for at most `timeout`; false if it ran out first.
  bool WaitFor(std::chrono::nanoseconds timeout) {
    return WaitSome(1, 1, std::chrono::steady_clock::now() + timeout) > 0;
  }

  using Deadline = std::chrono::steady_clock::time_point;
  static constexpr Deadline kNever = Deadline::max();

  // WaitSome (no deadline), polling for up to `spin` before it sleeps: a worker that expects
  // work within microseconds (the next batch of a training loop) keeps its core rather than
  // pay a futex wake-up, which on a virtual machine can take longer than the batch. Polls
  // mostly with pause instructions, reading the clock every kPollsPerClockRead polls.
  int32_t SpinThenWaitSome(int32_t most, int32_t share, std::chrono::nanoseconds spin) {
    if (int32_t taken = TryWaitSome(most, share)) return taken;
    if (spin > std::chrono::nanoseconds::zero()) {
      spinners_.fetch_add(1, std::memory_order_seq_cst);
      auto now = std::chrono::steady_clock::now();
      const auto until = now + spin;
      auto next_yield = now + kYieldInterval;
      int32_t taken = 0;
      while (true) {
        for (int i = 0; i < kPollsPerClockRead && taken == 0; ++i) {
          ENVFLEET_CPU_RELAX();
          taken = TryWaitSome(most, share);
        }
        if (taken != 0) break;
        now = std::chrono::steady_clock::now();
        if (now >= until) break;
        if (now >= next_yield) {
          // On a machine with more runnable threads than cores, a thread holding work the
          // poller waits for may be queued behind it: let it run.
          std::this_thread::yield();
          next_yield = now + kYieldInterval;
        }
      }
      // Leaving the spinners after WaitSome below has counted this thread as a sleeper (it
      // re-checks the count then): a Post that skipped the wake-up because of it is still seen.
      if (taken) {
        spinners_.fetch_sub(1, std::memory_order_seq_cst);
        return taken;
      }
      return WaitSome(most, share, kNever, /*leaving_spinners=*/true);
    }
    return WaitSome(most, share);
  }

  // Blocks until at least one permit is there, then takes as TryWaitSome does; returns 0 if
  // `deadline` passes first.
  int32_t WaitSome(int32_t most, int32_t share, Deadline deadline = kNever) {
    return WaitSome(most, share, deadline, /*leaving_spinners=*/false);
  }

  void Post(int32_t n = 1) {
    if (n <= 0) return;
    count_.fetch_add(n, std::memory_order_seq_cst);
    // Threads spinning in SpinThenWaitSome take the permits without a system call; only
    // permits beyond them need a sleeper woken.
    if (sleepers_.load(std::memory_order_seq_cst) > 0 &&
        spinners_.load(std::memory_order_seq_cst) < n) {
      Wake(n == 1 ? 1 : kWakeAll);
    }
  }

 private:
  static constexpr int kWakeAll = 1 << 30;
  static constexpr int kPollsPerClockRead = 16;
  static constexpr std::chrono::microseconds kYieldInterval{20};

  // `leaving_spinners`: called by a thread still counted in spinners_, which has spun already.
  int32_t WaitSome(int32_t most, int32_t share, Deadline deadline, bool leaving_spinners) {
    bool spin = !leaving_spinners;
    while (true) {
      for (int i = 0; spin && i < spin_; ++i) {
        if (int32_t taken = TryWaitSome(most, share)) return taken;
        ENVFLEET_CPU_RELAX();
      }
      spin = true;
      // Announce the sleep, then sleep only while the count is still zero; a Post between
      // the two either is seen by the check or sees the sleeper (both are seq_cst).
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      if (leaving_spinners) {
        spinners_.fetch_sub(1, std::memory_order_seq_cst);
        leaving_spinners = false;
      }
      int32_t taken = TryWaitSome(most, share);
      bool timed_out = false;
      if (taken == 0) timed_out = !SleepWhileZero(deadline);
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
      if (taken) return taken;
      if (timed_out) return TryWaitSome(most, share);
    }
  }

  // Sleeps while the count is 0 (or until a wake-up or a spurious return); false once
  // `deadline` has passed.
  bool SleepWhileZero(Deadline deadline) {
#if defined(__linux__)
    timespec relative{};
    timespec* timeout = nullptr;
    if (deadline != kNever) {
      const auto left = deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::nanoseconds::zero()) return false;
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      relative.tv_sec = static_cast<time_t>(ns / 1000000000);
      relative.tv_nsec = static_cast<long>(ns % 1000000000);
      timeout = &relative;
    }
    // std::atomic<int32_t> is a plain int32_t in memory, which is what the futex watches.
    syscall(SYS_futex, reinterpret_cast<int32_t*>(&count_), FUTEX_WAIT_PRIVATE, 0, timeout, nullptr,
            0);
#else
    std::this_thread::sleep_for(std::chrono::microseconds(50));
#endif
    return deadline == kNever || std::chrono::steady_clock::now() < deadline;
  }

  void Wake(int n) {
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<int32_t*>(&count_), FUTEX_WAKE_PRIVATE, n, nullptr, nullptr,
            0);
#else
    (void)n;
#endif
  }

  static_assert(sizeof(std::atomic<int32_t>) == sizeof(int32_t) &&
                    std::atomic<int32_t>::is_always_lock_free,
                "the futex watches the atomic's bytes");
  alignas(64) std::atomic<int32_t> count_;
  alignas(64) std::atomic<int32_t> sleepers_{0};
  std::atomic<int32_t> spinners_{0};  // threads polling in SpinThenWaitSome
  int spin_;
};

}  // namespace envfleet

#endif  // ENVFLEET_CORE_SEMAPHORE_H_
