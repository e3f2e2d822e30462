// A counting semaphore that spins briefly before it sleeps and makes no system call on Post
// unless a thread is actually asleep. A step of a small env takes well under a microsecond,
// while a futex sleep/wake round trip costs several: spinning first keeps hand-offs cheap.
// (The design is the well-known "lightweight semaphore": the atomic count goes negative by
// the number of sleepers, and only they need a kernel wake-up.)
#ifndef ENVFLEET_CORE_SEMAPHORE_H_
#define ENVFLEET_CORE_SEMAPHORE_H_

#include <atomic>
#include <climits>
#include <cstdint>
#include <semaphore>

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
  explicit Semaphore(int64_t initial = 0, int spin = 4000) : count_(initial), spin_(spin) {}

  bool TryWait() {
    int64_t count = count_.load(std::memory_order_relaxed);
    while (count > 0) {
      if (count_.compare_exchange_weak(count, count - 1, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }

  void Wait() {
    for (int i = 0; i < spin_; ++i) {
      if (TryWait()) return;
      ENVFLEET_CPU_RELAX();
    }
    if (count_.fetch_sub(1, std::memory_order_acquire) > 0) return;
    sleeper_.acquire();
  }

  void Post(int64_t n = 1) {
    if (n <= 0) return;
    int64_t old = count_.fetch_add(n, std::memory_order_release);
    int64_t sleepers = old < 0 ? -old : 0;
    int64_t wake = sleepers < n ? sleepers : n;
    if (wake > 0) sleeper_.release(static_cast<std::ptrdiff_t>(wake));
  }

 private:
  std::atomic<int64_t> count_;
  int spin_;
  std::counting_semaphore<INT_MAX> sleeper_{0};
};

}  // namespace envfleet

#endif  // ENVFLEET_CORE_SEMAPHORE_H_
