// Procgen's 16 games (OpenAI Procgen 0.10.7), each env one game run by procgen's own engine
// library (libenv.h), with EnvPool 1.2.5's options and spec.
//
// References:
//   procgen 0.10.7  procgen/env.py (ProcgenGym3Env: options, distribution modes, the
//                   exploration levels), procgen/gym_registration.py (one env = one libenv
//                   instance with num_threads 0, as here), procgen/src/game.cpp (Game::step:
//                   an episode's end resets the game inside the step; action -1 forces it)
//   EnvPool 1.2.5   envpool/procgen/procgen_env.h, registration.py (option names and
//                   defaults, the spec: channel-first 3x64x64 uint8, Discrete(15), info
//                   prev_level_seed, prev_level_complete, level_seed)
//
// Seeding: an env seeded s is procgen's ProcgenGym3Env(num=1, rand_seed=s) (and gym.make's
// procgen env with that rand_seed): the seed picks the sequence of levels drawn from
// [start_level, start_level + num_levels) (all levels when num_levels is 0); each level is the
// same world for everyone. procgen takes a 32-bit seed: s counts modulo 2**32.
//
// Episodes: procgen ends an episode inside the step that ends it and starts the next level
// at once, so the observation of that step is already the next episode's first frame (procgen
// has no final frame to show; every procgen interface returns this one). The autoreset step
// that follows returns the same frame, with the new level's info, and draws nothing: the
// levels played are exactly procgen's sequence for the seed. An explicit reset in mid-episode
// is procgen's own forced reset (action -1: one step of the default action, then a new level;
// its reward is dropped). terminated: the game ended the episode (death or success);
// truncated: it ended because the game's own time limit (Game::timeout, read from the engine:
// 1000 steps in most games, 500 in leaper and maze, 2000 in jumper's memory mode, 4000 in
// bossfight and plunder, 6000 in bigfish) ran out, which is also the id's max_episode_steps.
// With use_sequential_levels a completed level goes straight on to the next within the same
// episode, as in procgen.
//
// render() is procgen's render_mode="rgb_array" frame: the current state drawn at 512x512
// with antialiasing, by the engine.
//
// Where this differs from EnvPool 1.2.5, which compiles procgen with its auto-reset patched
// out (third_party/procgen/envpool.patch): there the step that ends an episode shows the
// level's last frame (a frame procgen itself never shows) and the next reset starts the next
// level; with use_sequential_levels a completed level ends the episode. Here every frame is
// procgen's own, as every procgen interface shows them. EnvPool's env i with seed s plays
// ProcgenGym3Env(num=N, rand_seed=s)'s env i; here env i is seeded s + i (envfleet's rule) and
// plays ProcgenGym3Env(num=1, rand_seed=s + i), so env 0 plays the same levels in both.
// JumperMemory's time limit is procgen's 2000 steps (EnvPool registers 1000).
#ifndef ENVFLEET_FAMILIES_PROCGEN_PROCGEN_ENV_H_
#define ENVFLEET_FAMILIES_PROCGEN_PROCGEN_ENV_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/image/planar.h"
#include "core/env.h"
#include "core/spec.h"
#include "families/procgen/libenv.h"

