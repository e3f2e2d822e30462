// The pool: N environments, a queue of actions, a fixed set of workers, and output blocks.
//
//   send(actions, env_ids)        Python thread, GIL held
//     checks every id and action, copies each action into its env's action slot, queues the
//     envs for the workers, returns at once. Envs sent while none is in flight form a sweep
//     (below); envs sent while others are in flight go into the ActionQueue one item each.
//   worker (or the caller while it waits; no GIL)
//     takes work; resets an env if its episode is over (NEXT_STEP autoreset) or a reset
//     was asked for, else steps it; claims the next output row and writes reward, flags, id,
//     elapsed steps, observation and info into it. The writer that fills a block posts it.
//   recv()                        GIL released while waiting
//     steps queued envs itself while the head block is incomplete, then waits for it; hands
//     the block to Python (NumPy arrays view it, no copy) and marks its envs idle.
//   render(env_ids)               GIL released while waiting
//     queues one render item per (idle) env; the workers draw each env into its frame of the
//     caller's batch; the caller only waits (Render() below says why).
//
// Sync order: a send made while no env is in flight fixes each result's row to the env's
// position in that send, so sync mode (batch_size == num_envs) returns results in send order.
// Otherwise rows go to whichever env finishes first (async mode).
//
// Sweeps: a send made while no env is in flight (every sync step, and an async pool's first
// send) is cut into runs of consecutive envs of the send, which the workers and the waiting
// caller claim one run at a time from a shared counter. A run's rows are known up front, so
// the per-env cost is the step and its writes: no queue item, no atomic operation, no row
// claim per env. The counter balances the threads dynamically (a thread that starts late,
// or is descheduled, simply claims fewer runs), which fixed per-thread chunks would not.
#ifndef ENVFLEET_CORE_POOL_H_
#define ENVFLEET_CORE_POOL_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/render2d/smoothscale.h"
#include "core/action_queue.h"
#include "core/env.h"
#include "core/output_blocks.h"
#include "core/run_segments.h"
#include "core/spec.h"
#include "core/sweep_plan.h"
#include "core/thread_pool.h"

namespace envfleet {

enum class AutoresetMode : uint8_t { kNextStep, kSameStep, kDisabled };

struct PoolOptions {
  int num_envs = 1;
  int batch_size = 1;
  int num_threads = 1;
  int thread_affinity_offset = -1;
  int64_t max_episode_steps = 0;  // 0: no time limit
  AutoresetMode autoreset_mode = AutoresetMode::kNextStep;
  std::vector<uint64_t> seeds;  // one per env
};

using EnvFactory = std::function<std::unique_ptr<Env>(const Config& config, uint64_t seed)>;

// Indices of the keys every block starts with; the env's own keys follow.
enum CommonKey : size_t { kReward, kTerminated, kTruncated, kEnvId, kElapsedStep, kNumCommon };

class Pool {
 public:
  // The pool's per-env loops, compiled for one env class. MakeEnvType<E> (core/registry.h)
  // hands the pool E's loops, in which E's Step, Write and Reset are direct calls, and an
  // env class with batched calls (FunctionEnv: Python envs) is stepped a group at a time
  // (StepRun). Kernels::Of<Env>() calls through the vtable and serves any env class.
  // Measured with benchmarks/pool_loop.cc (CartPole-v1, 2048 envs, one core, interleaved):
  // CartPole's loops 55.7M steps/s against 52.3M for the vtable's; forcing CartPole's Step
  // inline into them made them no faster than the vtable's (52.2M), so nothing is forced.
  // Rows a thread has written into a block and not yet counted in block->written. A thread
  // that steps several runs of a sweep counts its rows once per block, not once per run:
  // the count is the one cache line every stepping thread writes, and with a count per run
  // it crossed cores dozens of times per batch.
  struct Completion {
    Block* block = nullptr;
    int64_t rows = 0;
  };

  struct Kernels {
    int64_t (Pool::*process_run)(int64_t run, Completion* completion);
    void (Pool::*process_items)(const WorkItem* items, int32_t count);
    void (Pool::*prepare)();  // runs once the envs are built

    template <typename E>
    static Kernels Of() {
      static_assert(std::is_base_of_v<Env, E>);
      return {&Pool::ProcessRun<E>, &Pool::ProcessItems<E>, &Pool::PrepareBatches<E>};
    }
  };

  // Every env is built from `config`.
  Pool(const EnvSpec& spec, const Config& config, const EnvFactory& factory, PoolOptions options,
       Kernels kernels = Kernels::Of<Env>())
      : Pool(spec, std::vector<Config>{config}, factory, std::move(options), kernels) {}

  // Env i is built from configs[i] (one config per env), or every env from configs[0] (one
  // config). The options may differ between envs, their spec may not: each env writes into
  // rows laid out by `spec` (the bindings check that every config gives that spec).
  Pool(const EnvSpec& spec, const std::vector<Config>& configs, const EnvFactory& factory,
       PoolOptions options, Kernels kernels = Kernels::Of<Env>())
      : spec_(spec),
        kernels_(kernels),
        options_(Checked(std::move(options), configs.size())),
        queue_(QueueCapacity(options_), HomeCapacities(spec_, options_)),
        runs_(options_.num_threads + 1) {
    const int n = options_.num_envs;
    const int b = options_.batch_size;
    const auto config_of = [&](int i) -> const Config& {
      return configs.size() == 1 ? configs[0] : configs[static_cast<size_t>(i)];
    };
    envs_.resize(n);
    in_flight_.assign(static_cast<size_t>(n), 0);
    sweep_.ids.resize(static_cast<size_t>(n));
    action_bytes_ = spec_.action.NumBytes();
    actions_.assign(static_cast<size_t>(n) * action_bytes_, 0);
    // Env i gets seed i and config i whichever thread builds it, so the order of construction
    // is moot. The first env is built here and timed: only envs that take a while to build
    // (ALE ROM loads, MuJoCo models) are worth starting threads for.
    const auto start = std::chrono::steady_clock::now();
    envs_[0].env = factory(config_of(0), options_.seeds[0]);
    const bool slow = std::chrono::steady_clock::now() - start > std::chrono::microseconds(50);
    ParallelFor(n - 1, slow ? options_.num_threads : 1, [&](int i) {
      envs_[i + 1].env = factory(config_of(i + 1), options_.seeds[i + 1]);
    });

    (this->*kernels_.prepare)();

    arena_ = new BlockArena(BlockLayout(OutputKeys(), b));
    row_bytes_ = arena_->layout().row_bytes.data();
    step_limit_ = options_.max_episode_steps > 0 ? options_.max_episode_steps : INT64_MAX;
    num_env_keys_ = spec_.obs.size() + spec_.info.size();
    ring_size_ = (n + b - 1) / b + 2;
    ring_ = std::make_unique<std::atomic<Block*>[]>(static_cast<size_t>(ring_size_));
    for (int64_t i = 0; i < ring_size_; ++i) {
      Block* block = arena_->Acquire();
      block->Prepare(0);
      ring_[i].store(block, std::memory_order_relaxed);
    }
    usable_cores_ = UsableCores();
    // The workers and the waiting caller share the queue, unless the caller must not step.
    // (Even where the workers fill every core: measured, a caller that only waited made
    // CartPole's async batches 14% slower with two workers on two cores.)
    caller_helps_queue_ = !spec_.workers_only;
    spare_workers_ = SpareWorkers(spec_, options_);
    takers_ = QueueTakers(spec_, options_);
    workers_ = std::make_unique<ThreadPool>(options_.num_threads, options_.thread_affinity_offset,
                                            [this](int worker) { WorkerLoop(worker); });
  }

