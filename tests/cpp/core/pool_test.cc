// cpp/core/pool.h end to end, driven as the binding drives it (cpp/bind/env_module.h: copy
// actions into their slots, Enqueue, Wait, Deliver, then end the lease or Discard), over a
// tiny env defined here: sync order, async batches, the three autoreset modes, time limits,
// continued episodes, determinism across thread counts, env errors, seeding and leases.
#include "core/pool.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "core/registry.h"

namespace envfleet {
namespace {

// obs "obs" int64 [steps in this episode, episodes started, last action, seed];
// info "draw" float64: a Random() drawn by every reset and step.
class TinyEnv : public Env {
 public:
  static Config DefaultConfig() {
    return {{"episode_length", int64_t{3}},   {"fail_at_step", int64_t{-1}},
            {"fail_seed", int64_t{-1}},       {"throw_non_std", false},
            {"continue_episodes", false},     {"build_us", int64_t{0}},
            {"fail_build_seed", int64_t{-1}}, {"workers_only", false}};
  }
  static EnvSpec Spec(const Config& config) {
    EnvSpec spec;
    spec.workers_only = config.Get<bool>("workers_only");
    spec.obs = {Box("obs", DType::kInt64, {4}, {}, {})};
    spec.info = {Box("draw", DType::kFloat64, {}, {0.0}, {1.0})};
    spec.action = Discrete("action", 10);
    spec.render = {4, 2, /*resizable=*/true, /*fps=*/50.0, /*num_cameras=*/1};
    return spec;
  }
  TinyEnv(const Config& config, uint64_t seed)
      : Env(seed),
        seed_(static_cast<int64_t>(seed)),
        episode_length_(config.Get<int64_t>("episode_length")),
        fail_at_step_(config.Get<int64_t>("fail_at_step")),
        fail_seed_(config.Get<int64_t>("fail_seed")),
        throw_non_std_(config.Get<bool>("throw_non_std")),
        continue_episodes_(config.Get<bool>("continue_episodes")) {
    std::this_thread::sleep_for(std::chrono::microseconds(config.Get<int64_t>("build_us")));
    if (seed_ == config.Get<int64_t>("fail_build_seed")) {
      throw std::runtime_error("cannot build env " + std::to_string(seed_));
    }
  }
  void Reset() override {
    steps_ = 0;
    ++episodes_;
    last_action_ = -1;
    draw_ = rng().Random();
  }
  void Step(const void* action) override {
    step_thread = std::this_thread::get_id();
    last_action_ = *static_cast<const int64_t*>(action);
    ++steps_;
    draw_ = rng().Random();
    if (steps_ == fail_at_step_ && (fail_seed_ < 0 || fail_seed_ == seed_)) {
      if (throw_non_std_) throw 42;
      throw std::runtime_error("boom at step " + std::to_string(steps_));
    }
    reward_ = static_cast<double>(last_action_) + draw_;
    terminated_ = steps_ >= episode_length_;
  }
  void Write(const OutputSlot& out) const override {
    int64_t* obs = out.Get<int64_t>(0);
    obs[0] = steps_;
    obs[1] = episodes_;
    obs[2] = last_action_;
    obs[3] = seed_;
    *out.Get<double>(1) = draw_;
  }
  bool ResetAfterTermination() override {
    Reset();
    return continue_episodes_;
  }
  // Each pixel holds (steps, episodes, seed); camera 0 fails. Records the drawing thread.
  void Render(int camera_id, int width, int height, uint8_t* rgb) override {
    render_thread = std::this_thread::get_id();
    if (camera_id == 0) throw std::runtime_error("camera 0 is broken");
    for (int i = 0; i < width * height; ++i, rgb += 3) {
      rgb[0] = static_cast<uint8_t>(steps_);
      rgb[1] = static_cast<uint8_t>(episodes_);
      rgb[2] = static_cast<uint8_t>(seed_);
    }
  }
  std::thread::id render_thread;
  std::thread::id step_thread;

 protected:
  int64_t steps() const { return steps_; }

 private:
  int64_t seed_;
  int64_t episode_length_, fail_at_step_, fail_seed_;
  bool throw_non_std_, continue_episodes_;
  int64_t steps_ = 0, episodes_ = 0, last_action_ = -1;
  double draw_ = 0.0;
};

// TinyEnv that also truncates its own episodes (Env::kTruncates), as MiniGrid's envs do:
// after `truncate_at` steps of an episode (-1: never).
class SelfTruncatingEnv final : public TinyEnv {
 public:
  static constexpr bool kTruncates = true;
  static Config DefaultConfig() {
    Config config = TinyEnv::DefaultConfig();
    config.Set("truncate_at", int64_t{-1});
    return config;
  }
  SelfTruncatingEnv(const Config& config, uint64_t seed)
      : TinyEnv(config, seed), truncate_at_(config.Get<int64_t>("truncate_at")) {}
  void Step(const void* action) override {
    TinyEnv::Step(action);
    truncated_ = truncate_at_ >= 0 && steps() >= truncate_at_;
  }

 private:
  int64_t truncate_at_;
};

struct Row {
  double reward;
  bool terminated, truncated;
  int32_t env_id, elapsed;
  int64_t steps, episodes, action, seed;
  double draw;
  bool has_final = false;
  int64_t final_steps = -1, final_episodes = -1;
  double final_draw = -1;

  bool operator==(const Row&) const = default;
};

struct Batch {
  bool failed = false;
  int32_t failed_env = -1;
  std::string error;
  std::vector<Row> rows;

