// A fixed set of worker threads (each gets its index), optionally pinned: worker t runs on core
// (affinity_offset + t) mod cores when affinity_offset >= 0. And ParallelFor, which the pool
// uses to build its envs (an ALE ROM load or a MuJoCo model takes milliseconds each).
#ifndef ENVFLEET_CORE_THREAD_POOL_H_
#define ENVFLEET_CORE_THREAD_POOL_H_

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace envfleet {

class ThreadPool {
 public:
  ThreadPool(int num_threads, int affinity_offset, std::function<void(int)> body) {
    int cores = static_cast<int>(std::thread::hardware_concurrency());
    if (cores < 1) cores = 1;
    for (int t = 0; t < num_threads; ++t) {
      threads_.emplace_back(body, t);
      if (affinity_offset >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((affinity_offset + t) % cores, &set);
        pthread_setaffinity_np(threads_.back().native_handle(), sizeof(set), &set);
      }
    }
  }
  ~ThreadPool() { Join(); }

  void Join() {
    for (auto& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }
  int size() const { return static_cast<int>(threads_.size()); }

 private:
  std::vector<std::thread> threads_;
};

// The cores this process may run on (its CPU affinity), at least 1.
inline int UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// Calls body(i) for every i in [0, n) on up to `num_threads` threads, the calling one
// included, and returns when all are done. The first exception stops further calls and is
// rethrown here once every thread has finished.
inline void ParallelFor(int n, int num_threads, const std::function<void(int)>& body) {
  const int threads = std::max(1, std::min(num_threads, n));
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&] {
    for (int i = next.fetch_add(1); i < n && !failed.load(); i = next.fetch_add(1)) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed.store(true);
      }
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(static_cast<size_t>(threads - 1));
  for (int t = 1; t < threads; ++t) helpers.emplace_back(run);
  run();
  for (auto& helper : helpers) helper.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace envfleet

#endif  // ENVFLEET_CORE_THREAD_POOL_H_