  ~Pool() {
    Close();
    arena_->Release();
  }

  // Items the queue may hold: one per env in flight, the workers' exit items, and sweep
  // tickets (a few per worker; a ticket not yet taken when its sweep ends only wastes a cell).
  static size_t QueueCapacity(const PoolOptions& options) {
    return static_cast<size_t>(options.num_envs) + 4 * static_cast<size_t>(options.num_threads) + 1;
  }

  // The queue's home lanes (see ActionQueue): one per thread that takes queued envs (the
  // workers, and the waiting caller unless the env type is workers_only), no more than the
  // cores, each a contiguous range of env ids. Workers beyond that share a lane.
  static std::vector<size_t> HomeCapacities(const EnvSpec& spec, const PoolOptions& options) {
    const int64_t homes = std::max(1, std::min(QueueTakers(spec, options), UsableCores()));
    std::vector<size_t> capacities(static_cast<size_t>(homes), 0);
    for (int64_t env = 0; env < options.num_envs; ++env) {
      ++capacities[static_cast<size_t>(HomeOf(env, homes, options.num_envs))];
    }
    return capacities;
  }
  // Workers beyond the cores the stepping caller leaves (the last ones by index): they take no
  // queued steps (see SpareLoop).
  static int SpareWorkers(const EnvSpec& spec, const PoolOptions& options) {
    if (spec.workers_only) return 0;
    return std::max(0, options.num_threads - std::max(UsableCores() - 1, 0));
  }
  // The threads that take queued steps: the workers that are not spare, and the waiting caller
  // unless the env type is workers_only.
  static int QueueTakers(const EnvSpec& spec, const PoolOptions& options) {
    return options.num_threads - SpareWorkers(spec, options) + (spec.workers_only ? 0 : 1);
  }
  static int HomeOf(int64_t env_id, int64_t homes, int64_t num_envs) {
    return static_cast<int>(env_id * homes / num_envs);
  }

  // The bindings check every option with a message naming it first; this guard keeps a C++
  // caller's mistake an exception rather than out-of-bounds access.
  static PoolOptions Checked(PoolOptions options, size_t num_configs) {
    if (options.num_envs < 1) throw std::invalid_argument("Pool: num_envs must be >= 1");
    if (num_configs != 1 && num_configs != static_cast<size_t>(options.num_envs)) {
      throw std::invalid_argument("Pool: need one config, or one per env");
    }
    if (options.batch_size < 1 || options.batch_size > options.num_envs) {
      throw std::invalid_argument("Pool: batch_size must be in [1, num_envs]");
    }
    if (options.num_threads < 1) throw std::invalid_argument("Pool: num_threads must be >= 1");
    if (options.seeds.size() != static_cast<size_t>(options.num_envs)) {
      throw std::invalid_argument("Pool: need one seed per env");
    }
    return options;
  }

  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // ---- Python thread (GIL held) ----------------------------------------------------------

  const EnvSpec& spec() const { return spec_; }
  const PoolOptions& options() const { return options_; }
  const BlockLayout& layout() const { return arena_->layout(); }
  BlockArena* arena() const { return arena_; }
  bool closed() const { return closed_; }
  int64_t pending() const { return pending_; }
  bool in_flight(int env_id) const { return in_flight_[env_id] != 0; }
  // The episode of this env has ended and its next step will start a new one.
  bool episode_over(int env_id) const { return envs_[env_id].needs_reset; }
  // Restarts an idle env's random stream, as Gymnasium's reset(seed=...) does.
  void Reseed(int env_id, uint64_t seed) { envs_[env_id].env->Seed(seed); }
  void* action_slot(int env_id) { return actions_.data() + env_id * action_bytes_; }
  size_t action_bytes() const { return action_bytes_; }

  // An env, for tests and for the binding's checks; only while it is idle.
  Env& env(int env_id) { return *envs_[env_id].env; }
  // The env has been reset at least once, so it has a state to draw.
  bool started(int env_id) const { return envs_[env_id].started; }

  // Results the head block still needs before recv() can return it.
  int64_t HeadNeeds() const { return options_.batch_size - Head()->first_row; }

  // Whether a step/reset of `count` more envs can complete the head block (with nothing in
  // flight it is sealed to exactly those envs, so it always can).
  bool CanFillHead(size_t count) const {
    return pending_ == 0 || pending_ + static_cast<int64_t>(count) >= HeadNeeds();
  }

  // Queues envs whose actions are already in their action slots. `seal` (only allowed with
  // nothing in flight) makes the head block hold exactly these results, so a partial
  // step/reset returns a batch of just those envs. `caller_waits`: the caller is about to
  // Wait() for these results (a step or reset, not a send) and steps some of them itself
  // there, unless the env type is workers_only.
  void Enqueue(const int32_t* env_ids, size_t count, bool reset, bool seal, bool caller_waits) {
    const int64_t b = options_.batch_size;
    const bool caller_steps = caller_waits && !spec_.workers_only;
    if (count == in_flight_.size()) {  // every env (ids are distinct): the sync loop's case
      std::memset(in_flight_.data(), 1, count);
    } else {
      for (size_t i = 0; i < count; ++i) in_flight_[env_ids[i]] = 1;
    }
    if (pending_ == 0) {
      // Nothing in flight: fix the rows in send order (sync order), and sweep.
      int64_t seq = next_seq_.load(std::memory_order_relaxed);
      if (seal && static_cast<int64_t>(count) < b) {
        int64_t skip = b - static_cast<int64_t>(count);
        Head()->Prepare(skip);
        seq += skip;
      }
      next_seq_.store(seq + static_cast<int64_t>(count), std::memory_order_relaxed);
      pending_ += static_cast<int64_t>(count);
      StartSweep(env_ids, static_cast<int64_t>(count), reset, seq, caller_steps);
      return;
    }
    const int homes = queue_.num_homes();
    for (size_t i = 0; i < count; ++i) {
      queue_.Push({env_ids[i], reset, -1}, HomeOf(env_ids[i], homes, options_.num_envs));
    }
    pending_ += static_cast<int64_t>(count);
    // The caller steps about its fair share itself rather than hand everything to the
    // workers: with one env this removes the thread hand-off entirely.
    const int64_t threads = options_.num_threads - spare_workers_;
    const int64_t reserve = caller_steps && caller_helps_queue_
                                ? (static_cast<int64_t>(count) + threads) / (threads + 1)
                                : 0;
    reserved_ += reserve;
    queue_.Announce(static_cast<int64_t>(count) - reserve);
  }

  // ---- GIL released -----------------------------------------------------------------------

  // Steps the envs reserved for the caller, helps with announced ones while the head block is
  // incomplete, then waits for it. Returns the head block, complete.
  Block* Wait() {
    return Wait([] { return false; });
  }