  std::vector<int32_t> EnvIds() const {
    std::vector<int32_t> ids;
    for (const Row& row : rows) ids.push_back(row.env_id);
    return ids;
  }
};

// What PyPool does, minus Python.
class Driver {
 public:
  // `generic`: the pool's loops that call the env through its vtable (Kernels::Of<Env>),
  // rather than those of TinyEnv that the bindings get from MakeEnvType<TinyEnv>.
  // `self_truncating`: SelfTruncatingEnv's envs rather than TinyEnv's.
  Driver(Config overrides, int num_envs, int batch_size, int num_threads,
         AutoresetMode mode = AutoresetMode::kNextStep, int64_t max_episode_steps = 0,
         uint64_t first_seed = 100, bool generic = false, bool self_truncating = false) {
    const EnvType type =
        self_truncating ? MakeEnvType<SelfTruncatingEnv>() : MakeEnvType<TinyEnv>();
    Config config = type.defaults;
    for (const auto& [key, value] : overrides.values()) config.Set(key, value);
    PoolOptions options;
    options.num_envs = num_envs;
    options.batch_size = batch_size;
    options.num_threads = num_threads;
    options.autoreset_mode = mode;
    options.max_episode_steps = max_episode_steps;
    for (int i = 0; i < num_envs; ++i) options.seeds.push_back(first_seed + i);
    pool = std::make_unique<Pool>(type.spec(config), config, type.factory, std::move(options),
                                  generic ? Pool::Kernels::Of<Env>() : type.kernels);
  }

  Batch Reset(std::vector<int32_t> ids) { return Run(ids, {}, true); }
  Batch ResetAll() { return Reset(AllIds()); }
  // Sync step (seal): the batch holds exactly these envs, in this order.
  Batch Step(std::vector<int32_t> ids, std::vector<int64_t> actions) {
    return Run(ids, actions, false);
  }
  Batch StepAll(int64_t action) {
    return Step(AllIds(), std::vector<int64_t>(pool->options().num_envs, action));
  }

  // Async: queue without sealing (send) / take the next batch (recv).
  void Send(const std::vector<int32_t>& ids, const std::vector<int64_t>& actions, bool reset) {
    for (size_t i = 0; i < ids.size() && !reset; ++i) SetAction(ids[i], actions[i]);
    pool->Enqueue(ids.data(), ids.size(), reset, /*seal=*/false, /*caller_waits=*/false);
  }
  Batch Recv() {
    pool->Wait();
    return Collect(pool->Deliver());
  }

  std::vector<int32_t> AllIds() const {
    std::vector<int32_t> ids(static_cast<size_t>(pool->options().num_envs));
    std::iota(ids.begin(), ids.end(), 0);
    return ids;
  }

  std::unique_ptr<Pool> pool;

 private:
  void SetAction(int32_t id, int64_t action) {
    std::memcpy(pool->action_slot(id), &action, sizeof(action));
  }

  Batch Run(const std::vector<int32_t>& ids, const std::vector<int64_t>& actions, bool reset) {
    for (size_t i = 0; i < ids.size() && !reset; ++i) SetAction(ids[i], actions[i]);
    pool->Enqueue(ids.data(), ids.size(), reset, /*seal=*/true, /*caller_waits=*/true);
    return Recv();
  }

  size_t Key(const std::string& name) const {
    const auto& keys = pool->layout().keys;
    for (size_t k = 0; k < keys.size(); ++k) {
      if (keys[k].name == name) return k;
    }
    return keys.size();
  }

