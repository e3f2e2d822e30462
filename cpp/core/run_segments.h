// Hands out the runs of a sweep (cpp/core/pool.h) to the threads that step them.
//
// A sweep's runs are split into one contiguous home segment per stepping thread. A thread
// claims runs from the front of its own segment and, once that is empty, steals from the back
// of the others'. Homes keep an env on the same core from one batch to the next, so its state
// stays in that core's cache (when runs went to whichever thread came first, most envs moved
// between cores every batch, and loading their state from the other core's cache cost more
// than stepping them); stealing still evens out a thread that starts late or is descheduled.
//
// Each segment is one atomic word: the sweep's generation, the next run at the front and the
// end of what is left at the back. A claim is one compare-and-swap on that word, so a thread
// holding a ticket of an earlier sweep (tickets can be taken long after their sweep has
// finished) sees a different generation and claims nothing.
#ifndef ENVFLEET_CORE_RUN_SEGMENTS_H_
#define ENVFLEET_CORE_RUN_SEGMENTS_H_

#include <atomic>
#include <cstdint>
#include <memory>

namespace envfleet {

class RunSegments {
 public:
  // Runs per segment must fit the word's 16-bit fields; the pool makes a handful per thread.
  static constexpr int64_t kMaxRunsPerSegment = 0xffff;

  explicit RunSegments(int max_segments)
      : max_segments_(max_segments), segments_(std::make_unique<Segment[]>(max_segments)) {}

  // Starts a sweep of `runs` runs over `segments` homes (1 <= segments <= max_segments, and
  // runs <= segments * kMaxRunsPerSegment). Only while every run of the previous sweep has
  // been claimed. Returns the sweep's generation, which claims name.
  uint32_t Start(int64_t runs, int segments) {
    const uint32_t gen = ++generation_;
    for (int s = 0; s < max_segments_; ++s) {
      const int64_t first = s < segments ? runs * s / segments : 0;
      const int64_t end = s < segments ? runs * (s + 1) / segments : 0;
      segments_[s].first = first;
      // Release: a thread whose claim reads this word sees `first` too.
      segments_[s].word.store(Word(gen, 0, static_cast<uint32_t>(end - first)),
                              std::memory_order_release);
    }
    return gen;
  }

  // Claims a run of sweep `gen` for the thread whose home segment is `home` (-1: none): the
  // front of its home first, then the back of the others. Returns the run's index in the
  // sweep, or -1 when none is left.
  int64_t Claim(uint32_t gen, int home) {
    if (home >= 0 && home < max_segments_) {
      const int64_t run = Take(segments_[home], gen, /*front=*/true);
      if (run >= 0) return run;
    }
    const int start = home < 0 ? 0 : home + 1;
    for (int k = 0; k < max_segments_; ++k) {
      const int s = (start + k) % max_segments_;
      if (s == home) continue;
      const int64_t run = Take(segments_[s], gen, /*front=*/false);
      if (run >= 0) return run;
    }
    return -1;
  }

 private:
  struct alignas(64) Segment {
    std::atomic<uint64_t> word{0};
    int64_t first = 0;  // the sweep's index of the segment's first run
  };

  static uint64_t Word(uint32_t gen, uint32_t front, uint32_t back) {
    return static_cast<uint64_t>(gen) << 32 | static_cast<uint64_t>(front) << 16 | back;
  }

  static int64_t Take(Segment& segment, uint32_t gen, bool front) {
    uint64_t word = segment.word.load(std::memory_order_acquire);
    while (true) {
      const uint32_t at_front = static_cast<uint32_t>(word >> 16) & 0xffff;
      const uint32_t at_back = static_cast<uint32_t>(word) & 0xffff;
      if (static_cast<uint32_t>(word >> 32) != gen || at_front >= at_back) return -1;
      const uint64_t taken = front ? word + (uint64_t{1} << 16) : word - 1;
      if (segment.word.compare_exchange_weak(word, taken, std::memory_order_acquire,
                                             std::memory_order_acquire)) {
        return segment.first + (front ? at_front : at_back - 1);
      }
    }
  }

  const int max_segments_;
  std::unique_ptr<Segment[]> segments_;
  uint32_t generation_ = 0;  // the Python thread's
};

}  // namespace envfleet

#endif  // ENVFLEET_CORE_RUN_SEGMENTS_H_
