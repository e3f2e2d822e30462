// cpp/core/action_queue.h: items come out whole and in push order, only announced items go to
// Take/TryTake, chunks are fair shares of at most kMaxChunk, a stopped queue hands out one
// item per Take and one exit item per worker, home lanes are taken own lane first (a lane far
// behind first), and concurrent takers take every item exactly once.
#include "core/action_queue.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "check.h"

namespace envfleet {
namespace {

WorkItem Item(int32_t i) { return {i, i % 3 == 0, i % 2 == 0 ? int64_t{i} * 1000 + 7 : -1}; }

bool Same(const WorkItem& a, const WorkItem& b) {
  return a.env_id == b.env_id && a.reset == b.reset && a.seq == b.seq;
}

TEST(ActionQueue, TakeUnannouncedReturnsPushedItemsWholeAndInOrder) {
  ActionQueue queue(8);
  for (int32_t i = 0; i < 5; ++i) queue.Push(Item(i));
  WorkItem items[ActionQueue::kMaxChunk];
  queue.TakeUnannounced(items, 5);
  for (int32_t i = 0; i < 5; ++i) CHECK(Same(items[i], Item(i)));
}

TEST(ActionQueue, HoldsItsRequestedCapacityAcrossManyWrapArounds) {
  // Any min_capacity (the pool asks for num_envs + num_threads + 1, rarely a power of two)
  // holds that many items at once, round after round, in FIFO order.
  for (size_t capacity : {1, 2, 3, 5, 8, 13, 100}) {
    ActionQueue queue(capacity);
    int32_t next_in = 0;
    int32_t next_out = 0;
    for (int round = 0; round < 20; ++round) {
      const int32_t n = static_cast<int32_t>(std::min<size_t>(capacity, round % 2 ? capacity : 1));
      for (int32_t i = 0; i < n; ++i) queue.Push(Item(next_in++));
      WorkItem items[ActionQueue::kMaxChunk];
      for (int32_t left = n; left > 0;) {
        const int32_t chunk = std::min(left, ActionQueue::kMaxChunk);
        queue.TakeUnannounced(items, chunk);
        for (int32_t i = 0; i < chunk; ++i) CHECK(Same(items[i], Item(next_out++)));
        left -= chunk;
      }
    }
    CHECK_EQ(next_out, next_in);
  }
}

TEST(ActionQueue, TryTakeTakesOnlyAnnouncedItems) {
  ActionQueue queue(8);
  for (int32_t i = 0; i < 4; ++i) queue.Push(Item(i));
  WorkItem items[ActionQueue::kMaxChunk];
  CHECK_EQ(queue.TryTake(items, 1), 0);  // pushed, not announced
  queue.Announce(2);
  REQUIRE_EQ(queue.TryTake(items, 1), 2);
  CHECK(Same(items[0], Item(0)));
  CHECK(Same(items[1], Item(1)));
  CHECK_EQ(queue.TryTake(items, 1), 0);
  queue.TakeUnannounced(items, 2);  // the caller's reserve
  CHECK(Same(items[0], Item(2)));
  CHECK(Same(items[1], Item(3)));
}

TEST(ActionQueue, ChunksAreFairSharesOfAtMostMaxChunk) {
  ActionQueue queue(128);
  for (int32_t i = 0; i < 100; ++i) queue.Push(Item(i));
  queue.Announce(100);
  WorkItem items[ActionQueue::kMaxChunk];
  CHECK_EQ(queue.TryTake(items, 1), ActionQueue::kMaxChunk);  // 100 / 1, capped
  CHECK(Same(items[0], Item(0)));
  CHECK_EQ(queue.TryTake(items, 4), 17);  // 68 / 4
  CHECK(Same(items[0], Item(32)));
  CHECK(Same(items[16], Item(48)));
  CHECK_EQ(queue.TryTake(items, 1000), 1);  // 51 / 1000: at least one
  CHECK(Same(items[0], Item(49)));
  CHECK_EQ(queue.TryTake(items, 2), 25);
  CHECK_EQ(queue.Take(items, 1), 25);
  CHECK(Same(items[24], Item(99)));
  CHECK_EQ(queue.TryTake(items, 1), 0);
}

TEST(ActionQueue, ATakerTakesItsHomeLaneFirstThenStealsThenTakesControlItems) {
  ActionQueue queue(8, {4, 4});
  queue.Push(Item(0), 0);
  queue.Push(Item(1), 0);
  queue.Push(Item(2), 1);
  queue.Push(Item(3), 1);
  queue.Push(Item(4));  // the control lane
  queue.Announce(5);
  WorkItem items[ActionQueue::kMaxChunk];
  REQUIRE_EQ(queue.TryTake(items, 1, /*most=*/3, /*home=*/1), 3);
  CHECK(Same(items[0], Item(2)));  // its own lane, in push order
  CHECK(Same(items[1], Item(3)));
  CHECK(Same(items[2], Item(0)));  // then stolen from lane 0
  REQUIRE_EQ(queue.TryTake(items, 1, /*most=*/5, /*home=*/0), 2);
  CHECK(Same(items[0], Item(1)));
  CHECK(Same(items[1], Item(4)));  // control items last
  CHECK_EQ(queue.TryTake(items, 1), 0);
}

TEST(ActionQueue, ALaneWhoseFirstItemIsFarOlderThanTheOwnLanesGoesFirst) {
  // The caller's loop in an async pool whose worker has no core: the caller takes its own
  // lane, returns those envs, gets them back, and so on. Lane 1's items must not wait for
  // ever: once its first item is more than `patience` (here 2) pushes older than the first
  // item of the taker's own lane, lane 1 goes first.
  ActionQueue queue(8, {4, 4}, /*patience=*/2);
  queue.Push(Item(10), 1);  // push number 0
  queue.Push(Item(11), 1);  // 1
  queue.Announce(2);
  WorkItem items[ActionQueue::kMaxChunk];
  // Round 0: the own lane's first item has number 2; 10 is 2 older, not more: own lane first.
  queue.Push(Item(0), 0);
  queue.Push(Item(1), 0);
  queue.Announce(2);
  REQUIRE_EQ(queue.TryTake(items, 1, /*most=*/2, /*home=*/0), 2);
  CHECK(Same(items[0], Item(0)));
  CHECK(Same(items[1], Item(1)));
  // Round 1: the own lane's first item has number 4; lane 1 goes first, then the own lane.
  queue.Push(Item(2), 0);
  queue.Push(Item(3), 0);
  queue.Announce(2);
  REQUIRE_EQ(queue.TryTake(items, 1, /*most=*/4, /*home=*/0), 4);
  CHECK(Same(items[0], Item(10)));
  CHECK(Same(items[1], Item(11)));
  CHECK(Same(items[2], Item(2)));
  CHECK(Same(items[3], Item(3)));
}

TEST(ActionQueue, TakeBlocksUntilItemsAreAnnounced) {
  ActionQueue queue(8);
  std::atomic<int32_t> got{-1};
  std::thread worker([&] {
    WorkItem items[ActionQueue::kMaxChunk];
    const int32_t n = queue.Take(items, 1);
    got.store(n == 1 ? items[0].env_id : -100 - n);
  });
  queue.Push(Item(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK_EQ(got.load(), -1);  // pushed but not announced: the worker still waits
  queue.Announce(1);
  worker.join();
  CHECK_EQ(got.load(), 5);
}

TEST(ActionQueue, TheSpinWindowFollowsShortGapsAndDropsAfterALongOne) {
  using std::chrono::microseconds;
  ActionQueue::SpinWindow window;
  CHECK(window.get() == ActionQueue::SpinWindow::kMinSpin);
  window.Learn(microseconds(10));
  CHECK(window.get() == microseconds(20));  // twice the gap: the next one is caught spinning
  window.Learn(microseconds(80));
  CHECK(window.get() == ActionQueue::SpinWindow::kMaxSpin);  // capped
  window.Learn(microseconds(300));
  CHECK(window.get() == ActionQueue::SpinWindow::kMinSpin);  // a slow loop: stop burning
  window.Learn(microseconds(0));
  CHECK(window.get() == ActionQueue::SpinWindow::kMinSpin);
}

TEST(ActionQueue, AStoppedQueueHandsOutWhatIsQueuedOneByOneThenOneExitItemPerWorker) {
  for (size_t homes : {0, 2}) {
    ActionQueue queue(8, std::vector<size_t>(homes, 4));
    for (int i = 0; i < 3; ++i) queue.Push(Item(i), homes > 0 ? i % 2 : -1);
    queue.Announce(3);
    queue.Stop(2);
    WorkItem items[ActionQueue::kMaxChunk];
    int32_t seen = 0;
    for (int i = 0; i < 3; ++i) {
      REQUIRE_EQ(queue.Take(items, 1), 1);  // one at a time: 5 permits, 3 items
      CHECK(items[0].env_id >= 0);
      seen += 1 << items[0].env_id;
    }
    CHECK_EQ(seen, 7);
    for (int worker = 0; worker < 2; ++worker) {
      REQUIRE_EQ(queue.Take(items, 1), 1);
      CHECK_EQ(items[0].env_id, -1);
    }
    CHECK_EQ(queue.TryTake(items, 1), 0);  // nothing left over
  }
}

TEST(ActionQueue, APermitHolderFromBeforeTheStopGetsItsItemsOrAnExitAndNeverWaits) {
  // A taker that took 3 permits before Stop finds the lanes emptied by takers holding later
  // permits: it gets what is left, or an exit item, and hands the other permits back.
  ActionQueue queue(8, {4, 4});
  for (int i = 0; i < 3; ++i) queue.Push(Item(i), i % 2);
  queue.Announce(3);
  queue.Stop(2);
  WorkItem items[ActionQueue::kMaxChunk];
  REQUIRE_EQ(queue.TryTake(items, 1, /*most=*/3), 3);  // emptied by a taker with 3 permits
  REQUIRE_EQ(queue.TryTake(items, 1, /*most=*/2), 1);  // 2 permits, no item: one exit
  CHECK_EQ(items[0].env_id, -1);
  REQUIRE_EQ(queue.Take(items, 1), 1);  // the permit handed back: the other worker's exit
  CHECK_EQ(items[0].env_id, -1);
  CHECK_EQ(queue.TryTake(items, 1), 0);
}

TEST(ActionQueue, WorkersStoppedWhileHomeLanesAreFullEachExitOnce) {
  // Close() while async steps are queued in home lanes: every worker leaves, none twice.
  constexpr int kWorkers = 3;
  for (int round = 0; round < 200; ++round) {
    ActionQueue queue(16, {64, 64});
    std::atomic<int> exited{0};
    std::atomic<int> misplaced_exits{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < kWorkers; ++t) {
      workers.emplace_back([&, t] {
        WorkItem items[ActionQueue::kMaxChunk];
        ActionQueue::SpinWindow window;
        while (true) {
          const int32_t n = queue.Take(items, kWorkers, &window, t);
          for (int32_t i = 0; i + 1 < n; ++i) misplaced_exits += items[i].env_id < 0;
          if (items[n - 1].env_id < 0) {
            exited.fetch_add(1);
            return;
          }
        }
      });
    }
    for (int i = 0; i < 100; ++i) queue.Push(Item(i), i % 2);
    queue.Announce(100);
    queue.Stop(kWorkers);
    for (auto& w : workers) w.join();  // a worker left without an exit item would hang here
    CHECK_EQ(exited.load(), kWorkers);
    CHECK_EQ(misplaced_exits.load(), 0);
  }
}

TEST(ActionQueue, StoppedWorkersEachTakeTheirOwnExitItem) {
  constexpr int kWorkers = 4;
  ActionQueue queue(16);
  std::atomic<int> exited{0};
  std::atomic<int> extra{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < kWorkers; ++t) {
    workers.emplace_back([&] {
      WorkItem items[ActionQueue::kMaxChunk];
      while (true) {
        const int32_t n = queue.Take(items, kWorkers);
        if (items[n - 1].env_id < 0) {
          extra.fetch_add(n - 1);  // anything taken with the exit item would be lost
          exited.fetch_add(1);
          return;
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  queue.Stop(kWorkers);
  for (auto& w : workers) w.join();  // a worker left without an exit item would hang here
  CHECK_EQ(exited.load(), kWorkers);
  CHECK_EQ(extra.load(), 0);
}

TEST(ActionQueue, ConcurrentTakersTakeEveryItemExactlyOnce) {
  // One producer in bursts, announcing all but a reserve it takes itself (as recv() does);
  // consumers and the producer's TryTake race for the announced ones.
  for (int consumers : {1, 3}) {
    for (int burst : {1, 7, 64}) {
      const int reserve = burst / 3;
      constexpr int kItems = 20000;
      std::vector<std::atomic<int>> taken(kItems);
      ActionQueue queue(static_cast<size_t>(burst + consumers + 1));
      std::atomic<int> done{0};
      auto record = [&](const WorkItem* items, int32_t n) {
        for (int32_t i = 0; i < n; ++i) {
          taken[static_cast<size_t>(items[i].env_id)].fetch_add(1);
          done.fetch_add(1);
        }
      };
      std::vector<std::thread> threads;
      for (int c = 0; c < consumers; ++c) {
        threads.emplace_back([&] {
          WorkItem items[ActionQueue::kMaxChunk];
          while (true) {
            const int32_t n = queue.Take(items, consumers + 1);
            if (items[n - 1].env_id < 0) return;
            record(items, n);
          }
        });
      }
      WorkItem items[ActionQueue::kMaxChunk];
      for (int start = 0; start < kItems; start += burst) {
        const int count = std::min(burst, kItems - start);
        const int mine = std::min(reserve, count);
        for (int i = 0; i < count; ++i) queue.Push({start + i, false, -1});
        queue.Announce(count - mine);
        for (int i = 0; i < mine;) {
          const int32_t chunk = std::min<int32_t>(mine - i, ActionQueue::kMaxChunk);
          queue.TakeUnannounced(items, chunk);
          record(items, chunk);
          i += chunk;
        }
        while (done.load() < start + count) record(items, queue.TryTake(items, consumers + 1));
      }
      queue.Stop(consumers);
      for (auto& t : threads) t.join();
      int wrong = 0;
      for (auto& t : taken) wrong += t.load() != 1;
      CHECK_EQ(wrong, 0);
    }
  }
}

}  // namespace
}  // namespace envfleet
