// How many worker threads join a sweep (one sync step or reset of many envs), from what the
// pool knows: its threads, the cores it may use, who steps, and the measured cost of a step.
#ifndef ENVFLEET_CORE_SWEEP_PLAN_H_
#define ENVFLEET_CORE_SWEEP_PLAN_H_

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace envfleet {

// Handing runs of envs to another core (its wake-up or poll, the envs' state crossing caches,
// the block's completion) costs microseconds per batch. A worker joins a sweep only for a
// share of at least this much work: one worker per kMinSharedWork of the sweep's measured
// cost, never more than the cores left. So a sweep of tiny envs takes as many threads as it
// can keep busy, not every thread the pool has (CartPole-v1, 4096 envs of ~15 ns: about 3
// workers, not 15, on a 16-core machine); on two cores (one core left) this is the same rule
// as "share when the sweep costs over kMinSharedWork".
inline constexpr std::chrono::nanoseconds kMinSharedWork{20'000};

struct SweepPlanInputs {
  int64_t num_threads;      // the pool's workers
  int64_t usable_cores;     // cores the process may run on
  bool caller_helps_queue;  // the waiting caller takes queued envs too (not workers_only)
  bool caller_steps;        // the caller steps this sweep itself (a sync step, not a send)
  int64_t count;            // envs in the sweep
  double step_ns;           // measured cost of one env step; negative while unknown
};

inline int64_t SweepWorkers(const SweepPlanInputs& in) {
  if (!in.caller_helps_queue) return in.num_threads;  // only workers step: all of them
  // Workers beyond the cores left to them would only take turns on those cores, and one
  // descheduled while it holds a run stalls the whole batch.
  const int64_t cores_left = std::max<int64_t>(in.usable_cores - 1, 0);
  // A send() leaves the caller's core to it (as Python's; its recv() helps): at least one
  // worker, as many as the cores left.
  if (!in.caller_steps) return std::min(in.num_threads, std::max<int64_t>(cores_left, 1));
  const int64_t most = std::min(in.num_threads, cores_left);
  if (in.step_ns < 0) return most;  // nothing measured yet: as many as can run
  const double work_ns = static_cast<double>(in.count) * in.step_ns;
  const double shares = work_ns / static_cast<double>(kMinSharedWork.count());
  if (shares <= 1.0) return 0;  // the caller alone: cheaper than waking anyone
  return std::min(most, std::max<int64_t>(static_cast<int64_t>(shares), 1));
}

}  // namespace envfleet

#endif  // ENVFLEET_CORE_SWEEP_PLAN_H_
