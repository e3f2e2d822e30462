// The queue between send() and the workers: one producer (the Python thread, which holds the
// GIL), many consumers (the workers, and the caller while it waits in recv()). It is made of
// lanes, bounded rings in which each cell carries a sequence number (Vyukov's MPMC design), so
// a consumer that was descheduled between claiming a cell and reading it can never be
// overtaken by the producer. A Semaphore counts the items announced to the workers; the
// caller may also take items it did not announce (TakeUnannounced) to step them itself
// without waking anyone.
//
// Home lanes keep an env on one core: the pool queues an env's steps in the lane of its
// home (a fixed range of env ids per stepping thread), and a taker takes from its own lane
// first and only then from the others (stealing), then from the control lane (sweep tickets
// and render items; exit items are not queued, see Stop). With one shared ring, the threads took
// alternate chunks, so an env's state, record and rows moved between cores at about every other
// step; for a tiny env those moves were most of the step (CartPole-v1, 4096 envs in batches of
// 2048, one worker and the caller: 17.5M steps/s; the worker alone, every env staying on its core:
// 28M).
//
// Own lane first must not mean "only own lane while it has items": the caller in recv() takes
// its own lane, returns those envs, gets them back at the next send(), and could go on like
// that while a worker that has no core (a loaded machine) leaves the envs of its lane waiting
// for many batches (seen: 3 of 6 envs unseen for 60 batches). So each item carries its push
// number, and a taker first takes from any lane whose first item is more than `patience`
// pushes older than its own lane's first item. The pool's patience is num_envs: one full
// round of every env. A taker's own lane is refilled with fresh items, so a lane nobody else
// serves goes first once it is a round behind, and its envs keep at least about half the
// pace of the others (Counting, 8 envs in batches of 3, the worker without a core: 100 results
// per env against 200 for the caller's lane; a quiet machine: 137-164 against a fair 150).
// Comparing with the clock instead (an item waiting num_envs pushes since it was queued)
// fired in steady state, where an env naturally waits about that long, and gave back most of
// the lanes' gain (CartPole-v1 async 4096/2048, one worker: 27.7M against 34.9M steps/s).
#ifndef ENVFLEET_CORE_ACTION_QUEUE_H_
#define ENVFLEET_CORE_ACTION_QUEUE_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

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
  // A control lane holding at least `min_capacity` items, and a home lane for each entry of
  // `home_capacities` holding at least that many (none: one lane, a plain FIFO queue).
  // `patience`: after how many later pushes an item is overdue (0: the home lanes' total
  // capacity, which for the pool is one push of every env).
  explicit ActionQueue(size_t min_capacity, const std::vector<size_t>& home_capacities = {},
                       uint64_t patience = 0)
      : num_homes_(static_cast<int>(home_capacities.size())),
        lanes_(std::make_unique<Lane[]>(home_capacities.size() + 1)),
        patience_(patience > 0 ? patience : TotalOf(home_capacities)) {
    for (int lane = 0; lane < num_homes_; ++lane) lanes_[lane].Allocate(home_capacities[lane]);
    lanes_[num_homes_].Allocate(min_capacity);
  }

  int num_homes() const { return num_homes_; }

  // Producer only: queues `item` in home lane `home`, or in the control lane (home < 0).
  // A lane never holds more items than it was made for (an env has at most one action in
  // flight; the pool sizes the control lane for its sweep tickets and render items), so
  // the wait below only covers a consumer that claimed a cell and has not read it yet.
  void Push(const WorkItem& item, int home = -1) {
    Lane& lane = lanes_[home < 0 ? num_homes_ : home];
    const size_t pos = lane.tail;
    Cell& cell = lane.cells[pos & lane.mask];
    while (cell.sequence.load(std::memory_order_acquire) != pos) ENVFLEET_CPU_RELAX();
    cell.item = item;
    cell.push_number.store(pushes_, std::memory_order_relaxed);
    cell.sequence.store(pos + 1, std::memory_order_release);
    lane.tail = pos + 1;
    lane.published.store(pos + 1, std::memory_order_release);
    ++pushes_;
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
  // `home`: the taker's home lane, taken from first.
  int32_t Take(WorkItem* items, int32_t takers, SpinWindow* window, int home = 0) {
    int32_t count = announced_.TryWaitSome(kMaxChunk, takers);
    if (count == 0 && window == nullptr) {
      count = announced_.WaitSome(kMaxChunk, takers);
    } else if (count == 0) {
      const auto start = std::chrono::steady_clock::now();
      count = announced_.SpinThenWaitSome(kMaxChunk, takers, window->get());
      window->Learn(std::chrono::steady_clock::now() - start);
    }
    if (count > 1 && stopping_.load(std::memory_order_seq_cst)) {
      // Closing: one item at a time, so that the exit items go one to each worker.
      announced_.Post(count - 1);
      count = 1;
    }
    return PopInto(items, count, home);
  }
  // Take with the shortest spin.
  int32_t Take(WorkItem* items, int32_t takers) {
    SpinWindow window;
    return Take(items, takers, &window);
  }
  // The waiting caller: take a chunk of announced items if there are any right now.
  int32_t TryTake(WorkItem* items, int32_t takers, int32_t most = kMaxChunk, int home = 0) {
    return PopInto(items, announced_.TryWaitSome(most, takers), home);
  }
  // The caller: take `count` items it pushed but chose not to announce, its own lane (0)
  // first.
  void TakeUnannounced(WorkItem* items, int32_t count) {
    PopInto(items, count, /*home=*/0);  // never while stopping: all `count` are there
  }

  // Producer only, once no call is running: each of `workers` takers gets an exit item
  // (env_id -1, alone) after the items queued before it are taken. Exit items are not queued:
  // a taker of a stopping queue that finds every lane empty makes one. (Queued exit items
  // came after the home lanes' items only in FIFO order; with lanes, a taker holding permits
  // from before the stop could find the lanes emptied by others and take two exit items,
  // leaving a worker with none: close() hung.)
  void Stop(int32_t workers) {
    stopping_.store(true, std::memory_order_seq_cst);
    announced_.Post(workers);
    spare_gate_.Post(workers);
  }
  bool stopping() const { return stopping_.load(std::memory_order_seq_cst); }

  // Spare workers (see Pool::SpareLoop) sleep here rather than on the announcements, which
  // would wake them at every send(); the pool wakes them for control items (render items),
  // and Stop for good.
  void WaitSpareGate() { spare_gate_.Wait(); }
  void WakeSpares(int32_t n) { spare_gate_.Post(n); }
  // A home for TryTake: the control lane first, then the home lanes.
  static constexpr int kControlFirst = -1;

 private:
  struct alignas(64) Cell {
    std::atomic<size_t> sequence;
    std::atomic<uint64_t> push_number{0};  // how many pushes came before this item's
    WorkItem item;
  };

  static uint64_t TotalOf(const std::vector<size_t>& capacities) {
    uint64_t total = 0;
    for (size_t capacity : capacities) total += capacity;
    return std::max<uint64_t>(total, 1);
  }

  struct Lane {
    void Allocate(size_t min_capacity) {
      size_t capacity = 1;
      while (capacity < min_capacity) capacity <<= 1;
      mask = capacity - 1;
      cells = std::make_unique<Cell[]>(capacity);
      for (size_t i = 0; i < capacity; ++i) cells[i].sequence.store(i, std::memory_order_relaxed);
    }
    std::unique_ptr<Cell[]> cells;
    size_t mask = 0;
    alignas(64) size_t tail = 0;                   // the producer's
    alignas(64) std::atomic<size_t> published{0};  // tail, as consumers may read it
    alignas(64) std::atomic<size_t> head{0};       // the next cell to claim
  };

  // Takes `count` items: from the lanes whose first item is far older than its home lane's
  // (see the top of the file), then as many as its home lane holds (up to count), then from
  // the other home lanes in turn, then from the control lane. The caller holds `count`
  // announced (or reserved) items, and every taker claims only as many as it holds, so the
  // items are there: a lane found empty was emptied by takers holding theirs, and the search
  // goes round again. A stopping queue has no more pushes to wait for: once a pass finds
  // nothing, the taker gets the items it found, or an exit item if none, and hands back the
  // permits it could not use. (Each exit costs one permit; Stop added one per worker beyond
  // the items, so a worker still running always finds a permit left.) Returns how many
  // items it took.
  int32_t PopInto(WorkItem* items, int32_t count, int home) {
    const int lanes = num_homes_ + 1;
    const int first = num_homes_ > 0 && home > 0 ? home % num_homes_ : 0;
    int32_t got = 0;
    while (true) {
      if (home == kControlFirst) {
        got += Claim(&lanes_[num_homes_], items, count);
      } else if (num_homes_ > 0) {
        // Lanes whose first item is older than the own lane's by more than the patience go
        // first. (The own lane empty: the search below steals anyway.)
        uint64_t own = 0;
        if (FirstPushNumber(lanes_[first], &own)) {
          for (int index = 0; index < lanes && got < count; ++index) {
            uint64_t other = 0;
            if (index != first && FirstPushNumber(lanes_[index], &other) &&
                other + patience_ < own) {
              got += Claim(&lanes_[index], items + got, count - got);
            }
          }
        }
      }
      for (int k = 0; k < lanes && got < count; ++k) {
        const int index = k == num_homes_ ? num_homes_ : (first + k) % num_homes_;
        got += Claim(&lanes_[index], items + got, count - got);
      }
      if (got == count) return count;
      if (stopping_.load(std::memory_order_seq_cst)) {
        if (got == 0) items[got++] = WorkItem{-1, false, -1};
        announced_.Post(count - got);
        return got;
      }
      ENVFLEET_CPU_RELAX();
    }
  }

  // The push number of the lane's first item, if it has one. A racing read may see a later
  // item's number (the cell was taken and refilled): that only changes the order of taking
  // for a moment; which items a taker gets is decided by Claim.
  bool FirstPushNumber(const Lane& lane, uint64_t* number) const {
    const size_t head = lane.head.load(std::memory_order_relaxed);
    if (head >= lane.published.load(std::memory_order_acquire)) return false;
    *number = lane.cells[head & lane.mask].push_number.load(std::memory_order_relaxed);
    return true;
  }

  // Claims up to `most` published items of `lane` into `items`; returns how many.
  static int32_t Claim(Lane* lane, WorkItem* items, int32_t most) {
    size_t first = lane->head.load(std::memory_order_relaxed);
    size_t n = 0;
    do {
      const size_t published = lane->published.load(std::memory_order_acquire);
      if (first >= published) return 0;
      n = std::min(static_cast<size_t>(most), published - first);
    } while (!lane->head.compare_exchange_weak(first, first + n, std::memory_order_relaxed,
                                               std::memory_order_relaxed));
    for (size_t i = 0; i < n; ++i) {
      const size_t pos = first + i;
      Cell& cell = lane->cells[pos & lane->mask];
      while (cell.sequence.load(std::memory_order_acquire) != pos + 1) ENVFLEET_CPU_RELAX();
      items[i] = cell.item;
      cell.sequence.store(pos + lane->mask + 1, std::memory_order_release);
    }
    return static_cast<int32_t>(n);
  }

  const int num_homes_;
  std::unique_ptr<Lane[]> lanes_;
  const uint64_t patience_;
  // The producer's count of its pushes, away from the fields every taker reads.
  alignas(64) uint64_t pushes_ = 0;
  alignas(64) Semaphore announced_;  // written by the producer and every taker
  Semaphore spare_gate_;
  std::atomic<bool> stopping_{false};
};

}  // namespace envfleet

#endif  // ENVFLEET_CORE_ACTION_QUEUE_H_
