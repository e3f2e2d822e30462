// cpp/core/run_segments.h: every run of a sweep is claimed exactly once, homes first from the
// front and others from the back, and a claim naming an earlier sweep gets nothing.
#include "core/run_segments.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "check.h"

namespace envfleet {
namespace {

TEST(RunSegments, AHomeIsClaimedFromTheFrontAndStolenFromTheBack) {
  RunSegments runs(3);
  const uint32_t gen = runs.Start(/*runs=*/9, /*segments=*/3);  // homes [0,3) [3,6) [6,9)
  CHECK_EQ(runs.Claim(gen, 1), 3);
  CHECK_EQ(runs.Claim(gen, 1), 4);
  CHECK_EQ(runs.Claim(gen, 1), 5);
  CHECK_EQ(runs.Claim(gen, 1), 8);   // home empty: the next segment's back
  CHECK_EQ(runs.Claim(gen, -1), 2);  // no home: steals from the first non-empty back
  CHECK_EQ(runs.Claim(gen, 0), 0);
  CHECK_EQ(runs.Claim(gen, 0), 1);
  CHECK_EQ(runs.Claim(gen, 0), 7);
  CHECK_EQ(runs.Claim(gen, 2), 6);
  CHECK_EQ(runs.Claim(gen, 0), -1);
  CHECK_EQ(runs.Claim(gen, 2), -1);
}

TEST(RunSegments, FewerRunsThanSegmentsLeaveSomeHomesEmpty) {
  RunSegments runs(4);
  const uint32_t gen = runs.Start(2, 4);
  std::vector<int64_t> got;
  for (int home = 3; home >= 0; --home) {
    for (int64_t run; (run = runs.Claim(gen, home)) >= 0;) got.push_back(run);
  }
  std::sort(got.begin(), got.end());
  CHECK_EQ(got, (std::vector<int64_t>{0, 1}));
}

TEST(RunSegments, AClaimOfAnEarlierSweepGetsNothing) {
  RunSegments runs(2);
  const uint32_t first = runs.Start(4, 2);
  while (runs.Claim(first, 0) >= 0) {
  }
  const uint32_t second = runs.Start(4, 2);
  CHECK(second != first);
  CHECK_EQ(runs.Claim(first, 0), -1);  // a stale ticket
  CHECK_EQ(runs.Claim(first, 1), -1);
  CHECK_EQ(runs.Claim(second, 1), 2);
}

TEST(RunSegments, ConcurrentThreadsClaimEveryRunExactlyOnce) {
  constexpr int kThreads = 4;
  constexpr int64_t kRuns = 37;  // not a multiple of the segments
  RunSegments runs(kThreads);
  for (int sweep = 0; sweep < 200; ++sweep) {
    const uint32_t gen = runs.Start(kRuns, kThreads);
    std::vector<std::atomic<int>> claimed(kRuns);
    for (auto& c : claimed) c.store(0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      // One thread has no home, as a worker beyond the sweep's segments.
      threads.emplace_back([&, t] {
        const int home = t == kThreads - 1 ? -1 : t;
        for (int64_t run; (run = runs.Claim(gen, home)) >= 0;) claimed[run].fetch_add(1);
      });
    }
    for (auto& thread : threads) thread.join();
    for (int64_t r = 0; r < kRuns; ++r) CHECK_EQ(claimed[r].load(), 1);
  }
}

}  // namespace
}  // namespace envfleet
