// A fixed set of worker threads (each gets its index), optionally pinned: worker t runs on the
// ((affinity_offset + t) mod n)-th of the n CPUs the creating thread may run on, when
// affinity_offset >= 0. And ParallelFor, which the pool uses to build its envs (an ALE ROM
// load or a MuJoCo model takes milliseconds each).
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

#include "core/signal_mask.h"

namespace envfleet {

class ThreadPool {
 public:
  // EnvPool counts the offset in CPU numbers (core (offset + t) mod the machine's CPUs), which
  // is the same wherever every CPU may be used. Under a restricted set (a container's cpuset,
  // taskset, a NUMA node's CPUs set on the calling thread: docs/many-cores.md) its pins to
  // CPUs outside the set fail and leave those workers unpinned; counted within the set, every
  // worker is pinned, and the pool stays inside it.
  ThreadPool(int num_threads, int affinity_offset, std::function<void(int)> body) {
    std::vector<int> cpus;
    if (affinity_offset >= 0) cpus = AllowedCpus();
    const NewThreadsBlockSignals blocked;  // a worker never takes a Ctrl-C (signal_mask.h)
    for (int t = 0; t < num_threads; ++t) {
      threads_.emplace_back(body, t);
      if (!cpus.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpus[static_cast<size_t>(affinity_offset + t) % cpus.size()], &set);
        pthread_setaffinity_np(threads_.back().native_handle(), sizeof(set), &set);
      }
    }
  }

  // The CPUs the calling thread may run on, in increasing order (empty if it cannot say).
  static std::vector<int> AllowedCpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) != 0) return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
    return cpus;
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
  {
    const NewThreadsBlockSignals blocked;
    for (int t = 1; t < threads; ++t) helpers.emplace_back(run);
  }
  run();
  for (auto& helper : helpers) helper.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace envfleet

#endif  // ENVFLEET_CORE_THREAD_POOL_H_
