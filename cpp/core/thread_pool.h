// A fixed set of worker threads, optionally pinned: worker t runs on core
// (affinity_offset + t) mod cores when affinity_offset >= 0.
#ifndef ENVFLEET_CORE_THREAD_POOL_H_
#define ENVFLEET_CORE_THREAD_POOL_H_

#include <pthread.h>
#include <sched.h>

#include <functional>
#include <thread>
#include <vector>

namespace envfleet {

class ThreadPool {
 public:
  ThreadPool(int num_threads, int affinity_offset, std::function<void()> body) {
    int cores = static_cast<int>(std::thread::hardware_concurrency());
    if (cores < 1) cores = 1;
    for (int t = 0; t < num_threads; ++t) {
      threads_.emplace_back(body);
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

}  // namespace envfleet

#endif  // ENVFLEET_CORE_THREAD_POOL_H_