namespace envfleet {
namespace procgen {

// procgen's distribution modes (DistributionMode in game.h; exploration is env.py's).
enum Mode : int64_t { kEasy = 0, kHard = 1, kExtreme = 2, kMemory = 10, kExploration = 20 };

struct GameInfo {
  const char* name;
  bool extreme;               // Game::parse_options accepts ExtremeMode
  bool memory;                // ... MemoryMode
  int32_t exploration_level;  // env.py's EXPLORATION_LEVEL_SEEDS; -1: no exploration mode
};

inline constexpr std::array<GameInfo, 16> kGames = {{
    {"bigfish", false, false, -1},
    {"bossfight", false, false, -1},
    {"caveflyer", false, true, 1259048185},
    {"chaser", true, false, -1},
    {"climber", false, false, 1561126160},
    {"coinrun", false, false, 1949448038},
    {"dodgeball", true, true, -1},
    {"fruitbot", false, false, -1},
    {"heist", false, true, 876640971},
    {"jumper", false, true, 1434825276},
    {"leaper", true, false, 1318677581},
    {"maze", false, true, 158988835},
    {"miner", false, true, -1},
    {"ninja", false, false, 1123500215},
    {"plunder", false, false, -1},
    {"starpilot", true, false, -1},
}};

inline const GameInfo& FindGame(const std::string& name) {
  for (const GameInfo& g : kGames) {
    if (name == g.name) return g;
  }
  std::string names;
  for (const GameInfo& g : kGames) names += std::string(names.empty() ? "" : ", ") + g.name;
  throw std::invalid_argument("env_name must be one of procgen's games (" + names + "), got '" +
                              name + "'");
}

// libenv_make's options for `config` and rand_seed `seed`, every value checked first (libenv
// exits the process on a bad one).
inline OptionList EngineOptions(const Config& config, uint64_t seed,
                                bool generated_assets_allowed = true) {
  const std::string name = config.Get<std::string>("env_name");
  const GameInfo& game = FindGame(name);
  int64_t mode = config.Get<int64_t>("distribution_mode");
  int64_t num_levels = config.Get<int64_t>("num_levels");
  int64_t start_level = config.Get<int64_t>("start_level");
  constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
  if (num_levels < 0 || num_levels > kIntMax) {
    throw std::invalid_argument("num_levels must be in [0, 2**31 - 1] (0: every level), got " +
                                std::to_string(num_levels));
  }
  if (start_level < 0 || start_level > kIntMax) {
    throw std::invalid_argument("start_level must be in [0, 2**31 - 1], got " +
                                std::to_string(start_level));
  }
  if (num_levels > 0 && start_level + num_levels > kIntMax) {
    throw std::invalid_argument("start_level + num_levels must be at most 2**31 - 1, got " +
                                std::to_string(start_level + num_levels));
  }
  const bool mode_ok = mode == kEasy || mode == kHard || (mode == kExtreme && game.extreme) ||
                       (mode == kMemory && game.memory) ||
                       (mode == kExploration && game.exploration_level >= 0);
  if (!mode_ok) {
    std::string allowed = "0 (easy), 1 (hard)";
    if (game.extreme) allowed += ", 2 (extreme)";
    if (game.memory) allowed += ", 10 (memory)";
    if (game.exploration_level >= 0) allowed += ", 20 (exploration)";
    throw std::invalid_argument("distribution_mode for " + name + " must be one of " + allowed +
                                ", got " + std::to_string(mode));
  }
  if (mode == kExploration) {  // env.py: one fixed level, in hard mode
    if (num_levels != 0 || start_level != 0) {
      throw std::invalid_argument(
          "exploration mode (distribution_mode 20) plays one fixed level: num_levels and "
          "start_level must be left at 0");
    }
    num_levels = 1;
    start_level = game.exploration_level;
    mode = kHard;
  }
  OptionList o;
  o.String("env_name", name);
  o.Int("num_levels", static_cast<int32_t>(num_levels));
  o.Int("start_level", static_cast<int32_t>(start_level));
  o.Int("num_actions", kNumActions);
  o.Int("rand_seed", static_cast<int32_t>(static_cast<uint32_t>(seed)));
  o.Int("num_threads", 0);
  o.String("resource_root", AssetRoot());
  o.Bool("render_human", true);
  o.Bool("use_easy_jump", config.Get<bool>("use_easy_jump"));
  o.Bool("paint_vel_info", config.Get<bool>("paint_vel_info"));
  o.Bool("use_generated_assets",
         generated_assets_allowed && config.Get<bool>("use_generated_assets"));
  o.Bool("use_monochrome_assets", config.Get<bool>("use_monochrome_assets"));
  o.Bool("restrict_themes", config.Get<bool>("restrict_themes"));
  o.Bool("use_backgrounds", config.Get<bool>("use_backgrounds"));
  o.Bool("center_agent", config.Get<bool>("center_agent"));
  o.Bool("use_sequential_levels", config.Get<bool>("use_sequential_levels"));
  o.Int("distribution_mode", static_cast<int32_t>(mode));
  return o;
}

// The game's time limit (Game::timeout), read from `game` after its first reset (jumper sets
// its memory mode's limit there). procgen refuses to serialize a game that draws generated
// assets (it asserts and exits), so the limit of such a game is read from a twin without them:
// the assets do not change it.
inline int GameTimeout(const Config& config, const LibenvGame* game) {
  if (game != nullptr && !config.Get<bool>("use_generated_assets")) return game->Timeout();
  OptionList options = EngineOptions(config, 0, /*generated_assets_allowed=*/false);
  return LibenvGame(options).Timeout();
}

class ProcgenEnv : public Env {
 public:
  static constexpr bool kTruncates = true;