  // Wait(), asking `interrupted()` at least every kPollInterval (between chunks of the
  // caller's own work, and while it sleeps) whether to give up: the binding uses it to let
  // Python handle Ctrl-C. On true it hands the envs it had reserved to the workers and
  // returns nullptr; the batch completes without the caller, and a later Wait() returns it.
  template <typename Interrupted>
  Block* Wait(Interrupted&& interrupted) {
    using Clock = std::chrono::steady_clock;
    Clock::time_point last = Clock::now();
    Clock::time_point next_poll = last + kPollInterval;
    // Items per chunk the caller takes: it starts with one and doubles while chunks are
    // quick (fast envs end up in whole chunks, where one clock read per chunk is all the
    // asking costs) and drops back to one after a slow chunk (heavy envs), so that it still
    // asks about every kPollInterval. (A sweep's runs are short by construction: see
    // RunLength.)
    int32_t most = 1;
    // Whether it is time to ask, and the answer.
    auto poll = [&] {
      const Clock::time_point now = Clock::now();
      if (now - last > kSlowChunk) {
        most = 1;
      } else if (most < ActionQueue::kMaxChunk) {
        most *= 2;
      }
      last = now;
      if (now < next_poll) return false;
      next_poll = now + kPollInterval;
      return static_cast<bool>(interrupted());
    };
    if (!spec_.workers_only) {
      // The current sweep's unclaimed runs first: they are the head block's rows. The caller's
      // home is segment 0 when the sweep counted on it; otherwise it only steals.
      const int home = sweep_.caller_steps ? 0 : -1;
      Completion completion;
      for (int64_t run; (run = runs_.Claim(sweep_.gen, home)) >= 0;) {
        const Clock::time_point begun = last;
        const int64_t envs = (this->*kernels_.process_run)(run, &completion);
        const bool stop = poll();  // reads the clock into `last`
        LearnStepCost(last - begun, envs);
        if (stop) {
          Flush(&completion);
          // The runs left go to every worker (the sweep may have given them too few tickets:
          // it counted on the caller).
          HandOutTickets(options_.num_threads, /*home_offset=*/0);
          return nullptr;
        }
      }
      Flush(&completion);
    }
    WorkItem items[ActionQueue::kMaxChunk];
    while (reserved_ > 0) {
      const int32_t count = static_cast<int32_t>(reserved_ < most ? reserved_ : most);
      queue_.TakeUnannounced(items, count);
      ProcessChunk(items, count);
      reserved_ -= count;
      if (poll()) {
        queue_.Announce(reserved_);
        reserved_ = 0;
        return nullptr;
      }
    }
    Block* head = Head();
    while (!head->ready.TryWait()) {
      if (caller_helps_queue_) {
        if (const int32_t count = queue_.TryTake(items, takers_, most)) {
          ProcessChunk(items, count);
          if (poll()) return nullptr;
          continue;
        }
      }
      // Nothing left to help with: sleep until the block is complete, waking to ask.
      while (!head->ready.WaitSome(1, 1, next_poll)) {
        if (poll()) return nullptr;
      }
      break;
    }
    return head;
  }

  // How often a waiting caller asks whether it was interrupted: Ctrl-C takes effect within
  // this (plus one chunk of envs the caller is stepping itself).
  static constexpr std::chrono::milliseconds kPollInterval{20};
  static constexpr std::chrono::milliseconds kSlowChunk{2};

  // Draws envs `env_ids` (idle, each started and listed once) into `rgb`: `count` frames of
  // height x width x 3 bytes, frame i from env_ids[i]. The workers draw them in parallel and
  // the caller only waits: unlike stepping, it does not help, because a renderer may keep
  // per-thread state (a GL context) that must end with the worker threads, never live on in
  // the Python thread. Returns the first env's error message, or "" when all frames are drawn.
  std::string Render(const int32_t* env_ids, size_t count, int camera_id, int width, int height,
                     uint8_t* rgb) {
    render_ = {camera_id, width, height, rgb, static_cast<size_t>(width) * height * 3};
    render_failed_.store(false, std::memory_order_relaxed);
    render_error_.clear();
    render_left_.store(static_cast<int64_t>(count), std::memory_order_relaxed);
    for (size_t i = 0; i < count; ++i) {
      queue_.Push({env_ids[i], false, static_cast<int64_t>(i), /*render=*/true});
    }
    queue_.Announce(static_cast<int64_t>(count));
    queue_.WakeSpares(spare_workers_);
    render_done_.Wait();
    return render_error_;
  }

  // ---- Python thread (GIL held) ----------------------------------------------------------

  // Takes the completed head block out of the ring, marks its envs idle and replaces it with
  // a fresh block. The caller then either leases the block to Python (arena()->AddRef(), and
  // BlockArena::EndLease when the last array dies) or, if block->failed, Discard()s it.
  Block* Deliver() {
    std::atomic<Block*>& slot = ring_[head_ % ring_size_];
    Block* block = slot.load(std::memory_order_relaxed);
    Block* fresh = arena_->Acquire();
    fresh->Prepare(0);
    // Release: a worker that finds `fresh` here (Claim) must see it prepared, and every use of
    // this block before it was recycled (its last rows, Python's reads) as done.
    slot.store(fresh, std::memory_order_release);
    ++head_;
    const int32_t* ids = reinterpret_cast<const int32_t*>(block->key_bases[kEnvId]);
    if (block->first_row == 0 && options_.batch_size == options_.num_envs) {
      std::memset(in_flight_.data(), 0, in_flight_.size());  // a sync batch holds every env
    } else {
      for (int64_t row = block->first_row; row < options_.batch_size; ++row)
        in_flight_[ids[row]] = 0;
    }
    pending_ -= options_.batch_size - block->first_row;
    return block;
  }

  // Returns a delivered block whose results are dropped (an env failed producing it).
  void Discard(Block* block) { arena_->Recycle(block); }

  // Stops the workers after they finish what is queued, then destroys the envs: an env may
  // hold resources beyond memory (ViZDoom's engine processes and shared memory), which close()
  // must release at once, not when Python frees the pool. Idempotent.
  void Close() {
    if (closed_) return;
    closed_ = true;
    queue_.Stop(workers_->size());
    workers_->Join();
    for (EnvRecord& record : envs_) record.env.reset();
  }

 private:
  struct EnvRecord {
    std::unique_ptr<Env> env;
    int64_t elapsed = 0;
    bool needs_reset = true;  // written by workers, read by Python only once delivered
    // The episode that needs_reset ended by the env's termination alone (no time limit): its
    // autoreset goes through Env::ResetAfterTermination, which may continue its clock.
    bool terminated_only = false;
    bool started = false;  // reset at least once; like needs_reset, read once delivered
  };

  // The frames Render() asked for; workers read it only while its items are queued.
  struct RenderRequest {
    int camera_id = -1;
    int width = 0;
    int height = 0;
    uint8_t* rgb = nullptr;
    size_t frame_bytes = 0;
  };

  std::vector<ArraySpec> OutputKeys() const {
    std::vector<ArraySpec> keys = {
        {"reward", DType::kFloat64, {}, {}, {}, false},
        {"terminated", DType::kBool, {}, {}, {}, false},
        {"truncated", DType::kBool, {}, {}, {}, false},
        {"env_id", DType::kInt32, {}, {}, {}, false},
        {"elapsed_step", DType::kInt32, {}, {}, {}, false},
    };
    for (const auto& key : spec_.obs) keys.push_back(key);
    for (const auto& key : spec_.info) keys.push_back(key);
    if (options_.autoreset_mode == AutoresetMode::kSameStep) {
      for (const auto& key : spec_.obs) keys.push_back(Renamed(key, "final_obs:"));
      for (const auto& key : spec_.info) keys.push_back(Renamed(key, "final_info:"));
    }
    return keys;
  }
  static ArraySpec Renamed(ArraySpec key, const std::string& prefix) {
    key.name = prefix + key.name;
    return key;
  }

