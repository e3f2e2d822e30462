// cpp/core/sweep_plan.h: a sweep takes one worker per kMinSharedWork of measured work, within
// the cores left, so that adding threads never spreads tiny envs thinner than pays.
#include "core/sweep_plan.h"

#include "check.h"

namespace envfleet {
namespace {

SweepPlanInputs Sync(int64_t threads, int64_t cores, int64_t count, double step_ns) {
  return {threads, cores, /*caller_helps_queue=*/true, /*caller_steps=*/true, count, step_ns};
}

TEST(SweepPlan, TinyEnvsTakeOnlyTheWorkersTheirWorkPays) {
  // CartPole-like: 15 ns a step. 4096 envs are 61 us of work: 3 workers beside the caller.
  CHECK_EQ(SweepWorkers(Sync(16, 16, 4096, 15.0)), 3);
  CHECK_EQ(SweepWorkers(Sync(16, 16, 65536, 15.0)), 15);  // 983 us: every core left
  CHECK_EQ(SweepWorkers(Sync(16, 16, 1024, 15.0)), 0);    // 15 us: the caller alone
}

TEST(SweepPlan, MoreThreadsNeverMeanFewerWorkers) {
  for (int64_t count : {16, 256, 4096, 65536}) {
    for (double ns : {10.0, 1'000.0, 100'000.0}) {
      int64_t previous = 0;
      for (int64_t threads = 1; threads <= 32; ++threads) {
        const int64_t workers = SweepWorkers(Sync(threads, 16, count, ns));
        CHECK(workers >= previous);
        CHECK(workers <= threads && workers <= 15);
        previous = workers;
      }
    }
  }
}

TEST(SweepPlan, TwoCoresKeepTheShareOverTheThresholdRule) {
  // One core left: a worker joins exactly when the sweep costs over kMinSharedWork.
  const double threshold_ns = static_cast<double>(kMinSharedWork.count());
  CHECK_EQ(SweepWorkers(Sync(2, 2, 100, threshold_ns / 100 * 0.99)), 0);
  CHECK_EQ(SweepWorkers(Sync(2, 2, 100, threshold_ns / 100 * 1.01)), 1);
  CHECK_EQ(SweepWorkers(Sync(2, 2, 100, threshold_ns * 50)), 1);
}

TEST(SweepPlan, UnknownCostSendsAndWorkerOnlyPoolsUseWhatTheyAlwaysDid) {
  CHECK_EQ(SweepWorkers(Sync(8, 16, 10, -1.0)), 8);  // nothing measured: as many as can run
  CHECK_EQ(SweepWorkers(Sync(32, 16, 10, -1.0)), 15);
  SweepPlanInputs send = Sync(8, 1, 10, 5.0);
  send.caller_steps = false;
  CHECK_EQ(SweepWorkers(send), 1);  // a send always has a worker, even with no core left
  SweepPlanInputs workers_only = Sync(8, 2, 10, 5.0);
  workers_only.caller_helps_queue = false;
  CHECK_EQ(SweepWorkers(workers_only), 8);
}

}  // namespace
}  // namespace envfleet
