// The queue between send() and the workers: one producer (the Python thread, which holds the
// GIL), many consumers (the workers, and the caller while it waits in recv()). A bounded ring
// in which each cell carries a sequence number (Vyukov's MPMC design), so a consumer that was
// descheduled between claiming a cell and reading it can never be overtaken by the producer.
// A Semaphore counts the items announced to the workers; the caller may also take items it
// did not announce (TakeUnannounced) to step them itself without waking anyone.
#ifndef ENVFLEET_CORE_ACTION_QUEUE_H_
#define ENVFLEET_CORE_ACTION_QUEUE_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

#include "core/semaphore.h"

namespace envfleet {

struct WorkItem {
  int32_t env_id;       // -1 tells a worker to exit
  bool reset;           // an explicit reset(): ignore the action, start a new episode
  int64_t seq;          // the output position fixed at send time (sync order), or -1: claim on
                        // finish; for a render item, the frame's index in the render batch
  bool render = false;  // draw the env (Pool::Render) instead of stepping it
  bool sweep = false;   // a ticket to the pool's current sweep, whose runs end below `seq`
};

class ActionQueue {
 public:
  explicit ActionQueue(size_t min_capacity) {
    capacity_ = 1;
    while (capacity_ < min_capacity) capacity_ <<= 1;
    cells_ = std::make_unique<Cell[]>(capacity_);
    for (size_t i = 0; i < capacity_; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  }

  // Producer only. The queue never holds more items than there are envs (an env has at most
  // one action in flight) plus the exit items, so the capacity is never exceeded; the wait
  // below only covers a consumer that claimed a cell and has not read it yet.
  void Push(const WorkItem& item) {
    size_t pos = tail_;
    Cell& cell = cells_[pos & (capacity_ - 1)];
    while (cell.sequence.load(std::memory_order_acquire) != pos) ENVFLEET_CPU_RELAX();
    cell.item = item;
    cell.sequence.store(pos + 1, std::memory_order_release);
    tail_ = pos + 1;
  }

  void Announce(int64_t n) { announced_.Post(static_cast<int32_t>(n)); }

  // Taking items in chunks (a fair share of what is announced, at most kMaxChunk) costs one
  // contended atomic operation per chunk instead of two per item.
  static constexpr int32_t kMaxChunk = 32;

  // How long an idle worker polls for work before it sleeps. A worker of a training loop
  // finds its next batch announced a few microseconds after it finished the last one (the
  // caller's Python work in between); polling through that gap saves a futex wake-up per
  // batch, which on a virtual machine can cost more than a batch of tiny envs. So the window
  // follows the gaps seen: twice the last one while they are short, only a token poll once
  // they are long (a loop busy elsewhere: polling would only burn a core).
  class SpinWindow {
   public:
    std::chrono::nanoseconds get() const { return window_; }
    void Learn(std::chrono::nanoseconds gap) {
      window_ = gap < kMaxSpin ? std::clamp(2 * gap, kMinSpin, kMaxSpin) : kMinSpin;
    }
    static constexpr std::chrono::nanoseconds kMinSpin{2'000};
    static constexpr std::chrono::nanoseconds kMaxSpin{100'000};

   private:
    std::chrono::nanoseconds window_ = kMinSpin;
  };

  // Workers: block until announced items exist, then take a chunk of them into `items`.
  // `takers` is how many threads share the work (the fair-share divisor); `window` is the
  // worker's own, which this adapts.
  // `window` null: no polling, sleep at once (a spare worker: see Pool::WorkerLoop).
  int32_t Take(WorkItem* items, int32_t takers, SpinWindow* window) {
    int32_t count = announced_.TryWaitSome(kMaxChunk, takers);
    if (count == 0 && window == nullptr) {
      count = announced_.WaitSome(kMaxChunk, takers);
    } else if (count == 0) {
      const auto start = std::chrono::steady_clock::now();
      count = announced_.SpinThenWaitSome(kMaxChunk, takers, window->get());
      window->Learn(std::chrono::steady_clock::now() - start);
    }
    if (count > 1 && stopping_.load(std::memory_order_seq_cst)) {
      // Closing: exit items are queued last, one per worker; take one item at a time so no
      // worker swallows another's exit item.
      announced_.Post(count - 1);
      count = 1;
    }
    PopInto(items, count);
    return count;
  }
  // Take with the shortest spin.
  int32_t Take(WorkItem* items, int32_t takers) {
    SpinWindow window;
    return Take(items, takers, &window);
  }
  // The waiting caller: take a chunk of announced items if there are any right now.
  int32_t TryTake(WorkItem* items, int32_t takers, int32_t most = kMaxChunk) {
    const int32_t count = announced_.TryWaitSome(most, takers);
    PopInto(items, count);
    return count;
  }
  // The caller: take `count` items it pushed but chose not to announce.
  void TakeUnannounced(WorkItem* items, int32_t count) { PopInto(items, count); }

  // Called before the exit items are pushed.
  void BeginStop() { stopping_.store(true, std::memory_order_seq_cst); }

 private:
  struct alignas(64) Cell {
    std::atomic<size_t> sequence;
    WorkItem item;
  };

  void PopInto(WorkItem* items, int32_t count) {
    if (count <= 0) return;
    const size_t first = head_.fetch_add(static_cast<size_t>(count), std::memory_order_relaxed);
    for (int32_t i = 0; i < count; ++i) {
      const size_t pos = first + static_cast<size_t>(i);
      Cell& cell = cells_[pos & (capacity_ - 1)];
      while (cell.sequence.load(std::memory_order_acquire) != pos + 1) ENVFLEET_CPU_RELAX();
      items[i] = cell.item;
      cell.sequence.store(pos + capacity_, std::memory_order_release);
    }
  }

  size_t capacity_;
  std::unique_ptr<Cell[]> cells_;
  alignas(64) size_t tail_ = 0;
  alignas(64) std::atomic<size_t> head_{0};
  Semaphore announced_;
  std::atomic<bool> stopping_{false};
};

}  // namespace envfleet

#endif  // ENVFLEET_CORE_ACTION_QUEUE_H_