  Block* Head() const { return ring_[head_ % ring_size_].load(std::memory_order_relaxed); }

  void WorkerLoop(int32_t worker) {
    WorkItem items[ActionQueue::kMaxChunk];
    ActionQueue::SpinWindow window;
    // Workers beyond the cores the stepping caller leaves (sweeps use no more of them) do not
    // poll between batches: polling, they took those cores from the threads that step
    // (CartPole-v1, 1024 envs, sync: two workers on two cores 33.6M steps/s, one 50.4M), and
    // taking queued steps they only took turns on them too: see SpareLoop.
    const bool spare = worker >= options_.num_threads - spare_workers_;
    if (spare && SpareLoop(items)) return;
    // Its home lane: the caller's is 0 when it takes queued envs.
    const int home = (worker + (caller_helps_queue_ ? 1 : 0)) % queue_.num_homes();
    while (true) {
      const int32_t count = queue_.Take(items, takers_, spare ? nullptr : &window, home);
      if (items[count - 1].env_id < 0) {  // the exit item comes alone (see ActionQueue::Take)
        return;
      }
      ProcessChunk(items, count);
    }
  }

  // A spare worker: the caller and the other workers fill the cores with queued steps, and a
  // spare that took a share too only took turns on those cores. Woken at every send() (the
  // announcements wake every sleeper), it made CartPole-v1 async 4096/2048 0.74x as fast with
  // two workers as with one, and HalfCheetah/Ant/Pong 0.95-0.98x; it did not help either where
  // the caller slept between batches (Ant-v5 128/64 with 2 ms between recv() and send():
  // 12.4k steps/s against 12.8k with the spare kept out). So it sleeps on its own gate, woken
  // for render items (drawn by workers only: a second one halves the wait) and at Stop; once
  // awake it takes control items first and whatever else is announced. Returns true once it
  // took its exit item; false when the pool stops (it then takes its exit in WorkerLoop).
  bool SpareLoop(WorkItem* items) {
    while (!queue_.stopping()) {
      queue_.WaitSpareGate();
      while (const int32_t count = queue_.TryTake(items, takers_, ActionQueue::kMaxChunk,
                                                  ActionQueue::kControlFirst)) {
        if (items[count - 1].env_id < 0) return true;  // alone (see ActionQueue::PopInto)
        ProcessChunk(items, count);
      }
    }
    return false;
  }

  // Draws one frame of the current Render() call. Render items are queued only while the
  // caller waits in Render(), so only workers take them (the caller's Wait() never runs then).
  void RenderItem(const WorkItem& item) {
    try {
      uint8_t* frame = render_.rgb + static_cast<size_t>(item.seq) * render_.frame_bytes;
      const RenderSpec& own = spec_.render;
      if (own.resizable || (render_.width == own.width && render_.height == own.height)) {
        envs_[item.env_id].env->Render(render_.camera_id, render_.width, render_.height, frame);
      } else {
        // An env whose reference draws one size only (a pygame surface, ALE's screen) and a
        // smaller size asked for (EnvPool resizes such frames too): the reference's frame,
        // shrunk as pygame.transform.smoothscale shrinks it. Per worker thread, reused.
        thread_local std::vector<uint8_t> native, scratch;
        native.resize(static_cast<size_t>(own.width) * own.height * 3);
        envs_[item.env_id].env->Render(render_.camera_id, own.width, own.height, native.data());
        render2d::SmoothScaleRgb(native.data(), own.width, own.height, frame, render_.width,
                                 render_.height, &scratch);
      }
    } catch (const std::exception& e) {
      RenderFailed(item.env_id, e.what());
    } catch (...) {
      RenderFailed(item.env_id, "unknown C++ exception");
    }
    if (render_left_.fetch_sub(1, std::memory_order_acq_rel) == 1) render_done_.Post();
  }

  void RenderFailed(int32_t env_id, const char* what) {
    bool expected = false;
    if (render_failed_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
      render_error_ = "env " + std::to_string(env_id) + " failed to render: " + what;
    }
  }

  // Runs a chunk of items: render items and sweep tickets one by one, runs of queued steps
  // and resets together (ProcessItems).
  void ProcessChunk(const WorkItem* items, int32_t count) {
    for (int32_t i = 0; i < count;) {
      if (items[i].render) {
        RenderItem(items[i++]);
      } else if (items[i].sweep) {
        JoinSweep(items[i++]);
      } else {
        int32_t end = i + 1;
        while (end < count && !items[end].render && !items[end].sweep) ++end;
        (this->*kernels_.process_items)(items + i, end - i);
        i = end;
      }
    }
  }

  // Steps (or resets) queued envs, then claims their rows with one atomic operation and
  // writes them. Async mode's rows go to the envs that finish first, claimed from a counter
  // every stepping thread shares: one claim per env made that counter's cache line cross
  // cores for every env, the most of a tiny env's step (CartPole-v1, 4096 envs in batches of
  // 2048: 66% of the process's time on that instruction, 8.6M steps/s).
  template <typename E>
  void ProcessItems(const WorkItem* items, int32_t count) {
    if constexpr (requires { E::StepMany; }) {
      if (options_.autoreset_mode != AutoresetMode::kSameStep) {
        ProcessItemsBatched<E>(items, count);
        return;
      }
    }
    Outcome outcomes[ActionQueue::kMaxChunk];
    std::vector<std::string> errors;  // of the items that failed, in order (rare)
    for (int32_t i = 0; i < count; ++i) {
      try {
        outcomes[i] = Advance<E>(items[i].env_id, items[i].reset);
      } catch (const std::exception& e) {
        errors.emplace_back(e.what());
        outcomes[i].failed = true;
      } catch (...) {
        errors.emplace_back("unknown C++ exception");
        outcomes[i].failed = true;
      }
    }
    size_t next_error = 0;
    const int64_t b = options_.batch_size;
    int64_t seq = next_seq_.fetch_add(count, std::memory_order_relaxed);
    Block* block = BlockOf(seq);
    int64_t row = seq % b;
    int64_t rows = 0;
    for (int32_t i = 0; i < count; ++i, ++seq) {
      if (row == b) {  // the items go on in the next block
        Complete(block, rows);
        block = BlockOf(seq);
        row = 0;
        rows = 0;
      }
      Block* written = block;
      int64_t at = row;
      if (outcomes[i].failed) {
        Fail(items[i].env_id, seq, &written, &at, errors[next_error++].c_str());
      } else {
        try {
          Record<E>(items[i].env_id, outcomes[i], block, row);
        } catch (const std::exception& e) {
          Fail(items[i].env_id, seq, &written, &at, e.what());
        } catch (...) {
          Fail(items[i].env_id, seq, &written, &at, "unknown C++ exception");
        }
      }
      ++row;
      ++rows;
    }
    Complete(block, rows);
  }