  static Config DefaultConfig() {
    return {{"env_name", std::string("bigfish")},
            {"channel_first", true},
            {"num_levels", int64_t{0}},
            {"start_level", int64_t{0}},
            {"use_sequential_levels", false},
            {"center_agent", true},
            {"use_backgrounds", true},
            {"use_monochrome_assets", false},
            {"restrict_themes", false},
            {"use_generated_assets", false},
            {"paint_vel_info", false},
            {"use_easy_jump", false},
            {"distribution_mode", int64_t{kHard}}};
  }

  static EnvSpec Spec(const Config& config) {
    EngineOptions(config, 0);  // checks the options
    EnvSpec spec;
    const std::vector<int64_t> shape = config.Get<bool>("channel_first")
                                           ? std::vector<int64_t>{3, kRes, kRes}
                                           : std::vector<int64_t>{kRes, kRes, 3};
    spec.obs = {Box("obs", DType::kUint8, shape, {0.0}, {255.0})};
    spec.info = {Box("prev_level_seed", DType::kInt32, {}, {}, {}),
                 Box("prev_level_complete", DType::kInt32, {}, {}, {}),
                 Box("level_seed", DType::kInt32, {}, {}, {})};
    spec.action = Discrete("action", kNumActions);
    spec.render = {kRenderRes, kRenderRes, /*resizable=*/false, /*fps=*/15.0, /*num_cameras=*/0};
    // The pool's time limit is the game's, but for use_sequential_levels, whose episodes run
    // through any number of levels, each with its own clock (the env truncates those itself).
    spec.time_limit = config.Get<bool>("use_sequential_levels") ? 0 : GameTimeout(config, nullptr);
    return spec;
  }

  ProcgenEnv(const Config& config, uint64_t seed)
      : Env(seed),
        config_(config),
        channel_first_(config.Get<bool>("channel_first")),
        sequential_(config.Get<bool>("use_sequential_levels")) {
    Start(seed);
  }

  // Gymnasium's reset(seed=...): the same game from a new rand_seed.
  void Seed(uint64_t seed) override {
    Env::Seed(seed);
    Start(seed);
  }

  void Reset() override {
    if (!at_episode_start_) {
      game_->Act(-1);  // procgen's forced reset
      steps_ = 0;
      at_episode_start_ = true;
    }
    reward_ = 0.0;
    terminated_ = truncated_ = false;
  }

  void Step(const void* action) override {
    game_->Act(static_cast<int32_t>(*static_cast<const int64_t*>(action)));
    reward_ = game_->reward();
    ++steps_;
    const bool done = game_->first();
    truncated_ = done && steps_ >= timeout_;
    terminated_ = done && !truncated_;
    at_episode_start_ = done;
    // use_sequential_levels: a completed level went on to the next one (new clock, same episode)
    if (done || (sequential_ && game_->prev_level_complete())) steps_ = 0;
  }

  void Write(const OutputSlot& out) const override {
    const uint8_t* hwc = game_->obs();
    uint8_t* obs = out.Get<uint8_t>(0);
    if (channel_first_) {
      image::InterleavedToPlanar(hwc, obs, size_t{kRes} * kRes);
    } else {
      std::memcpy(obs, hwc, size_t{kRes} * kRes * 3);
    }
    *out.Get<int32_t>(1) = game_->prev_level_seed();
    *out.Get<int32_t>(2) = game_->prev_level_complete() ? 1 : 0;
    *out.Get<int32_t>(3) = game_->level_seed();
  }

  void Render(int /*camera_id*/, int width, int height, uint8_t* rgb) override {
    (void)width, (void)height;  // the spec's 512x512, not resizable
    std::memcpy(rgb, game_->RenderFrame(), size_t{kRenderRes} * kRenderRes * 3);
  }

 private:
  void Start(uint64_t seed) {
    OptionList options = EngineOptions(config_, seed);
    game_.reset();  // one engine instance at a time
    game_ = std::make_unique<LibenvGame>(options);
    timeout_ = GameTimeout(config_, game_.get());
    steps_ = 0;
    at_episode_start_ = true;
  }

  Config config_;
  bool channel_first_;
  bool sequential_;
  std::unique_ptr<LibenvGame> game_;
  int64_t timeout_ = 0;
  int64_t steps_ = 0;  // steps in the current level, procgen's cur_time
  bool at_episode_start_ = true;
};

}  // namespace procgen
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_PROCGEN_PROCGEN_ENV_H_
