// _envfleet_testing's hooks into the core's concurrency primitives (cpp/core/action_queue.h,
// semaphore.h, thread_pool.h), so tests/core/test_concurrency.py can stress them directly
// (many threads, many items) without going through an environment.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/action_queue.h"
#include "core/semaphore.h"
#include "core/thread_pool.h"

namespace nb = nanobind;

namespace envfleet {
namespace {

// One producer pushes `num_items` items in bursts of `burst` (announcing all but `reserve`
// of each burst, which the producer takes itself, as recv() does); `num_consumers` threads
// take the announced ones. With `homes` > 0, item i goes to home lane i % homes and consumer
// c takes from lane (c + 1) % homes first (the producer from lane 0), as the pool's async
// steps do. Returns how many times each item was taken.
std::vector<int> ActionQueueStress(int num_consumers, int num_items, int burst, int reserve,
                                   int homes) {
  std::vector<std::atomic<int>> taken(static_cast<size_t>(num_items));
  ActionQueue queue(static_cast<size_t>(burst + num_consumers + 1),
                    std::vector<size_t>(static_cast<size_t>(homes), static_cast<size_t>(burst)));
  const auto lane_of = [homes](int item) { return homes > 0 ? item % homes : -1; };
  std::atomic<int> done{0};
  {
    nb::gil_scoped_release release;
    std::vector<std::thread> consumers;
    for (int c = 0; c < num_consumers; ++c) {
      consumers.emplace_back([&, c] {
        WorkItem items[ActionQueue::kMaxChunk];
        ActionQueue::SpinWindow window;
        const int home = homes > 0 ? (c + 1) % homes : 0;
        while (true) {
          const int32_t count = queue.Take(items, num_consumers + 1, &window, home);
          for (int32_t i = 0; i < count; ++i) {
            if (items[i].env_id < 0) return;
            taken[static_cast<size_t>(items[i].env_id)].fetch_add(1);
            done.fetch_add(1);
          }
        }
      });
    }
    for (int start = 0; start < num_items; start += burst) {
      const int count = std::min(burst, num_items - start);
      const int mine = std::min(reserve, count);
      for (int i = 0; i < count; ++i) queue.Push({start + i, false, -1}, lane_of(start + i));
      queue.Announce(count - mine);
      WorkItem items[ActionQueue::kMaxChunk];
      for (int i = 0; i < mine;) {
        const int32_t chunk = std::min<int32_t>(mine - i, ActionQueue::kMaxChunk);
        queue.TakeUnannounced(items, chunk);
        for (int32_t j = 0; j < chunk; ++j) {
          taken[static_cast<size_t>(items[j].env_id)].fetch_add(1);
          done.fetch_add(1);
        }
        i += chunk;
      }
      // Like the pool, never have more than one burst outstanding.
      while (done.load() < start + count) {
        const int32_t got = queue.TryTake(items, num_consumers + 1);
        for (int32_t j = 0; j < got; ++j) {
          taken[static_cast<size_t>(items[j].env_id)].fetch_add(1);
          done.fetch_add(1);
        }
      }
    }
    queue.Stop(num_consumers);
    for (auto& t : consumers) t.join();
  }
  std::vector<int> out;
  for (auto& t : taken) out.push_back(t.load());
  return out;
}

// `num_threads` threads each Wait() `per_thread` times while the caller posts the total in
// chunks of `chunk`. Returns the permits left afterwards (0 when accounting is exact).
int SemaphoreStress(int num_threads, int per_thread, int chunk) {
  Semaphore sem(0);
  std::atomic<int> acquired{0};
  {
    nb::gil_scoped_release release;
    std::vector<std::thread> threads;
    for (int t = 0; t < num_threads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < per_thread; ++i) {
          sem.Wait();
          acquired.fetch_add(1);
        }
      });
    }
    int total = num_threads * per_thread;
    for (int posted = 0; posted < total; posted += chunk) {
      sem.Post(std::min(chunk, total - posted));
      if ((posted / chunk) % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    for (auto& t : threads) t.join();
  }
  int left = 0;
  while (sem.TryWait()) ++left;
  return left + (acquired.load() - num_threads * per_thread);
}

}  // namespace

// ParallelFor over n items on num_threads threads; item `fail_at` (if in range) throws.
// Returns how many times each item ran; a throw is re-raised as ValueError.
std::vector<int> ParallelForCheck(int n, int num_threads, int fail_at) {
  std::vector<std::atomic<int>> counts(static_cast<size_t>(n));
  ParallelFor(n, num_threads, [&](int i) {
    if (i == fail_at) throw std::invalid_argument("item " + std::to_string(i) + " failed");
    counts[i].fetch_add(1);
  });
  return std::vector<int>(counts.begin(), counts.end());
}

void BindCoreTesting(nb::module_& m) {
  m.def("parallel_for_check", &ParallelForCheck, nb::arg("n"), nb::arg("num_threads"),
        nb::arg("fail_at") = -1);
  m.def("action_queue_stress", &ActionQueueStress, nb::arg("num_consumers"), nb::arg("num_items"),
        nb::arg("burst"), nb::arg("reserve"), nb::arg("homes") = 0);
  m.def("semaphore_stress", &SemaphoreStress, nb::arg("num_threads"), nb::arg("per_thread"),
        nb::arg("chunk"));
}

}  // namespace envfleet