  // ProcessItems() for an env class with batched calls (FunctionEnv): the chunk's envs step
  // in one call (those to reset skipped) and reset in one call, as StepRun's groups do; once
  // their rows are claimed, they are observed in one call per block.
  template <typename E>
  void ProcessItemsBatched(const WorkItem* items, int32_t count) {
    static_assert(ActionQueue::kMaxChunk <= kMaxGroup);
    EnvRecord* const records = envs_.data();
    const typename E::Batch calls = static_cast<const E&>(*records[items[0].env_id].env).BatchOf();
    void* states[ActionQueue::kMaxChunk];
    const void* actions[ActionQueue::kMaxChunk];
    void* rngs[ActionQueue::kMaxChunk];
    const void* options[ActionQueue::kMaxChunk];
    uint8_t resetting[ActionQueue::kMaxChunk];
    for (int32_t k = 0; k < count; ++k) {
      const int32_t id = items[k].env_id;
      states[k] = batch_.states[id];
      actions[k] = batch_.actions[id];
      rngs[k] = batch_.rngs[id];
      options[k] = batch_.options[id];
      resetting[k] = items[k].reset || records[id].needs_reset;
    }
    // The rows are not claimed yet: failures are kept until they are.
    std::vector<std::pair<int64_t, std::string>> errors;  // of the items that failed (rare)
    uint64_t failed = 0;                                  // bit k: items[k]
    const auto fail = [&](int64_t k, std::string error) {
      errors.emplace_back(k, std::move(error));
      failed |= uint64_t{1} << k;
    };
    double rewards[ActionQueue::kMaxChunk];
    uint8_t terminated[ActionQueue::kMaxChunk];
    AdvanceMany<E>(calls, states, actions, rngs, options, resetting, count, rewards, terminated,
                   fail);
    // The rows, claimed together, then each block's stretch recorded and observed.
    const int64_t b = options_.batch_size;
    const int64_t first_seq = next_seq_.fetch_add(count, std::memory_order_relaxed);
    for (int32_t k = 0; k < count;) {
      const int64_t seq = first_seq + k;
      char* const* bases = BlockOf(seq)->key_bases.data();
      const int64_t first_row = seq % b;
      const int32_t end = static_cast<int32_t>(std::min<int64_t>(count, k + (b - first_row)));
      const CommonColumns columns(bases, first_row);  // items[j]'s row: columns.x[j - k]
      for (int32_t j = k; j < end; ++j) {
        if ((failed >> j) & 1) continue;
        RecordBatched(records[items[j].env_id], items[j].env_id, resetting[j], rewards[j],
                      terminated[j], step_limit_, columns, j - k);
      }
      ObserveMany<E>(calls, states + k, end - k, failed >> k, bases, first_row,
                     [&](int64_t j, std::string error) { fail(k + j, std::move(error)); });
      k = end;
    }
    for (const auto& [k, error] : errors) FailAt(items[k].env_id, first_seq + k, error.c_str());
    // Completed after the failures are recorded: a complete block may be delivered at once.
    for (int32_t k = 0; k < count;) {
      const int64_t seq = first_seq + k;
      const int32_t end = static_cast<int32_t>(std::min<int64_t>(count, k + (b - seq % b)));
      Complete(BlockOf(seq), end - k);
      k = end;
    }
  }

  // The three steps a batched env class (E::StepMany: FunctionEnv) shares between the sync
  // loop (StepRun) and queued chunks (ProcessItemsBatched). Each env's pointers are given as
  // arrays, entry k for the k-th env of the call. An env whose call fails is passed to
  // fail(k, error) (which marks it failed) and the call goes on from the env after it.

  // Steps `count` (<= kMaxGroup) envs, those with resetting[k] set skipped, writing rewards[k]
  // and terminated[k] (a byte: any non-zero value is true), then resets the skipped ones.
  template <typename E, typename OnFail>
  static void AdvanceMany(const typename E::Batch& calls, void* const* states,
                          const void* const* actions, void* const* rngs, const void* const* options,
                          const uint8_t* resetting, int64_t count, double* rewards,
                          uint8_t* terminated, OnFail&& fail) {
    for (int64_t done = 0; done < count;) {
      std::string error;
      done +=
          E::StepMany(calls, states + done, actions + done, rngs + done, options + done,
                      resetting + done, rewards + done, terminated + done, count - done, &error);
      if (done < count) fail(done++, std::move(error));
    }
    void* reset_states[kMaxGroup];
    void* reset_rngs[kMaxGroup];
    const void* reset_options[kMaxGroup];
    int64_t reset_at[kMaxGroup];  // k of the j-th env to reset
    int64_t r = 0;
    for (int64_t k = 0; k < count; ++k) {
      if (!resetting[k]) continue;
      reset_states[r] = states[k];
      reset_rngs[r] = rngs[k];
      reset_options[r] = options[k];
      reset_at[r++] = k;
    }
    for (int64_t done = 0; done < r;) {
      std::string error;
      done += E::ResetMany(calls, reset_states + done, reset_rngs + done, reset_options + done,
                           r - done, &error);
      if (done < r) fail(reset_at[done++], std::move(error));
    }
  }

  // A block's common keys as typed columns, from row `first_row` on (column[i]: row
  // first_row + i). Loops that write many rows hold these in registers: read through the
  // block's bases after each row's stores, which may alias them, they were loaded again.
  struct CommonColumns {
    CommonColumns(char* const* bases, int64_t first_row)
        : reward(reinterpret_cast<double*>(bases[kReward]) + first_row),
          terminated(reinterpret_cast<bool*>(bases[kTerminated]) + first_row),
          truncated(reinterpret_cast<bool*>(bases[kTruncated]) + first_row),
          env_id(reinterpret_cast<int32_t*>(bases[kEnvId]) + first_row),
          elapsed_step(reinterpret_cast<int32_t*>(bases[kElapsedStep]) + first_row) {}
    double* reward;
    bool* terminated;
    bool* truncated;
    int32_t* env_id;
    int32_t* elapsed_step;
  };

  // Env `id`'s results but its observation, in row `row` of `columns`, and its record brought
  // up to date: after a reset (NEXT_STEP autoreset: a fresh episode, as E's
  // ResetAfterTermination is Reset), or after a step that gave `reward` and `terminated`.
  // Batched classes (FunctionEnv) have no truncation of their own: only the time limit's.
  [[gnu::always_inline]] static void RecordBatched(EnvRecord& record, int32_t id, bool reset,
                                                   double reward, uint8_t terminated,
                                                   int64_t step_limit, const CommonColumns& columns,
                                                   int64_t row) {
    bool ended = false, truncated = false;
    if (reset) {
      reward = 0.0;
      record.elapsed = 0;
      record.started = true;
    } else {
      ended = terminated != 0;
      truncated = ++record.elapsed >= step_limit;
    }
    record.needs_reset = ended || truncated;
    record.terminated_only = ended && !truncated;
    columns.reward[row] = reward;
    columns.terminated[row] = ended;
    columns.truncated[row] = truncated;
    columns.env_id[row] = id;
    columns.elapsed_step[row] = static_cast<int32_t>(record.elapsed);
  }

  // Observes `count` envs into consecutive rows from `first_row`: one call per stretch of
  // envs between failed ones (bit k of `failed`).
  template <typename E, typename OnFail>
  void ObserveMany(const typename E::Batch& calls, void* const* states, int64_t count,
                   uint64_t failed, char* const* bases, int64_t first_row, OnFail&& fail) const {
    for (int64_t k = 0; k < count;) {
      if ((failed >> k) & 1) {
        ++k;
        continue;
      }
      int64_t stop = k + 1;
      while (stop < count && !((failed >> stop) & 1)) ++stop;
      std::string error;
      const int64_t written =
          k + E::WriteMany(calls, states + k, bases + kNumCommon, row_bytes_ + kNumCommon,
                           first_row + k, stop - k, &error);
      if (written < stop) {
        fail(written, std::move(error));
        stop = written + 1;
      }
      k = stop;
    }
  }

