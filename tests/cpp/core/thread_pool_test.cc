// cpp/core/thread_pool.h: ParallelFor runs every index once on at most num_threads threads
// (the caller's included) and rethrows the first exception after every thread has stopped;
// ThreadPool runs its body once per thread, joins, and pins workers when asked.
#include "core/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "check.h"

namespace envfleet {
namespace {

TEST(ParallelFor, RunsEveryIndexExactlyOnce) {
  for (int n : {0, 1, 7, 1000}) {
    for (int threads : {1, 2, 5, 64}) {
      std::vector<std::atomic<int>> counts(static_cast<size_t>(n));
      ParallelFor(n, threads, [&](int i) { counts[static_cast<size_t>(i)].fetch_add(1); });
      int wrong = 0;
      for (auto& c : counts) wrong += c.load() != 1;
      CHECK_EQ(wrong, 0);
    }
  }
}

TEST(ParallelFor, RunsOnTheCallerAloneWithOneThread) {
  const std::thread::id caller = std::this_thread::get_id();
  int others = 0;  // no atomics needed: a single thread runs everything
  ParallelFor(50, 1, [&](int) { others += std::this_thread::get_id() != caller; });
  CHECK_EQ(others, 0);
}

TEST(ParallelFor, UsesAtMostNumThreadsAndNoMoreThanItems) {
  auto threads_used = [](int n, int num_threads) {
    std::mutex mutex;
    std::set<std::thread::id> ids;
    ParallelFor(n, num_threads, [&](int) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // let every thread join in
      std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    });
    return ids.size();
  };
  CHECK_LE(threads_used(40, 3), 3u);
  CHECK_GE(threads_used(40, 3), 2u);  // it does run in parallel
  CHECK_LE(threads_used(2, 16), 2u);
  CHECK_EQ(threads_used(1, 16), 1u);
}

TEST(ParallelFor, RethrowsTheFirstExceptionAfterEveryThreadStopped) {
  for (int threads : {1, 3}) {
    std::atomic<int> active{0};
    std::atomic<int> calls{0};
    int active_at_rethrow = -1;
    try {
      ParallelFor(1000, threads, [&](int i) {
        active.fetch_add(1);
        calls.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        active.fetch_sub(1);
        if (i == 5) throw std::invalid_argument("item " + std::to_string(i) + " failed");
      });
      CHECK(false);  // not reached: ParallelFor must throw
    } catch (const std::invalid_argument& e) {
      active_at_rethrow = active.load();
      CHECK_EQ(std::string(e.what()), "item 5 failed");
    }
    CHECK_EQ(active_at_rethrow, 0);  // no body still running when the caller sees the error
    // Later items are not started after the failure (a few may be running already).
    if (threads == 1) {
      CHECK_EQ(calls.load(), 6);
    } else {
      CHECK_LT(calls.load(), 1000);
    }
  }
}

TEST(ParallelFor, KeepsTheExceptionType) {
  struct Custom {
    int code;
  };
  bool caught = false;
  try {
    ParallelFor(10, 2, [](int i) {
      if (i == 3) throw Custom{42};
    });
  } catch (const Custom& c) {
    caught = c.code == 42;
  }
  CHECK(caught);
}

TEST(ThreadPool, RunsTheBodyOncePerThreadAndJoins) {
  std::atomic<int> runs{0};
  std::atomic<int> index_sum{0};
  {
    ThreadPool pool(3, -1, [&](int index) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      index_sum.fetch_add(1 << (4 * index));
      runs.fetch_add(1);
    });
    CHECK_EQ(pool.size(), 3);
    pool.Join();
    CHECK_EQ(runs.load(), 3);           // Join waited for every body
    CHECK_EQ(index_sum.load(), 0x111);  // bodies got indices 0, 1 and 2, once each
    pool.Join();                        // idempotent
  }
  std::atomic<int> later{0};
  {
    ThreadPool pool(2, -1, [&](int) { later.fetch_add(1); });
  }  // the destructor joins
  CHECK_EQ(later.load(), 2);
  ThreadPool none(0, -1, [](int) {});
  CHECK_EQ(none.size(), 0);
}

// The CPUs worker t of a pool made on this thread with `offset` is pinned to (one each).
std::multiset<int> PinnedCpus(int threads, int offset) {
  std::atomic<bool> go{false};
  std::mutex mutex;
  std::multiset<int> pinned_to;  // the one CPU of each worker pinned to exactly one
  {
    ThreadPool pool(threads, offset, [&](int) {
      while (!go.load()) std::this_thread::yield();  // pinned by now: the pool has returned
      cpu_set_t mine;
      CPU_ZERO(&mine);
      pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine);
      if (CPU_COUNT(&mine) == 1) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
          if (CPU_ISSET(cpu, &mine)) {
            std::lock_guard<std::mutex> lock(mutex);
            pinned_to.insert(cpu);
          }
        }
      }
    });
    go.store(true);
  }
  return pinned_to;
}

TEST(ThreadPool, PinsWorkerTToTheAllowedCpuOffsetPlusT) {
  const std::vector<int> cpus = ThreadPool::AllowedCpus();
  REQUIRE(!cpus.empty());
  constexpr int kThreads = 3;
  const int offset = 1;
  std::multiset<int> expected;
  for (int t = 0; t < kThreads; ++t) expected.insert(cpus[(offset + t) % cpus.size()]);
  CHECK_EQ(PinnedCpus(kThreads, offset), expected);
}

TEST(ThreadPool, StaysInsideTheCreatingThreadsCpuSet) {
  // A NUMA node's CPUs (or a container's cpuset), simulated: the calling thread restricted to
  // its last allowed CPU. Every worker is pinned there, whatever the offset (EnvPool's CPU
  // numbers would pin worker 0 to CPU 0, outside the set).
  const std::vector<int> cpus = ThreadPool::AllowedCpus();
  REQUIRE(!cpus.empty());
  cpu_set_t before, node;
  CPU_ZERO(&before);
  CPU_ZERO(&node);
  REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof(before), &before) == 0);
  CPU_SET(cpus.back(), &node);
  REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof(node), &node) == 0);
  const std::multiset<int> pinned = PinnedCpus(2, /*offset=*/0);
  pthread_setaffinity_np(pthread_self(), sizeof(before), &before);
  CHECK_EQ(pinned, (std::multiset<int>{cpus.back(), cpus.back()}));
}

}  // namespace
}  // namespace envfleet
