// cpp/core/semaphore.h: permits are counted exactly, taken in fair shares, and a sleeping
// thread wakes on Post.
#include "core/semaphore.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "check.h"

namespace envfleet {
namespace {

int Drain(Semaphore& sem) {
  int n = 0;
  while (sem.TryWait()) ++n;
  return n;
}

TEST(Semaphore, TryWaitTakesTheInitialPermitsOnly) {
  Semaphore sem(3);
  CHECK(sem.TryWait());
  CHECK(sem.TryWait());
  CHECK(sem.TryWait());
  CHECK(!sem.TryWait());
  CHECK(!sem.TryWait());
}

TEST(Semaphore, PostAddsPermitsAndIgnoresNonPositiveCounts) {
  Semaphore sem;
  CHECK(!sem.TryWait());
  sem.Post();
  sem.Post(4);
  sem.Post(0);
  sem.Post(-3);
  CHECK_EQ(Drain(sem), 5);
}

TEST(Semaphore, TryWaitSomeTakesAFairShareBetweenOneAndMost) {
  Semaphore sem(10);
  CHECK_EQ(sem.TryWaitSome(32, 3), 3);    // 10 / 3
  CHECK_EQ(sem.TryWaitSome(2, 1), 2);     // 7, capped at most = 2
  CHECK_EQ(sem.TryWaitSome(32, 100), 1);  // 5 / 100 rounds up to one
  CHECK_EQ(sem.TryWaitSome(32, 1), 4);    // the rest
  CHECK_EQ(sem.TryWaitSome(32, 1), 0);
  CHECK(!sem.TryWait());
}

TEST(Semaphore, WaitSomeReturnsWithoutBlockingWhenPermitsExist) {
  Semaphore sem(6, /*spin=*/0);
  CHECK_EQ(sem.WaitSome(4, 1), 4);
  CHECK_EQ(sem.WaitSome(4, 1), 2);
  CHECK_EQ(Drain(sem), 0);
}

// A waiter that must sleep (spin 0: straight to the futex wait) wakes up on Post.
void CheckWaitBlocksUntilPost(int spin) {
  Semaphore sem(0, spin);
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    sem.Wait();
    done.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK(!done.load());  // no permit yet
  sem.Post();
  waiter.join();
  CHECK(done.load());
  CHECK_EQ(Drain(sem), 0);  // the waiter took the one permit
}

TEST(Semaphore, WaitBlocksUntilPostWithoutSpinning) { CheckWaitBlocksUntilPost(0); }
TEST(Semaphore, WaitBlocksUntilPostAfterSpinning) { CheckWaitBlocksUntilPost(256); }

TEST(Semaphore, OnePostOfManyPermitsWakesEverySleeper) {
  constexpr int kThreads = 6;
  Semaphore sem(0, /*spin=*/0);
  std::atomic<int> woken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      sem.Wait();
      woken.fetch_add(1);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK_EQ(woken.load(), 0);
  sem.Post(kThreads);  // notify_all: a notify_one here would leave kThreads - 1 asleep (a hang)
  for (auto& t : threads) t.join();
  CHECK_EQ(woken.load(), kThreads);
  CHECK_EQ(Drain(sem), 0);
}

TEST(Semaphore, PermitsAreExactUnderContention) {
  // Every posted permit is taken exactly once: none lost (a hang), none invented (left > 0
  // or too many acquisitions), with posts racing sleeps and wake-ups.
  for (int spin : {0, 4, 256}) {
    for (int chunk : {1, 3, 64}) {
      constexpr int kThreads = 4;
      constexpr int kPerThread = 3000;
      Semaphore sem(0, spin);
      std::atomic<int> acquired{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
          for (int i = 0; i < kPerThread; ++i) {
            sem.Wait();
            acquired.fetch_add(1);
          }
        });
      }
      const int total = kThreads * kPerThread;
      for (int posted = 0, round = 0; posted < total; posted += chunk, ++round) {
        sem.Post(std::min(chunk, total - posted));
        if (round % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
      for (auto& t : threads) t.join();
      CHECK_EQ(acquired.load(), total);
      CHECK_EQ(Drain(sem), 0);
    }
  }
}

TEST(Semaphore, PermitsAreExactWithSpinnersSkippingWakeUps) {
  // Some takers spin (SpinThenWaitSome) while others sleep: a Post that leaves the wake-up to
  // a spinner must never strand a permit, even as that spinner gives up and goes to sleep.
  for (auto spin : {std::chrono::nanoseconds(0), std::chrono::nanoseconds(2'000),
                    std::chrono::nanoseconds(200'000)}) {
    constexpr int kThreads = 4;
    constexpr int kPerThread = 3000;
    Semaphore sem(0, /*spin=*/4);
    std::atomic<int> acquired{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread;) {
          const int32_t got = t % 2 ? sem.SpinThenWaitSome(1, 1, spin) : sem.WaitSome(1, 1);
          acquired.fetch_add(got);
          i += got;
        }
      });
    }
    const int total = kThreads * kPerThread;
    for (int posted = 0, round = 0; posted < total; ++posted, ++round) {
      sem.Post(1);
      if (round % 5 == 0) std::this_thread::sleep_for(std::chrono::microseconds(round % 50));
    }
    for (auto& t : threads) t.join();
    CHECK_EQ(acquired.load(), total);
    CHECK_EQ(Drain(sem), 0);
  }
}

TEST(Semaphore, WaitSomeSharesABurstAmongTakers) {
  // Takers that take their fair share of a burst together take every permit exactly once.
  constexpr int kTakers = 3;
  constexpr int kBurst = 90;
  Semaphore sem(0, /*spin=*/16);
  std::atomic<int> taken{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kTakers; ++t) {
    threads.emplace_back([&] {
      while (!stop.load()) {
        const int32_t n = sem.TryWaitSome(32, kTakers);
        if (n > 0) {
          if (n > 32) stop.store(true);  // more than `most`: a bug, reported below
          taken.fetch_add(n);
        } else {
          std::this_thread::yield();
        }
      }
    });
  }
  for (int round = 0; round < 50; ++round) sem.Post(kBurst);
  while (taken.load() < 50 * kBurst && !stop.load()) std::this_thread::yield();
  stop.store(true);
  for (auto& t : threads) t.join();
  CHECK_EQ(taken.load(), 50 * kBurst);
  CHECK_EQ(Drain(sem), 0);
}

}  // namespace
}  // namespace envfleet