  // An env's calls, made on an env whose class is exactly E (the pool's kernels for E are
  // only used on envs MakeEnvType<E> built): E's own functions, called directly, for a
  // concrete E; through the vtable for E = Env.
  template <typename E>
  struct Calls {
    [[gnu::always_inline]] static void Step(Env& env, const void* action) {
      if constexpr (std::is_same_v<E, Env>) {
        env.Step(action);
      } else {
        static_cast<E&>(env).E::Step(action);
      }
    }
    [[gnu::always_inline]] static void Write(const Env& env, const OutputSlot& out) {
      if constexpr (std::is_same_v<E, Env>) {
        env.Write(out);
      } else {
        static_cast<const E&>(env).E::Write(out);
      }
    }
    // Resets `env`; with after_termination, through Env::ResetAfterTermination. Returns
    // whether the new episode continues the ended one's clock (elapsed steps and time limit).
    static bool StartEpisode(Env& env, bool after_termination) {
      if constexpr (std::is_same_v<E, Env>) {
        if (after_termination) return env.ResetAfterTermination();
        env.Reset();
      } else {
        if (after_termination) return static_cast<E&>(env).E::ResetAfterTermination();
        static_cast<E&>(env).E::Reset();
      }
      return false;
    }
  };

  // Whether the loops for E read Env::truncated() after a step: for a class that truncates
  // its own episodes (Env::kTruncates), and in the vtable loops (E = Env), which serve every
  // class (truncated() stays false in the others). The other classes' loops never load it.
  template <typename E>
  static constexpr bool kReadsEnvTruncation = std::is_same_v<E, Env> || E::kTruncates;

  // What a step or reset leaves for its row.
  struct Outcome {
    double reward = 0.0;
    int64_t elapsed = 0;
    bool terminated = false;
    bool truncated = false;
    bool failed = false;  // ProcessItems: the env threw
  };

  // Runs env `env_id` one step (or reset) and writes its result into row *row of *block, or,
  // when *block is null, into the row it claims once the step is done (`seq`, or the next
  // free row when seq < 0). Never throws: an env's exception is recorded in the block and
  // raised by the Python thread.
  template <typename E>
  void Run(int32_t env_id, bool reset, int64_t seq, Block** block, int64_t* row) {
    try {
      const Outcome outcome = Advance<E>(env_id, reset);
      if (*block == nullptr) Claim(seq, block, row);
      Record<E>(env_id, outcome, *block, *row);
    } catch (const std::exception& e) {
      Fail(env_id, seq, block, row, e.what());
    } catch (...) {
      Fail(env_id, seq, block, row, "unknown C++ exception");
    }
  }

  // Run()'s first half: steps env `env_id`, or resets it if asked to or if its episode is
  // over (NEXT_STEP autoreset). Throws what the env throws.
  template <typename E>
  Outcome Advance(int32_t env_id, bool reset) {
    EnvRecord& record = envs_[env_id];
    Env& env = *record.env;
    Outcome outcome;
    if (reset || record.needs_reset) {
      // Explicit resets always start afresh; only an autoreset after a termination may
      // continue the ended episode's clock.
      if (!Calls<E>::StartEpisode(env, !reset && record.terminated_only)) record.elapsed = 0;
      outcome.elapsed = record.elapsed;
      record.needs_reset = false;
      record.started = true;
      record.terminated_only = false;
    } else {
      // Read before the env's calls, which the compiler must assume change any member.
      const int64_t step_limit = step_limit_;
      Calls<E>::Step(env, actions_.data() + env_id * action_bytes_);
      outcome.elapsed = ++record.elapsed;
      outcome.reward = env.reward();
      outcome.terminated = env.terminated();
      // Like Gymnasium's TimeLimit: truncated may be set together with terminated. An env
      // with its own time limit (Env::kTruncates) may end the episode too.
      outcome.truncated =
          outcome.elapsed >= step_limit || (kReadsEnvTruncation<E> && env.truncated());
    }
    return outcome;
  }

  // Run()'s second half: writes `outcome` and the env's observation into row r of `block`,
  // and, with SAME_STEP autoreset, resets an env whose episode just ended (the row then holds
  // the ended episode's observation as final_obs). Throws what the env throws.
  template <typename E>
  void Record(int32_t env_id, const Outcome& outcome, Block* block, int64_t r) {
    EnvRecord& record = envs_[env_id];
    Env& env = *record.env;
    const bool done = outcome.terminated || outcome.truncated;
    const size_t* row_bytes = row_bytes_;
    char* const* bases = block->key_bases.data();
    reinterpret_cast<double*>(bases[kReward])[r] = outcome.reward;
    reinterpret_cast<bool*>(bases[kTerminated])[r] = outcome.terminated;
    reinterpret_cast<bool*>(bases[kTruncated])[r] = outcome.truncated;
    reinterpret_cast<int32_t*>(bases[kEnvId])[r] = env_id;
    reinterpret_cast<int32_t*>(bases[kElapsedStep])[r] = static_cast<int32_t>(outcome.elapsed);
    if (done && options_.autoreset_mode == AutoresetMode::kSameStep) {
      const size_t final_keys = kNumCommon + num_env_keys_;
      Calls<E>::Write(env, OutputSlot(bases + final_keys, row_bytes + final_keys, r));
      if (!Calls<E>::StartEpisode(env, !outcome.truncated)) record.elapsed = 0;
    } else {
      record.needs_reset = done;
      record.terminated_only = outcome.terminated && !outcome.truncated;
    }
    Calls<E>::Write(env, OutputSlot(bases + kNumCommon, row_bytes + kNumCommon, r));
  }

  // ---- sweeps ------------------------------------------------------------------------------

  // The envs of the send being swept, in send order, and how they are cut into runs (handed
  // out by runs_). Written by the Python thread only while no env is in flight, so never
  // while a thread processes a run.
  struct Sweep {
    std::vector<int32_t> ids;
    int64_t count = 0;
    int64_t run_length = 1;
    int64_t seq = 0;  // the first env's row
    uint32_t gen = 0;
    bool reset = false;
    bool caller_steps = false;  // segment 0 is the caller's
  };

  // Runs of about a 1/kRunsPerThread share of a thread's part: enough runs for the threads to
  // even out (one that starts late, or is descheduled, has its runs stolen), few enough that a
  // run's fixed costs vanish. A run is at least one env.
  static constexpr int64_t kRunsPerThread = 16;

  void StartSweep(const int32_t* env_ids, int64_t count, bool reset, int64_t seq,
                  bool caller_steps) {
    const int64_t workers = SweepWorkers(
        {options_.num_threads, usable_cores_, caller_helps_queue_, caller_steps, count, step_ns_});
    const int64_t threads = workers + (caller_steps ? 1 : 0);
    const int64_t runs_wanted = kRunsPerThread * threads;
    std::memcpy(sweep_.ids.data(), env_ids, static_cast<size_t>(count) * sizeof(int32_t));
    sweep_.count = count;
    sweep_.run_length = count <= runs_wanted ? 1 : (count + runs_wanted - 1) / runs_wanted;
    sweep_.seq = seq;
    sweep_.reset = reset;
    sweep_.caller_steps = caller_steps;
    const int64_t runs = (count + sweep_.run_length - 1) / sweep_.run_length;
    sweep_.gen = runs_.Start(runs, static_cast<int>(threads));
    // One ticket per worker with a home segment: a worker holding one claims runs until none
    // is left (JoinSweep). The caller needs none; with a single run it takes that itself and
    // wakes nobody.
    HandOutTickets(std::min(workers, caller_steps ? runs - 1 : runs),
                   /*home_offset=*/caller_steps ? 1 : 0);
  }