  Batch Collect(Block* block) {
    Batch batch;
    const BlockLayout& layout = pool->layout();
    if (block->failed.load()) {
      batch.failed = true;
      batch.failed_env = block->failed_env;
      batch.error = block->error;
      const auto* ids = reinterpret_cast<const int32_t*>(block->key_bases[kEnvId]);
      for (int64_t r = block->first_row; r < static_cast<int64_t>(layout.batch_size); ++r) {
        Row row{};
        row.env_id = ids[r];
        batch.rows.push_back(row);
      }
      pool->Discard(block);
      return batch;
    }
    const size_t obs = Key("obs"), draw = Key("draw");
    const size_t final_obs = Key("final_obs:obs"), final_draw = Key("final_info:draw");
    for (int64_t r = block->first_row; r < static_cast<int64_t>(layout.batch_size); ++r) {
      Row row{};
      row.reward = reinterpret_cast<const double*>(block->key_bases[kReward])[r];
      row.terminated = reinterpret_cast<const bool*>(block->key_bases[kTerminated])[r];
      row.truncated = reinterpret_cast<const bool*>(block->key_bases[kTruncated])[r];
      row.env_id = reinterpret_cast<const int32_t*>(block->key_bases[kEnvId])[r];
      row.elapsed = reinterpret_cast<const int32_t*>(block->key_bases[kElapsedStep])[r];
      const int64_t* o = reinterpret_cast<const int64_t*>(block->key_bases[obs]) + 4 * r;
      row.steps = o[0];
      row.episodes = o[1];
      row.action = o[2];
      row.seed = o[3];
      row.draw = reinterpret_cast<const double*>(block->key_bases[draw])[r];
      if (final_obs < layout.keys.size()) {
        const int64_t* f = reinterpret_cast<const int64_t*>(block->key_bases[final_obs]) + 4 * r;
        row.has_final = true;
        row.final_steps = f[0];
        row.final_episodes = f[1];
        row.final_draw = reinterpret_cast<const double*>(block->key_bases[final_draw])[r];
      }
      batch.rows.push_back(row);
    }
    // Lease it as Python would, and end the lease at once (the arrays died).
    pool->arena()->AddRef();
    pool->arena()->EndLease(block);
    return batch;
  }
};

TEST(Pool, RejectsInconsistentOptions) {
  const EnvType type = MakeEnvType<TinyEnv>();
  const EnvSpec spec = type.spec(type.defaults);
  auto make = [&](int num_envs, int batch_size, int num_threads, size_t seeds) {
    PoolOptions options;
    options.num_envs = num_envs;
    options.batch_size = batch_size;
    options.num_threads = num_threads;
    options.seeds.assign(seeds, 1);
    Pool pool(spec, type.defaults, type.factory, std::move(options));
  };
  CHECK_THROWS_WITH(std::invalid_argument, "num_envs", make(0, 1, 1, 0));
  CHECK_THROWS_WITH(std::invalid_argument, "batch_size", make(2, 3, 1, 2));
  CHECK_THROWS_WITH(std::invalid_argument, "batch_size", make(2, 0, 1, 2));
  CHECK_THROWS_WITH(std::invalid_argument, "num_threads", make(2, 2, 0, 2));
  CHECK_THROWS_WITH(std::invalid_argument, "seed", make(2, 2, 1, 1));
}

TEST(Pool, OutputKeysAreTheCommonOnesThenObsThenInfo) {
  for (AutoresetMode mode :
       {AutoresetMode::kNextStep, AutoresetMode::kSameStep, AutoresetMode::kDisabled}) {
    Driver d({}, 2, 2, 1, mode);
    std::vector<std::string> names;
    for (const ArraySpec& key : d.pool->layout().keys) names.push_back(key.name);
    std::vector<std::string> expected = {"reward",       "terminated", "truncated", "env_id",
                                         "elapsed_step", "obs",        "draw"};
    if (mode == AutoresetMode::kSameStep) {
      expected.push_back("final_obs:obs");
      expected.push_back("final_info:draw");
    }
    CHECK_EQ(names, expected);
  }
}

TEST(Pool, SyncResultsComeInSendOrder) {
  Driver d({{"episode_length", int64_t{1000}}}, 4, 4, 2);
  Batch reset = d.ResetAll();
  CHECK_EQ(reset.EnvIds(), (std::vector<int32_t>{0, 1, 2, 3}));
  for (const Row& row : reset.rows) {
    CHECK_EQ(row.elapsed, 0);
    CHECK_EQ(row.steps, 0);
    CHECK_EQ(row.episodes, 1);
    CHECK_EQ(row.reward, 0.0);
    CHECK_EQ(row.seed, 100 + row.env_id);  // env i got seeds[i]
  }
  for (int round = 0; round < 20; ++round) {
    std::vector<int32_t> ids = {3, 1, 0, 2};
    std::rotate(ids.begin(), ids.begin() + round % 4, ids.end());
    std::vector<int64_t> actions;
    for (int32_t id : ids) actions.push_back(id + 5);
    Batch batch = d.Step(ids, actions);
    CHECK_EQ(batch.EnvIds(), ids);
    for (const Row& row : batch.rows) CHECK_EQ(row.action, row.env_id + 5);  // its own action
  }
}

TEST(Pool, APartialSyncStepReturnsABatchOfJustThoseEnvs) {
  Driver d({}, 5, 5, 2);
  d.ResetAll();
  Batch batch = d.Step({4, 2}, {7, 8});
  CHECK_EQ(batch.EnvIds(), (std::vector<int32_t>{4, 2}));
  CHECK_EQ(batch.rows[0].action, 7);
  CHECK_EQ(batch.rows[1].action, 8);
  CHECK_EQ(d.pool->pending(), 0);
  Batch reset = d.Reset({1});
  CHECK_EQ(reset.EnvIds(), std::vector<int32_t>{1});
  CHECK_EQ(reset.rows[0].episodes, 2);
  Batch all = d.StepAll(1);  // and a full batch again afterwards
  CHECK_EQ(all.EnvIds(), (std::vector<int32_t>{0, 1, 2, 3, 4}));
  CHECK_EQ(all.rows[4].steps, 2);
  CHECK_EQ(all.rows[1].steps, 1);
}

TEST(Pool, AsyncBatchesHoldEachEnvOnceAndTrackWhatIsInFlight) {
  Driver d({}, 6, 2, 2);
  d.Send(d.AllIds(), {}, /*reset=*/true);
  CHECK_EQ(d.pool->pending(), 6);
  CHECK_EQ(d.pool->HeadNeeds(), 2);
  std::vector<int32_t> seen;
  for (int b = 0; b < 3; ++b) {
    Batch batch = d.Recv();
    REQUIRE_EQ(batch.rows.size(), 2u);
    for (const Row& row : batch.rows) {
      seen.push_back(row.env_id);
      CHECK(!d.pool->in_flight(row.env_id));
    }
    CHECK_EQ(d.pool->pending(), 6 - 2 * (b + 1));
  }
  std::sort(seen.begin(), seen.end());
  CHECK_EQ(seen, d.AllIds());
  // Nothing in flight: a send of fewer envs than a batch is not enough to complete one.
  CHECK(d.pool->CanFillHead(1));  // with nothing in flight, a sealed step always can
  d.Send({0}, {3}, false);
  CHECK(d.pool->in_flight(0));
  CHECK(!d.pool->CanFillHead(0));
  CHECK(d.pool->CanFillHead(1));
  d.Send({5}, {4}, false);
  Batch batch = d.Recv();
  std::vector<int32_t> ids = batch.EnvIds();
  std::sort(ids.begin(), ids.end());
  CHECK_EQ(ids, (std::vector<int32_t>{0, 5}));
}

TEST(Pool, NextStepAutoresetResetsOnTheStepAfterTheEnd) {
  Driver d({{"episode_length", int64_t{2}}}, 1, 1, 1, AutoresetMode::kNextStep);
  d.ResetAll();
  Row r1 = d.StepAll(3).rows[0];
  CHECK_EQ(r1.elapsed, 1);
  CHECK(!r1.terminated);
  Row r2 = d.StepAll(4).rows[0];
  CHECK(r2.terminated);
  CHECK(!r2.truncated);
  CHECK_EQ(r2.elapsed, 2);
  CHECK_EQ(r2.steps, 2);  // the final observation
  CHECK(!r2.has_final);
  CHECK(d.pool->episode_over(0));
  Row r3 = d.StepAll(5).rows[0];  // this action is dropped: the step is a reset
  CHECK(!r3.terminated);
  CHECK_EQ(r3.reward, 0.0);
  CHECK_EQ(r3.elapsed, 0);
  CHECK_EQ(r3.steps, 0);
  CHECK_EQ(r3.episodes, 2);
  CHECK_EQ(r3.action, -1);
  CHECK(!d.pool->episode_over(0));
  Row r4 = d.StepAll(6).rows[0];
  CHECK_EQ(r4.elapsed, 1);
  CHECK_EQ(r4.action, 6);
}

TEST(Pool, SameStepAutoresetReturnsTheNewEpisodeAndTheFinalObservation) {
  Driver d({{"episode_length", int64_t{2}}}, 1, 1, 1, AutoresetMode::kSameStep);
  Row r0 = d.ResetAll().rows[0];
  CHECK(r0.has_final);
  d.StepAll(3);
  Row end = d.StepAll(4).rows[0];
  CHECK(end.terminated);
  CHECK(!d.pool->episode_over(0));  // already reset
  CHECK_EQ(end.final_steps, 2);     // final_obs: the ended episode
  CHECK_EQ(end.final_episodes, 1);
  CHECK_EQ(end.steps, 0);  // obs: the new one
  CHECK_EQ(end.episodes, 2);
  CHECK_NE(end.final_draw, end.draw);  // the reset drew anew
  CHECK_GE(end.reward, 4.0);           // the final step's reward (action + draw)
  Row next = d.StepAll(5).rows[0];
  CHECK(!next.terminated);
  CHECK_EQ(next.elapsed, 1);  // the new episode's first step
  CHECK_EQ(next.steps, 1);
  CHECK_EQ(next.episodes, 2);
}

TEST(Pool, DisabledAutoresetLeavesTheEpisodeOverUntilAReset) {
  // The core only records it; the binding refuses a step of such an env (CheckIds).
  Driver d({{"episode_length", int64_t{1}}}, 2, 2, 1, AutoresetMode::kDisabled);
  d.ResetAll();
  Batch end = d.StepAll(1);
  CHECK(end.rows[0].terminated && end.rows[1].terminated);
  CHECK(!end.rows[0].has_final);
  CHECK(d.pool->episode_over(0));
  CHECK(d.pool->episode_over(1));
  Batch reset = d.Reset({1});
  CHECK_EQ(reset.rows[0].episodes, 2);
  CHECK(d.pool->episode_over(0));
  CHECK(!d.pool->episode_over(1));
}

TEST(Pool, TheTimeLimitTruncatesAndTheNextStepStartsAfresh) {
  Driver d({{"episode_length", int64_t{100}}, {"continue_episodes", true}}, 1, 1, 1,
           AutoresetMode::kNextStep, /*max_episode_steps=*/3);
  d.ResetAll();
  d.StepAll(1);
  d.StepAll(1);
  Row r3 = d.StepAll(1).rows[0];
  CHECK(r3.truncated);
  CHECK(!r3.terminated);
  CHECK(d.pool->episode_over(0));
  Row r4 = d.StepAll(1).rows[0];  // a truncation never continues the clock
  CHECK_EQ(r4.elapsed, 0);
  CHECK_EQ(r4.episodes, 2);
  // Terminated and truncated together, like Gymnasium's TimeLimit.
  Driver both({{"episode_length", int64_t{2}}}, 1, 1, 1, AutoresetMode::kNextStep, 2);
  both.ResetAll();
  both.StepAll(1);
  Row last = both.StepAll(1).rows[0];
  CHECK(last.terminated);
  CHECK(last.truncated);
}

TEST(Pool, AnEnvThatTruncatesItselfEndsTheEpisodeAsTheTimeLimitDoes) {
  // Env::kTruncates: the env's own limit (truncate_at) ends the episode with truncated set,
  // and the next step starts afresh, never through ResetAfterTermination.
  for (bool generic : {false, true}) {
    for (AutoresetMode mode : {AutoresetMode::kNextStep, AutoresetMode::kSameStep}) {
      Driver d({{"episode_length", int64_t{100}},
                {"continue_episodes", true},
                {"truncate_at", int64_t{2}}},
               1, 1, 1, mode, /*max_episode_steps=*/0, 100, generic, /*self_truncating=*/true);
      d.ResetAll();
      Row r1 = d.StepAll(1).rows[0];
      CHECK(!r1.truncated && !r1.terminated);
      Row r2 = d.StepAll(1).rows[0];
      CHECK(r2.truncated);
      CHECK(!r2.terminated);
      CHECK_EQ(r2.elapsed, 2);
      if (mode == AutoresetMode::kNextStep) {
        CHECK(d.pool->episode_over(0));
        Row r3 = d.StepAll(1).rows[0];  // the reset
        CHECK_EQ(r3.elapsed, 0);
        CHECK_EQ(r3.episodes, 2);
      } else {
        CHECK(r2.has_final);
        CHECK_EQ(r2.final_steps, 2);
        CHECK_EQ(r2.episodes, 2);  // already the next episode
        CHECK_EQ(r2.steps, 0);
      }
      Row next = d.StepAll(1).rows[0];
      CHECK_EQ(next.elapsed, 1);  // afresh: a truncation never continues the clock
      CHECK(!next.truncated);
    }
  }
  // With the pool's own limit too, whichever comes first truncates; with a termination on
  // the same step, both flags are set.
  for (bool generic : {false, true}) {
    Driver limit({{"truncate_at", int64_t{5}}}, 1, 1, 1, AutoresetMode::kNextStep, 2, 100, generic,
                 true);
    limit.ResetAll();
    limit.StepAll(1);
    CHECK(limit.StepAll(1).rows[0].truncated);  // the pool's limit (2)
    Driver both({{"episode_length", int64_t{3}}, {"truncate_at", int64_t{3}}}, 1, 1, 1,
                AutoresetMode::kNextStep, 0, 100, generic, true);
    both.ResetAll();
    both.StepAll(1);
    CHECK(!both.StepAll(1).rows[0].truncated);
    Row last = both.StepAll(1).rows[0];
    CHECK(last.terminated);
    CHECK(last.truncated);
    CHECK(both.pool->episode_over(0));
    CHECK_EQ(both.StepAll(1).rows[0].elapsed, 0);
  }
}

TEST(Pool, EnvTruncationIsTheSameInSweepsQueuesAndTheGenericLoops) {
  // The three places the pool computes truncated (Advance's step path, the sync loop's
  // record_step, async chunks) for a self-truncating class, compiled and through the vtable.
  std::vector<std::vector<Row>> results[2];
  for (int generic : {0, 1}) {
    const Config overrides = {{"episode_length", int64_t{7}}, {"truncate_at", int64_t{4}}};
    Driver sync(overrides, 50, 50, 2, AutoresetMode::kNextStep, 0, 100, generic != 0, true);
    results[generic].push_back(sync.ResetAll().rows);
    int truncations = 0;
    for (int round = 0; round < 12; ++round) {
      Batch batch = sync.StepAll(round % 10);
      for (const Row& row : batch.rows) truncations += row.truncated;
      results[generic].push_back(batch.rows);
    }
    CHECK_EQ(truncations, 2 * 50);  // steps 4 and 9 of the 12 (5 and 10 are resets)
    Driver async(overrides, 20, 5, 2, AutoresetMode::kNextStep, 0, 100, generic != 0, true);
    async.Send(async.AllIds(), {}, true);
    std::vector<std::vector<Row>> per_env(20);
    for (int b = 0; b < 40; ++b) {
      Batch batch = async.Recv();
      for (const Row& row : batch.rows) {
        CHECK_EQ(row.truncated, row.elapsed == 4);
        per_env[row.env_id].push_back(row);
      }
      const std::vector<int32_t> ready = batch.EnvIds();
      async.Send(ready, std::vector<int64_t>(ready.size(), 1), false);
    }
    for (std::vector<Row>& rows : per_env) results[generic].push_back(rows);
  }
  REQUIRE_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size(); ++i) {
    const size_t n = std::min(results[0][i].size(), results[1][i].size());
    CHECK(std::equal(results[0][i].begin(), results[0][i].begin() + n, results[1][i].begin()));
  }
}

TEST(Pool, AContinuedEpisodeKeepsTheClockAcrossTerminations) {
  // ResetAfterTermination returning true: elapsed_step and the time limit go on.
  Driver d({{"episode_length", int64_t{2}}, {"continue_episodes", true}}, 1, 1, 1,
           AutoresetMode::kNextStep, /*max_episode_steps=*/5);
  d.ResetAll();
  std::vector<int32_t> elapsed;
  std::vector<int> flags;  // 1 terminated, 2 truncated
  for (int i = 0; i < 8; ++i) {
    Row row = d.StepAll(1).rows[0];
    elapsed.push_back(row.elapsed);
    flags.push_back(row.terminated + 2 * row.truncated);
  }
  // steps: 1, 2 (terminated), autoreset continuing at 2, 3, 4 (terminated), autoreset at 4,
  // 5 (truncated: the limit counts across both), autoreset afresh at 0.
  CHECK_EQ(elapsed, (std::vector<int32_t>{1, 2, 2, 3, 4, 4, 5, 0}));
  CHECK_EQ(flags, (std::vector<int>{0, 1, 0, 0, 1, 0, 2, 0}));
  // An explicit reset never continues.
  d.StepAll(1);
  d.StepAll(1);  // terminated (steps 2 of this episode)
  CHECK(d.pool->episode_over(0));
  CHECK_EQ(d.ResetAll().rows[0].elapsed, 0);
}

TEST(Pool, SameStepAutoresetOfAContinuedEpisodeKeepsTheClock) {
  Driver d({{"episode_length", int64_t{2}}, {"continue_episodes", true}}, 1, 1, 1,
           AutoresetMode::kSameStep, /*max_episode_steps=*/0);
  d.ResetAll();
  std::vector<int32_t> elapsed;
  for (int i = 0; i < 5; ++i) elapsed.push_back(d.StepAll(1).rows[0].elapsed);
  CHECK_EQ(elapsed, (std::vector<int32_t>{1, 2, 3, 4, 5}));
}

// Runs a fixed, per-env schedule: each env's next action depends only on its own history, so
// every env's trajectory is the same whatever the thread count or the batch order.
std::map<int32_t, std::vector<Row>> AsyncTrajectories(int num_threads, int batch_size) {
  Driver d({{"episode_length", int64_t{4}}}, 8, batch_size, num_threads, AutoresetMode::kNextStep,
           /*max_episode_steps=*/7, /*first_seed=*/1234);
  std::map<int32_t, std::vector<Row>> out;
  d.Send(d.AllIds(), {}, /*reset=*/true);
  // Until every env has 40 results: how many each gets in a given number of batches depends
  // on the threads' timing (async batches hold the first envs to finish), its results do not.
  auto fewest = [&] {
    size_t least = SIZE_MAX;
    for (int32_t id = 0; id < 8; ++id) least = std::min(least, out[id].size());
    return least;
  };
  while (fewest() < 40) {
    Batch batch = d.Recv();
    std::vector<int32_t> ids;
    std::vector<int64_t> actions;
    for (const Row& row : batch.rows) {
      out[row.env_id].push_back(row);
      ids.push_back(row.env_id);
      actions.push_back((row.env_id * 7 + static_cast<int64_t>(out[row.env_id].size())) % 10);
    }
    d.Send(ids, actions, false);
  }
  for (auto& [id, rows] : out) rows.resize(std::min<size_t>(rows.size(), 40));
  return out;
}

// Prints the first row where two runs of AsyncTrajectories differ (for a failing CHECK).
void PrintFirstDifference(const std::map<int32_t, std::vector<Row>>& a,
                          const std::map<int32_t, std::vector<Row>>& b) {
  for (const auto& [id, rows] : a) {
    if (!b.count(id)) {
      std::fprintf(stderr, "env %d: missing\n", id);
      continue;
    }
    const auto& other = b.at(id);
    if (rows.size() != other.size()) {
      std::fprintf(stderr, "env %d: %zu rows / %zu rows\n", id, rows.size(), other.size());
    }
    for (size_t i = 0; i < std::min(rows.size(), other.size()); ++i) {
      if (rows[i] == other[i]) continue;
      const Row& x = rows[i];
      const Row& y = other[i];
      std::fprintf(stderr,
                   "env %d row %zu: steps %lld/%lld episodes %lld/%lld action %lld/%lld elapsed "
                   "%d/%d term %d/%d trunc %d/%d draw %g/%g\n",
                   id, i, (long long)x.steps, (long long)y.steps, (long long)x.episodes,
                   (long long)y.episodes, (long long)x.action, (long long)y.action, x.elapsed,
                   y.elapsed, x.terminated, y.terminated, x.truncated, y.truncated, x.draw, y.draw);
      return;
    }
  }
}

TEST(Pool, SameSeedsGiveTheSameTrajectoriesOnAnyNumberOfThreads) {
  for (int batch_size : {8, 3}) {
    const auto one = AsyncTrajectories(1, batch_size);
    const auto two = AsyncTrajectories(2, batch_size);
    const auto four = AsyncTrajectories(4, batch_size);
    REQUIRE_EQ(one.size(), 8u);
    for (const auto& [id, rows] : one) CHECK_EQ(rows.size(), 40u);
    CHECK(one == two);
    if (one != two) PrintFirstDifference(one, two);
    CHECK(one == four);
    if (one != four) PrintFirstDifference(one, four);
  }
  // And the draws really depend on the seed (the comparison above is not vacuous).
  Driver a({}, 1, 1, 1, AutoresetMode::kNextStep, 0, 1);
  Driver b({}, 1, 1, 1, AutoresetMode::kNextStep, 0, 2);
  CHECK_NE(a.ResetAll().rows[0].draw, b.ResetAll().rows[0].draw);
}

TEST(Pool, EnvsDrawFromGeneratorsSeededWithTheirSeedEvenWhenBuiltOnThreads) {
  // build_us makes construction slow enough that the pool builds envs on its threads.
  for (int64_t build_us : {0, 300}) {
    Driver d({{"build_us", build_us}}, 6, 6, 3, AutoresetMode::kNextStep, 0, 1000);
    Batch reset = d.ResetAll();
    for (const Row& row : reset.rows) {
      NumpyGenerator expected(static_cast<uint64_t>(1000 + row.env_id));
      CHECK_EQ(row.seed, 1000 + row.env_id);
      CHECK_EQ(row.draw, expected.Random());
    }
  }
}

TEST(Pool, ReseedRestartsAnEnvsStream) {
  Driver d({}, 2, 2, 1);
  d.ResetAll();
  d.StepAll(1);
  d.pool->Reseed(1, 77);
  Batch reset = d.ResetAll();
  CHECK_EQ(reset.rows[1].draw, NumpyGenerator(77).Random());
  NumpyGenerator env0(100);
  env0.Random();                                // its first reset
  env0.Random();                                // its step
  CHECK_EQ(reset.rows[0].draw, env0.Random());  // untouched
}

TEST(Pool, AnEnvErrorIsCapturedInTheBlockAndTheOthersGoOn) {
  for (int threads : {1, 2}) {
    Driver d({{"fail_at_step", int64_t{2}}, {"fail_seed", int64_t{102}}}, 4, 4, threads);
    d.ResetAll();
    d.StepAll(1);
    Batch failed = d.StepAll(1);
    CHECK(failed.failed);
    CHECK_EQ(failed.failed_env, 2);
    CHECK(check::Contains(failed.error, "boom at step 2"));
    CHECK_EQ(failed.EnvIds(), (std::vector<int32_t>{0, 1, 2, 3}));  // every row's env id
    CHECK_EQ(d.pool->pending(), 0);
    for (int i = 0; i < 4; ++i) CHECK(!d.pool->in_flight(i));
    CHECK(d.pool->episode_over(2));
    Batch next = d.StepAll(1);  // the failed env starts a new episode, the others step on
    CHECK(!next.failed);
    CHECK_EQ(next.rows[2].elapsed, 0);
    CHECK_EQ(next.rows[2].episodes, 2);
    CHECK_EQ(next.rows[0].elapsed, 3);
  }
}

TEST(Pool, ANonStdExceptionIsCapturedToo) {
  Driver d({{"fail_at_step", int64_t{1}}, {"throw_non_std", true}}, 2, 2, 1);
  d.ResetAll();
  Batch failed = d.StepAll(1);
  CHECK(failed.failed);
  CHECK(check::Contains(failed.error, "unknown C++ exception"));
}

TEST(Pool, AFailureInAnAsyncBatchReportsTheEnvThatThrew) {
  Driver d({{"fail_at_step", int64_t{1}}, {"fail_seed", int64_t{105}}}, 8, 4, 2);
  d.Send(d.AllIds(), {}, true);
  std::vector<int32_t> ready;
  for (int b = 0; b < 2; ++b) {
    for (const Row& row : d.Recv().rows) ready.push_back(row.env_id);
  }
  d.Send(ready, std::vector<int64_t>(ready.size(), 1), false);
  int failures = 0;
  for (int b = 0; b < 2; ++b) {
    Batch batch = d.Recv();
    if (batch.failed) {
      ++failures;
      CHECK_EQ(batch.failed_env, 5);
      const std::vector<int32_t> ids = batch.EnvIds();
      CHECK(std::find(ids.begin(), ids.end(), 5) != ids.end());
    }
  }
  CHECK_EQ(failures, 1);
  CHECK_EQ(d.pool->pending(), 0);
}

TEST(Pool, AnEnvThatCannotBeBuiltFailsTheConstructor) {
  for (int64_t build_us : {0, 300}) {
    for (int64_t bad : {100, 103}) {  // the first env (built on the caller) or a later one
      const std::string message = "cannot build env " + std::to_string(bad);
      CHECK_THROWS_WITH(std::runtime_error, message.c_str(),
                        Driver({{"fail_build_seed", bad}, {"build_us", build_us}}, 5, 5, 2));
    }
  }
}

// The env behind an id, to look at what Render() recorded.
TinyEnv& EnvOf(Driver& d, int32_t id) { return static_cast<TinyEnv&>(d.pool->env(id)); }

TEST(Pool, RenderDrawsEachRequestedEnvIntoItsFrameOnTheWorkers) {
  Driver d({{"episode_length", int64_t{100}}}, 4, 4, 2);
  d.ResetAll();
  d.StepAll(1);
  d.Step({2}, {1});  // env 2 is one step ahead
  const std::vector<int32_t> ids = {2, 0, 3};
  std::vector<uint8_t> rgb(ids.size() * 5 * 3 * 3, 0xEE);
  CHECK(d.pool->Render(ids.data(), ids.size(), -1, 5, 3, rgb.data()).empty());
  for (size_t f = 0; f < ids.size(); ++f) {
    for (size_t p = 0; p < 15; ++p) {
      const uint8_t* px = rgb.data() + (f * 15 + p) * 3;
      CHECK_EQ(px[0], ids[f] == 2 ? 2 : 1);  // steps
      CHECK_EQ(px[1], 1);                    // episodes
      CHECK_EQ(px[2], 100 + ids[f]);         // seed
    }
    CHECK(EnvOf(d, ids[f]).render_thread != std::this_thread::get_id());
  }
  CHECK(EnvOf(d, 1).render_thread == std::thread::id());  // not asked for, not drawn
  // Drawing changed nothing: the next step goes on from where the envs were.
  const Batch next = d.StepAll(1);
  CHECK_EQ(next.rows[2].steps, 3);
  CHECK_EQ(next.rows[0].steps, 2);
}

TEST(Pool, ARenderErrorNamesTheEnvAndLeavesThePoolUsable) {
  Driver d({{"episode_length", int64_t{100}}}, 3, 3, 2);
  d.ResetAll();
  const std::vector<int32_t> ids = {0, 1, 2};
  std::vector<uint8_t> rgb(3 * 4 * 2 * 3);
  const std::string error = d.pool->Render(ids.data(), ids.size(), 0, 4, 2, rgb.data());
  CHECK(error.find("failed to render: camera 0 is broken") != std::string::npos);
  CHECK(error.rfind("env ", 0) == 0);
  CHECK(d.pool->Render(ids.data(), ids.size(), -1, 4, 2, rgb.data()).empty());
  CHECK_EQ(d.StepAll(1).rows[1].steps, 1);
}

TEST(Pool, IdleEnvsRenderWhileOthersAreInFlight) {
  Driver d({{"episode_length", int64_t{100}}}, 4, 2, 2);
  d.Send(d.AllIds(), {}, true);
  const Batch first = d.Recv();  // two envs delivered, two still in flight
  std::vector<int32_t> idle = first.EnvIds();
  std::vector<uint8_t> rgb(2 * 4 * 2 * 3);
  CHECK(d.pool->Render(idle.data(), idle.size(), -1, 4, 2, rgb.data()).empty());
  CHECK_EQ(rgb[2], 100 + idle[0]);
  CHECK_EQ(rgb[24 + 2], 100 + idle[1]);
  CHECK_EQ(d.Recv().rows.size(), 2u);
}

TEST(Pool, AWorkersOnlyEnvIsNeverSteppedByTheCaller) {
  Driver d({{"workers_only", true}, {"episode_length", int64_t{100}}}, 4, 4, 2);
  d.ResetAll();
  for (int t = 0; t < 20; ++t) {
    // The caller waits, yet leaves every env to the workers.
    const std::vector<int32_t> ids = d.AllIds();
    for (int32_t id : ids) std::memset(d.pool->action_slot(id), 0, d.pool->action_bytes());
    d.pool->Enqueue(ids.data(), ids.size(), false, true, /*caller_waits=*/true);
    Block* block = d.pool->Wait();
    CHECK(d.pool->Deliver() == block);
    d.pool->arena()->AddRef();
    d.pool->arena()->EndLease(block);
    for (int32_t id : ids) CHECK(EnvOf(d, id).step_thread != std::this_thread::get_id());
  }
}

TEST(Pool, AStepOfOneEnvIsTakenByTheWaitingCaller) {
  // One env is one run, which the caller claims itself: no worker is woken for it.
  Driver d({{"episode_length", int64_t{1000}}}, 4, 4, 2);
  d.ResetAll();
  for (int t = 0; t < 20; ++t) {
    Batch batch = d.Step({2}, {9});
    CHECK_EQ(batch.EnvIds(), std::vector<int32_t>{2});
    CHECK(EnvOf(d, 2).step_thread == std::this_thread::get_id());
  }
}

TEST(Pool, ASweepOfManyEnvsWritesEveryRowOnceInSendOrder) {
  // Enough envs for runs of several envs each, stepped by the caller and two workers.
  const int n = 1000;
  Driver d({{"episode_length", int64_t{1000}}}, n, n, 2);
  d.ResetAll();
  std::vector<int32_t> ids = d.AllIds();
  std::reverse(ids.begin(), ids.end());
  std::vector<int64_t> actions;
  for (int32_t id : ids) actions.push_back(id % 10);
  for (int round = 1; round <= 30; ++round) {
    Batch batch = d.Step(ids, actions);
    CHECK_EQ(batch.EnvIds(), ids);
    for (const Row& row : batch.rows) {
      CHECK_EQ(row.action, row.env_id % 10);
      CHECK_EQ(row.steps, round);
      CHECK_EQ(row.elapsed, round);
    }
  }
}

TEST(Pool, AnEnvClassesOwnLoopsGiveWhatTheGenericLoopsGive) {
  // MakeEnvType<E> hands the pool loops that call E directly (Pool::Kernels); the results
  // must be those of the loops that call through the vtable, row for row: sweeps (a sync
  // step of every env, in a scrambled order), partial steps, time limits, errors, and the
  // queue (async sends while others are in flight).
  for (AutoresetMode mode : {AutoresetMode::kNextStep, AutoresetMode::kSameStep}) {
    std::vector<std::vector<Row>> results[2];
    for (int generic : {0, 1}) {
      const Config overrides = {{"episode_length", int64_t{5}},
                                {"fail_at_step", int64_t{4}},
                                {"fail_seed", int64_t{103}}};
      Driver sync(overrides, 300, 300, 2, mode, 7, 100, generic != 0);
      std::vector<int32_t> ids = sync.AllIds();
      std::reverse(ids.begin(), ids.begin() + 150);
      std::vector<int64_t> actions(ids.size());
      results[generic].push_back(sync.ResetAll().rows);
      for (int round = 0; round < 12; ++round) {
        for (size_t i = 0; i < ids.size(); ++i) actions[i] = (ids[i] + round) % 10;
        Batch batch = sync.Step(ids, actions);
        results[generic].push_back(batch.rows);
        results[generic].push_back({Row{.env_id = batch.failed ? batch.failed_env : -1}});
        if (round % 4 == 3) results[generic].push_back(sync.Step({5, 1, 250}, {1, 2, 3}).rows);
      }
      // Async: which envs make each batch varies from run to run, each env's own rows not.
      Driver async({{"episode_length", int64_t{5}}}, 40, 10, 2, mode, 7, 100, generic != 0);
      async.Send(async.AllIds(), {}, true);
      std::vector<std::vector<Row>> per_env(40);
      for (int b = 0; b < 60; ++b) {
        Batch batch = async.Recv();
        for (Row row : batch.rows) {
          // A row's final observation is written only when its episode ended; otherwise the
          // recycled block holds whatever an earlier batch left there.
          if (!row.terminated && !row.truncated) row.final_steps = row.final_episodes = -1;
          if (!row.terminated && !row.truncated) row.final_draw = -1;
          per_env[row.env_id].push_back(row);
        }
        const std::vector<int32_t> ready = batch.EnvIds();
        std::vector<int64_t> actions(ready.size());
        for (size_t i = 0; i < ready.size(); ++i) actions[i] = ready[i] % 10;
        async.Send(ready, actions, false);
      }
      for (std::vector<Row>& rows : per_env) results[generic].push_back(rows);
    }
    // Sync rows compare whole; each env's async rows up to the shorter of its two runs.
    REQUIRE_EQ(results[0].size(), results[1].size());
    for (size_t i = 0; i < results[0].size(); ++i) {
      const size_t n = std::min(results[0][i].size(), results[1][i].size());
      CHECK(i + 40 >= results[0].size() || results[0][i].size() == results[1][i].size());
      CHECK_GE(n, i + 40 >= results[0].size() ? 5u : 1u);
      CHECK(std::equal(results[0][i].begin(), results[0][i].begin() + n, results[1][i].begin()));
    }
  }
}

TEST(Pool, ASweepLongerThanABatchFillsSeveralBlocks) {
  // An async pool's first send sweeps 3 batches' worth of envs; runs cross block boundaries
  // (RunLength is not a divisor of 7), and every batch still holds 7 distinct envs.
  Driver d({{"episode_length", int64_t{1000}}}, 21, 7, 2);
  d.Send(d.AllIds(), {}, /*reset=*/true);
  std::vector<int32_t> seen;
  for (int b = 0; b < 3; ++b) {
    Batch batch = d.Recv();
    REQUIRE_EQ(batch.rows.size(), 7u);
    for (const Row& row : batch.rows) seen.push_back(row.env_id);
  }
  CHECK_EQ(seen, d.AllIds());  // a sweep's rows follow the send's order
  CHECK_EQ(d.pool->pending(), 0);
}

TEST(Pool, ALeasedBatchIsNeverOverwritten) {
  Driver d({{"episode_length", int64_t{1000}}}, 3, 3, 2);
  d.ResetAll();
  const std::vector<int32_t> ids = d.AllIds();
  for (int32_t id : ids) std::memset(d.pool->action_slot(id), 0, d.pool->action_bytes());
  d.pool->Enqueue(ids.data(), ids.size(), false, true, /*caller_waits=*/false);
  d.pool->Wait();
  Block* held = d.pool->Deliver();
  d.pool->arena()->AddRef();  // Python holds its arrays
  std::vector<char> copy(held->memory, held->memory + d.pool->layout().total_bytes);
  for (int i = 0; i < 20; ++i) d.StepAll(i % 10);
  CHECK(std::equal(copy.begin(), copy.end(), held->memory));
  CHECK_GE(d.pool->arena()->num_blocks(), 2u);
  d.pool->arena()->EndLease(held);
}

TEST(Pool, ALeaseOutlivesItsPool) {
  auto d = std::make_unique<Driver>(Config{}, 2, 2, 2);
  d->ResetAll();
  const std::vector<int32_t> ids = d->AllIds();
  for (int32_t id : ids) std::memset(d->pool->action_slot(id), 0, d->pool->action_bytes());
  d->pool->Enqueue(ids.data(), ids.size(), false, true, /*caller_waits=*/false);
  d->pool->Wait();
  Block* held = d->pool->Deliver();
  BlockArena* arena = d->pool->arena();
  arena->AddRef();
  const int32_t second = reinterpret_cast<const int32_t*>(held->key_bases[kEnvId])[1];
  d.reset();  // the pool goes; the arrays stay valid (ENVFLEET_SANITIZE=address checks it)
  CHECK_EQ(reinterpret_cast<const int32_t*>(held->key_bases[kEnvId])[1], second);
  arena->EndLease(held);
}

TEST(Pool, CloseIsIdempotentAndStopsTheWorkers) {
  for (int threads : {1, 4}) {
    Driver d({}, 3, 3, threads);
    d.ResetAll();
    d.StepAll(2);
    CHECK(!d.pool->closed());
    d.pool->Close();
    CHECK(d.pool->closed());
    d.pool->Close();
    CHECK(d.pool->closed());
  }
}

TEST(Pool, ClosingWithActionsInFlightFinishesThem) {
  // Close() runs what is queued before the workers exit, so nothing hangs and nothing leaks.
  Driver d({}, 8, 2, 2);
  d.Send(d.AllIds(), {}, true);
  d.pool->Close();
  CHECK(d.pool->closed());
}

}  // namespace
}  // namespace envfleet