  // The caller's estimate of one env step (a moving average over the runs it steps itself);
  // negative until it has stepped one.
  void LearnStepCost(std::chrono::steady_clock::duration took, int64_t envs) {
    const double ns =
        static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(took).count()) /
        static_cast<double>(envs);
    step_ns_ = step_ns_ < 0 ? ns : 0.75 * step_ns_ + 0.25 * ns;
  }

  // Tickets to the current sweep for `tickets` workers: ticket t gives whichever worker takes
  // it home segment t + home_offset. (Homes by worker index left a sweep's segment without
  // its owner whenever a worker beyond the sweep's took the ticket, a spare one woken because
  // the polling one was busy: every env of that segment then moved between cores every batch.
  // CartPole-v1 sync, two workers on two cores, benchmarks/compare_installs.py against the
  // tree before: 256 envs 1.09x -> 1.19x, 2048 envs 0.96x -> 1.06x with this change.)
  void HandOutTickets(int64_t tickets, int32_t home_offset) {
    for (int64_t t = 0; t < tickets; ++t) {
      queue_.Push({/*env_id=*/home_offset + static_cast<int32_t>(t), sweep_.reset,
                   /*seq=*/sweep_.gen, /*render=*/false, /*sweep=*/true});
    }
    queue_.Announce(tickets);
  }

  // A worker's ticket of sweep `gen`: claims and processes runs until none is left, its home
  // segment's first. A ticket taken after its sweep has finished claims nothing (RunSegments).
  void JoinSweep(const WorkItem& ticket) {
    const int home = ticket.env_id;
    const uint32_t gen = static_cast<uint32_t>(ticket.seq);
    Completion completion;
    for (int64_t run; (run = runs_.Claim(gen, home)) >= 0;) {
      (this->*kernels_.process_run)(run, &completion);
    }
    Flush(&completion);
  }

  // Processes run `run` (its index) of the current sweep (a claimed run proves the sweep is
  // current: its batch cannot be delivered, nor a new sweep started, before the run's rows
  // are written). Returns how many envs it stepped. Its rows are added to `completion`,
  // which the claiming thread flushes once it has no more runs.
  template <typename E>
  int64_t ProcessRun(int64_t run, Completion* completion) {
    const int64_t b = options_.batch_size;
    const int64_t first = run * sweep_.run_length;
    const int64_t last = std::min(first + sweep_.run_length, sweep_.count);
    int64_t seq = sweep_.seq + first;
    Block* block = BlockOf(seq);
    int64_t row = seq % b;
    const int32_t* ids = sweep_.ids.data();
    const bool reset = sweep_.reset;
    // Steps (not resets), no same-step autoreset, rows within one block: the sync loop.
    if (!reset && options_.autoreset_mode != AutoresetMode::kSameStep &&
        row + (last - first) <= b) {
      StepRun<E>(ids + first, last - first, block, row, seq);
      Add(completion, block, last - first);
      return last - first;
    }
    int64_t rows = 0;
    for (int64_t i = first; i < last; ++i) {
      Block* written = block;
      int64_t at = row;
      Run<E>(ids[i], reset, seq, &written, &at);
      ++seq;
      ++rows;
      if (++row == b && i + 1 < last) {  // the run goes on in the next block
        Add(completion, block, rows);
        block = BlockOf(seq);
        row = 0;
        rows = 0;
      }
    }
    Add(completion, block, rows);
    return last - first;
  }

  // Run<E>() for `count` envs stepping into consecutive rows of one block, from `row` (seq
  // `seq`): the sync loop's case, written so that the loop keeps its pointers in registers
  // rather than reload them from the pool and the block after every env's calls, as Run()'s
  // Record() does (benchmarks/pool_loop.cc, one core: 54.5M steps/s against 49.4M for a loop
  // of Run<E>(); 51.5M against 43.5M with the vtable's calls).
  // An env class with batched calls (E::StepMany and E::WriteMany: FunctionEnv) steps a
  // stretch of envs in one call, writes their results, and observes them in one call; an env
  // whose episode had ended is reset on its own.
  template <typename E>
  void StepRun(const int32_t* ids, int64_t count, Block* block, int64_t row, int64_t seq) {
    using Call = Calls<E>;
    char* const* bases = block->key_bases.data();
    const CommonColumns columns(bases, row);  // row i of the run: columns.x[i]
    char* const* const env_bases = bases + kNumCommon;
    const size_t* const env_row_bytes = row_bytes_ + kNumCommon;
    const char* const actions = actions_.data();
    const size_t action_bytes = action_bytes_;
    const int64_t step_limit = step_limit_;
    EnvRecord* const records = envs_.data();
    // Env ids[i]'s results but its observation, once it has stepped.
    const auto record_step = [&](int64_t i, EnvRecord& record) __attribute__((always_inline)) {
      const Env& env = *record.env;
      const int64_t elapsed = ++record.elapsed;
      const bool terminated = env.terminated();
      const bool truncated = elapsed >= step_limit || (kReadsEnvTruncation<E> && env.truncated());
      columns.reward[i] = env.reward();
      columns.terminated[i] = terminated;
      columns.truncated[i] = truncated;
      columns.env_id[i] = ids[i];
      columns.elapsed_step[i] = static_cast<int32_t>(elapsed);
      record.needs_reset = terminated || truncated;
      record.terminated_only = terminated && !truncated;
    };
    const auto reset = [&](int64_t i) {
      Block* written = block;
      int64_t at = row + i;
      Run<E>(ids[i], false, seq + i, &written, &at);
    };
    if constexpr (requires { E::StepMany; }) {
      static_assert(!E::kTruncates, "RecordBatched knows only the pool's time limit");
      // Groups of up to kMaxGroup envs: the group's envs step in one call (those whose
      // episode had ended skipped), write rewards and terminations straight into their rows,
      // reset in one call if their episode had ended (NEXT_STEP autoreset: a fresh episode, as
      // E's ResetAfterTermination is Reset), and are observed in one call, their rows being
      // consecutive. Each env's pointers come from batch_, indexed by env id, so a group of
      // consecutive ids (a sync step of every env) passes them as they lie there. Gathering
      // them from the env objects, and a call per env, cost more than stepping PyCartPole.
      const typename E::Batch calls = static_cast<const E&>(*records[ids[0]].env).BatchOf();
      uint8_t* const terminated_bytes = reinterpret_cast<uint8_t*>(columns.terminated);
      for (int64_t group = 0; group < count; group += kMaxGroup) {
        const int64_t size = std::min(kMaxGroup, count - group);
        const int32_t* const group_ids = ids + group;
        uint8_t resetting[kMaxGroup];
        bool in_order = true;
        for (int64_t k = 0; k < size; ++k) {
          const int32_t id = group_ids[k];
          in_order &= id == group_ids[0] + k;
          resetting[k] = records[id].needs_reset;
        }
        void* gathered_states[kMaxGroup];
        const void* gathered_actions[kMaxGroup];
        void* gathered_rngs[kMaxGroup];
        const void* gathered_options[kMaxGroup];
        void* const* states = &batch_.states[group_ids[0]];
        const void* const* step_actions = &batch_.actions[group_ids[0]];
        void* const* rngs = &batch_.rngs[group_ids[0]];
        const void* const* options = &batch_.options[group_ids[0]];
        if (!in_order) {
          for (int64_t k = 0; k < size; ++k) {
            const int32_t id = group_ids[k];
            gathered_states[k] = batch_.states[id];
            gathered_actions[k] = batch_.actions[id];
            gathered_rngs[k] = batch_.rngs[id];
            gathered_options[k] = batch_.options[id];
          }
          states = gathered_states;
          step_actions = gathered_actions;
          rngs = gathered_rngs;
          options = gathered_options;
        }
        // An env that fails gets its row marked (and needs a reset).
        uint64_t failed = 0;  // bit k: env group_ids[k]
        const auto fail = [&](int64_t k, std::string error) {
          FailAt(group_ids[k], seq + group + k, error.c_str());
          failed |= uint64_t{1} << k;
        };
        AdvanceMany<E>(calls, states, step_actions, rngs, options, resetting, size,
                       columns.reward + group, terminated_bytes + group, fail);
        for (int64_t k = 0; k < size; ++k) {
          if ((failed >> k) & 1) continue;
          const int64_t i = group + k;
          RecordBatched(records[group_ids[k]], group_ids[k], resetting[k], columns.reward[i],
                        terminated_bytes[i], step_limit, columns, i);
        }
        ObserveMany<E>(calls, states, size, failed, bases, row + group, fail);
      }
    } else {
      for (int64_t i = 0; i < count; ++i) {
        const int32_t env_id = ids[i];
        EnvRecord& record = records[env_id];
        if (record.needs_reset) {
          reset(i);
          continue;
        }
        try {
          Env& env = *record.env;
          Call::Step(env, actions + env_id * action_bytes);
          record_step(i, record);
          Call::Write(env, OutputSlot(env_bases, env_row_bytes, row + i));
        } catch (const std::exception& e) {
          FailAt(env_id, seq + i, e.what());
        } catch (...) {
          FailAt(env_id, seq + i, "unknown C++ exception");
        }
      }
    }
  }

  // The per-env pointers an env class with batched calls takes as arrays (E::Pointers), and
  // each env's action slot, indexed by env id. Fixed once the envs are built: an env's state
  // never moves.
  struct BatchPointers {
    std::vector<void*> states, rngs;
    std::vector<const void*> options, actions;
  };
  static constexpr int64_t kMaxGroup = 64;  // envs per batched call: failures fit a word

  template <typename E>
  void PrepareBatches() {
    if constexpr (requires { E::StepMany; }) {
      for (size_t i = 0; i < envs_.size(); ++i) {
        const typename E::Pointers env = E::PointersOf(static_cast<E&>(*envs_[i].env));
        batch_.states.push_back(env.state);
        batch_.rngs.push_back(env.rng);
        batch_.options.push_back(env.options);
        batch_.actions.push_back(actions_.data() + i * action_bytes_);
      }
    }
  }

  // Row `seq` (or, when seq < 0, the next free row): the block holding it and the row in it.
  void Claim(int64_t seq, Block** block, int64_t* row) {
    if (seq < 0) seq = next_seq_.fetch_add(1, std::memory_order_relaxed);
    *block = BlockOf(seq);
    *row = seq % options_.batch_size;
  }

  Block* BlockOf(int64_t seq) const {
    const int64_t b = options_.batch_size;
    return ring_[(seq / b) % ring_size_].load(std::memory_order_acquire);  // see Deliver()
  }

  void Fail(int32_t env_id, int64_t seq, Block** block, int64_t* row, const char* what) {
    envs_[env_id].needs_reset = true;
    envs_[env_id].terminated_only = false;
    if (*block == nullptr) Claim(seq, block, row);
    reinterpret_cast<int32_t*>((*block)->key_bases[kEnvId])[*row] = env_id;
    bool expected = false;
    if ((*block)->failed.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
      (*block)->failed_env = env_id;
      (*block)->error = what;
    }
  }

  // Fail() for row `seq`, which no step has claimed yet.
  void FailAt(int32_t env_id, int64_t seq, const char* what) {
    Block* block = nullptr;
    int64_t row = 0;
    Fail(env_id, seq, &block, &row, what);
  }

  // Counts `rows` more rows of `block` in `completion`, completing the rows it held of
  // another block first.
  void Add(Completion* completion, Block* block, int64_t rows) {
    if (completion->block != block) {
      Flush(completion);
      completion->block = block;
    }
    completion->rows += rows;
  }
  void Flush(Completion* completion) {
    if (completion->rows > 0) Complete(completion->block, completion->rows);
    completion->block = nullptr;
    completion->rows = 0;
  }

  void Complete(Block* block, int64_t rows) {
    if (block->written.fetch_add(rows, std::memory_order_acq_rel) + rows == options_.batch_size) {
      block->ready.Post();
    }
  }

  EnvSpec spec_;
  Kernels kernels_;
  PoolOptions options_;
  std::vector<EnvRecord> envs_;
  std::vector<uint8_t> in_flight_;  // per env; Python thread only
  size_t action_bytes_ = 0;
  std::vector<char> actions_;
  size_t num_env_keys_ = 0;

  ActionQueue queue_;
  BlockArena* arena_ = nullptr;
  // Logical block j lives in ring_[j % ring_size_]; results not yet handed to Python span at
  // most ceil(N/B) + 1 logical blocks, so a ring entry is reused only once delivered.
  std::unique_ptr<std::atomic<Block*>[]> ring_;
  int64_t ring_size_ = 0;
  alignas(64) std::atomic<int64_t> next_seq_{0};
  // The Python thread's, written every call (step_ns_: every run it steps): a line of their
  // own, so that no worker reading a field beside them misses its cache every run.
  alignas(64) int64_t head_ = 0;  // logical index of the next block recv() returns
  int64_t pending_ = 0;           // envs sent and not yet delivered
  int64_t reserved_ = 0;          // queued items the caller promised to step itself
  double step_ns_ = -1;           // see LearnStepCost
  // Written once per sweep by the Python thread, read by every run's thread.
  alignas(64) Sweep sweep_;
  RunSegments runs_;
  // Read by the stepping threads, written only while no env is in flight (or never).
  alignas(64) BatchPointers batch_;  // only for env classes with batched calls
  bool closed_ = false;
  int32_t takers_ = 2;
  int64_t usable_cores_ = 1;
  bool caller_helps_queue_ = true;     // the waiting caller takes queued envs too
  int spare_workers_ = 0;              // see SpareLoop
  const size_t* row_bytes_ = nullptr;  // the layout's, per key
  int64_t step_limit_ = INT64_MAX;     // elapsed steps that truncate an episode

  RenderRequest render_;
  alignas(64) std::atomic<int64_t> render_left_{0};
  std::atomic<bool> render_failed_{false};
  std::string render_error_;  // written by the first failing worker, read after render_done_
  Semaphore render_done_;
  std::unique_ptr<ThreadPool> workers_;
};

}  // namespace envfleet

#endif  // ENVFLEET_CORE_POOL_H_
