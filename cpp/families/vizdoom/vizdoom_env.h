// Doom scenarios through ViZDoom 1.3.2 (engine from the vizdoom wheel, client library built from
// the vizdoom sdist; see cpp/families/vizdoom/vizdoom.cmake), with EnvPool's options, spec,
// reward and preprocessing.
//
// References:
//   ViZDoom 1.3.2   src/lib/ViZDoomGame.cpp (DoomGame: config files, episodes, actions, state)
//   EnvPool 1.2.5   envpool/vizdoom/vizdoom_env.h and utils.h (options and defaults, the
//                   combined action set, the reward from game variables, the info keys,
//                   resize and frame stack)
//
// One env is one engine process (a DoomGame), started by the supervisor program
// (supervisor.cc) so that it never outlives its owner and ignores a terminal's Ctrl-C. The
// scenario's .cfg is loaded as ViZDoom loads it; then, as EnvPool does: window hidden, PLAYER
// mode, game_args added, scenario WAD and map as given, and the 16 game variables of the info
// added to the available ones. The engine's own episode timeout is turned off: the pool's
// max_episode_steps truncates (EnvPool sets the timeout one step past it, which has the same
// effect while a limit is set).
//
// A step: the action (a button vector, or with use_combined_action an index into EnvPool's
// enumeration of button combinations) is held for frame_skip tics (DoomGame::advanceAction);
// terminated when the episode is finished (or, with episodic_life, when the player is dead).
// The reward is EnvPool's: over the available game variables, each change times its positive
// or negative weight (reward_config; DAMAGECOUNT changes capped at 200 and HITCOUNT at 5 per
// step; HEALTH's -999900 "dead" readings replaced by the last real value), plus
// selected_weapon_reward_config[w] once weapon w has been held for weapon_duration steps with
// ammo. Weights are float32, as EnvPool stores them, and the sum is float32 in the same order.
// HITCOUNT, DAMAGECOUNT and DEATHCOUNT are counted from the episode's start (the engine does
// not reset them on a new episode). A step that ends the episode has no game state: reward 0,
// and the observation and info of the step before, as in EnvPool.
//
// Observations: each channel plane of the screen buffer (planar or interleaved formats alike)
// resized to img_height x img_width with OpenCV's INTER_AREA (or INTER_LINEAR) arithmetic
// (common/image/resize.h), stacked stack_num deep, oldest first, channel-first; a new episode
// fills the stack with its first frame (frame_stack.h). The depth, labels and automap buffers
// can be observed the same way (extra obs keys). render() is the engine's full screen as RGB.
//
// Where this deliberately differs from EnvPool 1.2.5: an explicit reset() always starts a new
// episode (EnvPool plays a no-op step when the episode is not over); screens are never
// enlarged (img_height/img_width at most the cfg's resolution); unknown names in reward_config
// and delta_button_config raise; demo files (lmp_save_dir) are named by the env's seed
// (env_<seed>_<episode>.lmp), since an env does not know its index in the pool.
#ifndef ENVFLEET_FAMILIES_VIZDOOM_VIZDOOM_ENV_H_
#define ENVFLEET_FAMILIES_VIZDOOM_VIZDOOM_ENV_H_

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "ViZDoom.h"
#include "ViZDoomController.h"
#include "common/files.h"
#include "core/env.h"
#include "core/signal_mask.h"
#include "core/spec.h"
#include "families/vizdoom/frame_stack.h"
#include "families/vizdoom/names.h"
#include "families/vizdoom/scratch_dir.h"

namespace envfleet {
namespace vizdoom {

namespace vzd = ::vizdoom;

// EnvPool's info keys (the game variables it adds to every scenario), in its spec's order.
constexpr std::array<vzd::GameVariable, 16> kInfoVariables = {
    vzd::AMMO2,  vzd::AMMO3,    vzd::AMMO4,       vzd::AMMO5,           vzd::AMMO6,
    vzd::AMMO7,  vzd::ARMOR,    vzd::DAMAGECOUNT, vzd::DEATHCOUNT,      vzd::FRAGCOUNT,
    vzd::HEALTH, vzd::HITCOUNT, vzd::KILLCOUNT,   vzd::SELECTED_WEAPON, vzd::SELECTED_WEAPON_AMMO,
    vzd::USER2};

// The path of the supervisor program installed beside this module (vizdoom.cmake).
std::string SupervisorPath();

// DoomGame, with access to its controller's extra engine arguments: the supervisor's own
// options ride there (DoomGame::addGameArgs splits on spaces; paths may hold them).
class Game : public vzd::DoomGame {
 public:
  void AddEngineArg(const std::string& arg) { doomController->addCustomArg(arg); }
};

// A DoomGame with the scenario's settings loaded (no engine started): the cfg's buttons,
// variables and screen, as both the spec and the env read them.
// The engine runs in a scratch folder (supervisor.cc), so every path it is given is absolute.
inline std::string Absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  return std::filesystem::absolute(path).lexically_normal().string();
}

inline std::unique_ptr<Game> LoadScenario(const Config& config) {
  const std::string cfg = Absolute(config.Get<std::string>("cfg_path"));
  const std::string wad = Absolute(config.Get<std::string>("wad_path"));
  if (!wad.empty()) files::CheckFile("wad_path", wad, uintmax_t{1} << 30);
  auto game = std::make_unique<Game>();
  // No cfg (VizdoomCustom-v1 as registered): ViZDoom's own defaults, the IWAD's map01 with no
  // buttons and no game variables but the info's; a cfg_path is what makes it a scenario.
  if (cfg.empty()) return game;
  files::CheckFile("cfg_path", cfg, 1 << 20);
  bool loaded = false;
  try {
    loaded = game->loadConfig(cfg);
  } catch (const std::exception& e) {
    throw std::invalid_argument("cfg_path " + cfg + " is not a ViZDoom config: " + e.what());
  }
  if (!loaded) throw std::invalid_argument("cfg_path " + cfg + " is not a ViZDoom config");
  return game;
}

class VizdoomEnv : public Env {
 public:
  static Config DefaultConfig() {
    return {{"cfg_path", std::string()},
            {"wad_path", std::string()},
            {"vzd_path", std::string()},
            {"iwad_path", std::string()},
            {"map_id", std::string("map01")},
            {"game_args", std::string()},
            {"img_height", int64_t{84}},
            {"img_width", int64_t{84}},
            {"stack_num", int64_t{4}},
            {"frame_skip", int64_t{4}},
            {"lmp_save_dir", std::string()},
            {"episodic_life", false},
            {"force_speed", false},
            {"use_combined_action", false},
            {"use_inter_area_resize", true},
            {"weapon_duration", int64_t{5}},
            {"reward_config", DefaultRewardConfig()},
            {"selected_weapon_reward_config", ConfigTable{{"0", {0.0002}},
                                                          {"1", {0.0002}},
                                                          {"2", {0.0002}},
                                                          {"3", {0.001}},
                                                          {"4", {0.001}},
                                                          {"5", {0.001}},
                                                          {"6", {0.002}},
                                                          {"7", {0.002}}}},
            {"delta_button_config", ConfigTable{}},
            // ViZDoom's other buffers as extra observation keys (not in EnvPool): "depth"
            // (stack_num, H, W), "labels" (the same, nearest-neighbour resized object ids) and
            // "automap" (like "obs").
            {"depth_buffer", false},
            {"labels_buffer", false},
            {"automap_buffer", false}};
  }

  static EnvSpec Spec(const Config& config) {
    CheckOptions(config);
    std::unique_ptr<Game> game = LoadScenario(config);
    const int64_t stack = config.Get<int64_t>("stack_num");
    const int64_t height = config.Get<int64_t>("img_height");
    const int64_t width = config.Get<int64_t>("img_width");
    const int64_t channels = game->getScreenChannels();
    CheckImageSize(config, *game);
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kUint8, {stack * channels, height, width}, {0.0}, {255.0})};
    if (config.Get<bool>("depth_buffer")) {
      spec.obs.push_back(Box("depth", DType::kUint8, {stack, height, width}, {0.0}, {255.0}));
    }
    if (config.Get<bool>("labels_buffer")) {
      spec.obs.push_back(Box("labels", DType::kUint8, {stack, height, width}, {0.0}, {255.0}));
    }
    if (config.Get<bool>("automap_buffer")) {
      spec.obs.push_back(
          Box("automap", DType::kUint8, {stack * channels, height, width}, {0.0}, {255.0}));
    }
    // With extra buffers the observation is a dict keyed by buffer ("obs" the screen).
    if (spec.obs.size() > 1) spec.obs_layout = ObsLayout::kDict;
    for (vzd::GameVariable v : kInfoVariables) {
      spec.info.push_back(Box(GameVariableName(v), DType::kFloat64, {}, {}, {}));
    }
    const auto buttons = game->getAvailableButtons();
    if (config.Get<bool>("use_combined_action")) {
      spec.action =
          Discrete("action", static_cast<int64_t>(CombinedActions(buttons, config).size()));
    } else {
      // A binary button is pressed by any value but 0 (1 by convention); a delta button takes
      // any number (ViZDoom clips it to the button's max value when one is set).
      std::vector<double> low, high;
      for (vzd::Button b : buttons) {
        const bool delta = b >= vzd::LOOK_UP_DOWN_DELTA;
        low.push_back(delta ? -kInf : 0.0);
        high.push_back(delta ? kInf : 1.0);
      }
      spec.action =
          Box("action", DType::kFloat64, {static_cast<int64_t>(buttons.size())}, low, high);
    }
    spec.render = {game->getScreenWidth(), game->getScreenHeight(), /*resizable=*/false,
                   /*fps=*/35.0 / static_cast<double>(config.Get<int64_t>("frame_skip")),
                   /*num_cameras=*/0};
    return spec;
  }

  VizdoomEnv(const Config& config, uint64_t seed)
      : Env(seed),
        stack_num_(static_cast<int>(config.Get<int64_t>("stack_num"))),
        frame_skip_(static_cast<unsigned>(config.Get<int64_t>("frame_skip"))),
        height_(static_cast<int>(config.Get<int64_t>("img_height"))),
        width_(static_cast<int>(config.Get<int64_t>("img_width"))),
        episodic_life_(config.Get<bool>("episodic_life")),
        use_combined_action_(config.Get<bool>("use_combined_action")),
        weapon_duration_(static_cast<int>(config.Get<int64_t>("weapon_duration"))),
        lmp_dir_(Absolute(config.Get<std::string>("lmp_save_dir"))),
        seed_(seed) {
    CheckOptions(config);
    game_ = LoadScenario(config);
    CheckImageSize(config, *game_);
    const std::string engine = EnginePath(config);
    game_->setViZDoomPath(SupervisorPath());
    game_->AddEngineArg("-envfleet-engine");
    game_->AddEngineArg(engine);
    game_->AddEngineArg("-envfleet-parent");
    game_->AddEngineArg(std::to_string(getpid()));
    game_->setDoomGamePath(IwadPath(config, engine));
    game_->setWindowVisible(false);
    if (!config.Get<std::string>("game_args").empty()) {
      game_->addGameArgs(config.Get<std::string>("game_args"));
    }
    game_->setMode(vzd::PLAYER);
    game_->setEpisodeTimeout(0);
    if (!config.Get<std::string>("wad_path").empty()) {
      game_->setDoomScenarioPath(Absolute(config.Get<std::string>("wad_path")));
    }
    game_->setDoomMap(config.Get<std::string>("map_id"));
    game_->setDoomConfigPath(scratch_.path() + "/vizdoom.ini");
    game_->setSeed(static_cast<unsigned>(seed));
    depth_ = config.Get<bool>("depth_buffer");
    labels_ = config.Get<bool>("labels_buffer");
    automap_ = config.Get<bool>("automap_buffer");
    if (depth_) game_->setDepthBufferEnabled(true);
    if (labels_) game_->setLabelsBufferEnabled(true);
    if (automap_) game_->setAutomapBufferEnabled(true);
    for (vzd::GameVariable v : kInfoVariables) game_->addAvailableGameVariable(v);

    variables_ = game_->getAvailableGameVariables();
    for (size_t i = 0; i < variables_.size(); ++i) {
      if (variables_[i] == vzd::DEATHCOUNT) deathcount_ = static_cast<int>(i);
      if (variables_[i] == vzd::HITCOUNT) hitcount_ = static_cast<int>(i);
      if (variables_[i] == vzd::DAMAGECOUNT) damagecount_ = static_cast<int>(i);
    }
    for (vzd::GameVariable v : kInfoVariables) {
      info_index_.push_back(static_cast<int>(std::find(variables_.begin(), variables_.end(), v) -
                                             variables_.begin()));
    }
    ReadRewardWeights(config);
    const auto buttons = game_->getAvailableButtons();
    num_buttons_ = buttons.size();
    if (use_combined_action_) action_set_ = CombinedActions(buttons, config);
    action_.assign(num_buttons_, 0.0);
    values_.assign(variables_.size(), 0.0);
    last_values_.assign(variables_.size(), 0.0);

    const int channels = game_->getScreenChannels();
    raw_height_ = game_->getScreenHeight();
    raw_width_ = game_->getScreenWidth();
    const bool planar =
        game_->getScreenFormat() == vzd::CRCGCB || game_->getScreenFormat() == vzd::CBCGCR;
    const bool area = config.Get<bool>("use_inter_area_resize");
    const auto stack = [&](int c, bool p, bool nearest) {
      return FrameStack(c, p, raw_height_, raw_width_, height_, width_, stack_num_, area, nearest);
    };
    screen_ = stack(channels, planar, false);
    if (depth_) depth_stack_ = stack(1, true, false);
    if (labels_) labels_stack_ = stack(1, true, /*nearest=*/true);
    if (automap_) automap_stack_ = stack(channels, planar, false);
    engine_ = engine;
    StartEngine();
  }

  ~VizdoomEnv() override {
    try {
      game_->close();
    } catch (...) {
    }
  }

  void Seed(uint64_t seed) override {
    Env::Seed(seed);
    seed_ = seed;
    game_->setSeed(static_cast<unsigned>(seed));
  }

  // A new episode: every explicit reset, a time limit, and a finished episode.
  void Reset() override {
    if (!game_->isRunning()) {
      // The engine died (the step that found it raised): a new one, whose first episode
      // starts at init. The seed sequence goes on from the instance's generator.
      game_->close();
      StartEngine();
    } else if (episode_count_ > 0) {
      if (lmp_dir_.empty()) {
        game_->newEpisode();
      } else {
        game_->newEpisode(lmp_dir_ + "/env_" + std::to_string(seed_) + "_" +
                          std::to_string(episode_count_) + ".lmp");
      }
    }
    ++episode_count_;
    Observe(/*new_episode=*/true);
    terminated_ = false;
  }

  // After a terminated step: a finished episode starts a new one; with episodic_life, a
  // death in a game that goes on (respawning scenarios) continues it with a no-op step, as
  // EnvPool does, on the same clock.
  bool ResetAfterTermination() override {
    if (game_->isEpisodeFinished()) {
      Reset();
      return false;
    }
    std::fill(action_.begin(), action_.end(), 0.0);
    game_->makeAction(action_, frame_skip_);
    Observe(/*new_episode=*/true);
    terminated_ = false;
    return true;
  }

  void Step(const void* action) override {
    if (use_combined_action_) {
      const int64_t index = *static_cast<const int64_t*>(action);
      game_->setAction(action_set_[static_cast<size_t>(index)]);
    } else {
      const auto* buttons = static_cast<const double*>(action);
      std::copy(buttons, buttons + num_buttons_, action_.begin());
      game_->setAction(action_);
    }
    try {
      game_->advanceAction(frame_skip_, true);
    } catch (const vzd::ViZDoomUnexpectedExitException&) {
      throw std::runtime_error(
          "its ViZDoom engine process exited unexpectedly (killed, or crashed); the env's next "
          "reset starts a new engine");
    }
    terminated_ = game_->isEpisodeFinished() || (episodic_life_ && game_->isPlayerDead());
    Observe(/*new_episode=*/false);
  }

  void Write(const OutputSlot& out) const override {
    size_t key = 0;
    screen_.Write(out.Get<uint8_t>(key++));
    if (depth_) depth_stack_.Write(out.Get<uint8_t>(key++));
    if (labels_) labels_stack_.Write(out.Get<uint8_t>(key++));
    if (automap_) automap_stack_.Write(out.Get<uint8_t>(key++));
    for (size_t k = 0; k < info_index_.size(); ++k) {
      const size_t i = static_cast<size_t>(info_index_[k]);
      *out.Get<double>(key + k) = i < values_.size() ? values_[i] : 0.0;
    }
  }

  // The engine's screen of the last state, as RGB rows.
  void Render(int /*camera_id*/, int width, int height, uint8_t* rgb) override {
    if (width != raw_width_ || height != raw_height_ || !state_ || !state_->screenBuffer) {
      if (width != raw_width_ || height != raw_height_) {
        throw std::runtime_error("the screen is " + std::to_string(raw_width_) + "x" +
                                 std::to_string(raw_height_));
      }
      std::memset(rgb, 0, static_cast<size_t>(width) * height * 3);
      return;
    }
    const uint8_t* screen = state_->screenBuffer->data();
    const size_t n = static_cast<size_t>(width) * height;
    const auto format = game_->getScreenFormat();
    for (size_t p = 0; p < n; ++p, rgb += 3) {
      switch (format) {
        case vzd::CRCGCB:
          rgb[0] = screen[p], rgb[1] = screen[n + p], rgb[2] = screen[2 * n + p];
          break;
        case vzd::CBCGCR:
          rgb[0] = screen[2 * n + p], rgb[1] = screen[n + p], rgb[2] = screen[p];
          break;
        case vzd::RGB24:
          rgb[0] = screen[3 * p], rgb[1] = screen[3 * p + 1], rgb[2] = screen[3 * p + 2];
          break;
        case vzd::BGR24:
          rgb[0] = screen[3 * p + 2], rgb[1] = screen[3 * p + 1], rgb[2] = screen[3 * p];
          break;
        case vzd::RGBA32:
          rgb[0] = screen[4 * p], rgb[1] = screen[4 * p + 1], rgb[2] = screen[4 * p + 2];
          break;
        case vzd::ARGB32:
          rgb[0] = screen[4 * p + 1], rgb[1] = screen[4 * p + 2], rgb[2] = screen[4 * p + 3];
          break;
        case vzd::BGRA32:
          rgb[0] = screen[4 * p + 2], rgb[1] = screen[4 * p + 1], rgb[2] = screen[4 * p];
          break;
        case vzd::ABGR32:
          rgb[0] = screen[4 * p + 3], rgb[1] = screen[4 * p + 2], rgb[2] = screen[4 * p + 1];
          break;
        default:  // GRAY8, DOOM_256_COLORS8: one value per pixel
          rgb[0] = rgb[1] = rgb[2] = screen[p];
      }
    }
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  void StartEngine() {
    // init() starts the client's launcher thread (DoomController::launchDoom), which waits
    // for the engine process as long as it runs; the env may be built, or its engine restarted,
    // on Python's main thread. (The supervisor sets its own mask and the engine's.)
    const NewThreadsBlockSignals blocked;
    try {
      game_->init();
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("the ViZDoom engine did not start: ") + e.what() +
                               " (engine " + engine_ + ")");
    }
  }

  static ConfigTable DefaultRewardConfig() {
    return {{"FRAGCOUNT", {1, -1.5}},         {"KILLCOUNT", {1, 0}},
            {"DEATHCOUNT", {-0.75, 0.75}},    {"HITCOUNT", {0.01, -0.01}},
            {"DAMAGECOUNT", {0.003, -0.003}}, {"HEALTH", {0.005, -0.003}},
            {"ARMOR", {0.005, -0.001}},       {"WEAPON0", {0.02, -0.01}},
            {"AMMO0", {0.0002, -0.0001}},     {"WEAPON1", {0.02, -0.01}},
            {"AMMO1", {0.0002, -0.0001}},     {"WEAPON2", {0.02, -0.01}},
            {"AMMO2", {0.0002, -0.0001}},     {"WEAPON3", {0.1, -0.05}},
            {"AMMO3", {0.001, -0.0005}},      {"WEAPON4", {0.1, -0.05}},
            {"AMMO4", {0.001, -0.0005}},      {"WEAPON5", {0.1, -0.05}},
            {"AMMO5", {0.001, -0.0005}},      {"WEAPON6", {0.2, -0.1}},
            {"AMMO6", {0.002, -0.001}},       {"WEAPON7", {0.2, -0.1}},
            {"AMMO7", {0.002, -0.001}}};
  }

  static void CheckOptions(const Config& config) {
    const int64_t stack = config.Get<int64_t>("stack_num");
    const int64_t skip = config.Get<int64_t>("frame_skip");
    if (stack < 1 || stack > 64) throw std::invalid_argument("stack_num must be in [1, 64]");
    if (skip < 1 || skip > 1000000) {
      throw std::invalid_argument("frame_skip must be in [1, 1000000]");
    }
    if (config.Get<int64_t>("img_height") < 1 || config.Get<int64_t>("img_width") < 1) {
      throw std::invalid_argument("img_height and img_width must be >= 1");
    }
    if (config.Get<int64_t>("weapon_duration") < 0) {
      throw std::invalid_argument("weapon_duration must be >= 0");
    }
    for (const auto& [name, weights] : config.Get<ConfigTable>("reward_config")) {
      GameVariableFromName(name, "reward_config");
      if (weights.size() != 2) {
        throw std::invalid_argument("reward_config['" + name +
                                    "'] must be (positive weight, negative weight)");
      }
    }
    for (const auto& [slot, weight] : config.Get<ConfigTable>("selected_weapon_reward_config")) {
      if (slot.size() != 1 || slot[0] < '0' || slot[0] > '9' || weight.size() != 1) {
        throw std::invalid_argument(
            "selected_weapon_reward_config maps weapon slots 0-9 to one weight each, got key '" +
            slot + "'");
      }
    }
    for (const auto& [name, entry] : config.Get<ConfigTable>("delta_button_config")) {
      const int button = ButtonFromName(name);
      if (button < static_cast<int>(vzd::LOOK_UP_DOWN_DELTA)) {
        throw std::invalid_argument(
            "delta_button_config keys are delta buttons (LOOK_UP_DOWN_DELTA, "
            "TURN_LEFT_RIGHT_DELTA, MOVE_FORWARD_BACKWARD_DELTA, MOVE_LEFT_RIGHT_DELTA, "
            "MOVE_UP_DOWN_DELTA), got '" +
            name + "'");
      }
      if (entry.size() != 3 || entry[0] < 0 || entry[0] > 1000) {
        throw std::invalid_argument("delta_button_config['" + name +
                                    "'] must be (number of values in [0, 1000], min, max)");
      }
    }
  }

  static void CheckImageSize(const Config& config, Game& game) {
    const int64_t height = config.Get<int64_t>("img_height");
    const int64_t width = config.Get<int64_t>("img_width");
    if (height > game.getScreenHeight() || width > game.getScreenWidth()) {
      throw std::invalid_argument(
          "img_height x img_width " + std::to_string(height) + "x" + std::to_string(width) +
          " is larger than the scenario's screen (" + std::to_string(game.getScreenHeight()) + "x" +
          std::to_string(game.getScreenWidth()) +
          "): frames are shrunk, never enlarged; pick a larger screen_resolution in the cfg");
    }
  }

  static std::string EnginePath(const Config& config) {
    const std::string engine = Absolute(config.Get<std::string>("vzd_path"));
    if (engine.empty()) {
      throw std::invalid_argument(
          "vzd_path is empty: the ViZDoom engine comes from the vizdoom==1.3.2 package "
          "(pip install envfleet[vizdoom])");
    }
    files::CheckFile("vzd_path (the ViZDoom engine)", engine, uintmax_t{1} << 31);
    if (access(engine.c_str(), X_OK) != 0) {
      throw std::invalid_argument("vzd_path " + engine + " is not executable");
    }
    return engine;
  }

  static std::string IwadPath(const Config& config, const std::string& engine) {
    std::string iwad = Absolute(config.Get<std::string>("iwad_path"));
    if (iwad.empty()) iwad = engine.substr(0, engine.rfind('/') + 1) + "freedoom2.wad";
    files::CheckFile("iwad_path", iwad, uintmax_t{1} << 31);
    return iwad;
  }

  // EnvPool's enumeration of button combinations (utils.h BuildActionSet), in its order.
  static std::vector<std::vector<double>> CombinedActions(const std::vector<vzd::Button>& buttons,
                                                          const Config& config) {
    std::array<std::tuple<int, float, float>, vzd::BUTTON_COUNT> delta{};
    for (const auto& [name, entry] : config.Get<ConfigTable>("delta_button_config")) {
      delta[static_cast<size_t>(ButtonFromName(name))] = {
          static_cast<int>(entry[0]), static_cast<float>(entry[1]), static_cast<float>(entry[2])};
    }
    return BuildActionSet(buttons, config.Get<bool>("force_speed"), delta);
  }

  void ReadRewardWeights(const Config& config) {
    positive_.assign(variables_.size(), 0.0);
    negative_.assign(variables_.size(), 0.0);
    for (const auto& [name, weights] : config.Get<ConfigTable>("reward_config")) {
      const vzd::GameVariable v = GameVariableFromName(name, "reward_config");
      auto it = std::find(variables_.begin(), variables_.end(), v);
      if (it == variables_.end()) continue;  // not available in this scenario
      const size_t i = static_cast<size_t>(it - variables_.begin());
      // EnvPool keeps the weights as float32.
      positive_[i] = static_cast<float>(weights[0]);
      negative_[i] = static_cast<float>(weights[1]);
    }
    weapon_reward_.fill(0.0);
    for (const auto& [slot, weight] : config.Get<ConfigTable>("selected_weapon_reward_config")) {
      weapon_reward_[static_cast<size_t>(slot[0] - '0')] = static_cast<float>(weight[0]);
    }
  }

  // EnvPool's GetState: game variables, reward, and the next stacked frame.
  void Observe(bool new_episode) {
    state_ = game_->getState();
    if (!state_) {  // the episode is over: nothing new to see
      reward_ = 0.0;
      return;
    }
    const std::vector<double>& now = state_->gameVariables;
    if (new_episode) {
      last_values_ = now;
      selected_weapon_ = -1;
      selected_weapon_count_ = 0;
    } else {
      last_values_ = values_;
    }
    values_ = now;
    // HITCOUNT, DAMAGECOUNT and DEATHCOUNT are not reset by a new episode
    // (ViZDoom issue 399): count them from the episode's start.
    for (auto [index, base] : {std::pair<int, double*>{hitcount_, &hitcount_base_},
                               std::pair<int, double*>{damagecount_, &damagecount_base_},
                               std::pair<int, double*>{deathcount_, &deathcount_base_}}) {
      if (index < 0) continue;
      const size_t i = static_cast<size_t>(index);
      if (new_episode) {
        *base = values_[i];
        last_values_[i] = 0;
      }
      values_[i] -= *base;
    }
    int weapon = -1;
    int weapon_ammo = 0;
    float reward = 0.0f;
    for (size_t i = 0; i < values_.size(); ++i) {
      double delta = values_[i] - last_values_[i];
      const vzd::GameVariable v = variables_[i];
      if (v == vzd::DAMAGECOUNT && delta >= 200) {
        delta = 200;  // EnvPool: "without this we reward using BFG and shotguns too much"
      } else if (v == vzd::HITCOUNT && delta >= 5) {
        delta = 5;
      } else if (v == vzd::SELECTED_WEAPON) {
        weapon = static_cast<int>(values_[i]);
      } else if (v == vzd::SELECTED_WEAPON_AMMO) {
        weapon_ammo = static_cast<int>(values_[i]);
      } else if (v == vzd::HEALTH) {
        // HEALTH reads -999900 while dead (ViZDoom issue 202).
        if (last_values_[i] < 0 && values_[i] < 0) {
          last_values_[i] = values_[i] = 100;
        } else if (values_[i] < 0) {
          values_[i] = last_values_[i];
        } else if (last_values_[i] < 0) {
          last_values_[i] = values_[i];
        }
        delta = values_[i] - last_values_[i];
      }
      if (delta >= 0) {
        reward += static_cast<float>(delta * positive_[i]);
      } else {
        reward -= static_cast<float>(delta * negative_[i]);
      }
    }
    if (weapon == selected_weapon_) {
      ++selected_weapon_count_;
    } else {
      selected_weapon_ = weapon;
      selected_weapon_count_ = 1;
    }
    if (weapon >= 0 && weapon < 10 && selected_weapon_count_ >= weapon_duration_ &&
        weapon_ammo > 0) {
      reward += static_cast<float>(weapon_reward_[static_cast<size_t>(weapon)]);
    }
    reward_ = reward;
    screen_.Push(state_->screenBuffer->data(), /*fill=*/new_episode);
    if (depth_) depth_stack_.Push(state_->depthBuffer->data(), new_episode);
    if (labels_) labels_stack_.Push(state_->labelsBuffer->data(), new_episode);
    if (automap_) automap_stack_.Push(state_->automapBuffer->data(), new_episode);
  }

  std::string engine_;
  ScratchDir scratch_{"envfleet-vizdoom-"};  // the engine's ini: never the user's cwd
  std::unique_ptr<Game> game_;
  int stack_num_;
  unsigned frame_skip_;
  int height_, width_;
  bool episodic_life_;
  bool use_combined_action_;
  int weapon_duration_;
  std::string lmp_dir_;
  uint64_t seed_ = 0;
  int episode_count_ = 0;

  std::vector<vzd::GameVariable> variables_;
  std::vector<int> info_index_;
  int deathcount_ = -1, hitcount_ = -1, damagecount_ = -1;
  double deathcount_base_ = 0, hitcount_base_ = 0, damagecount_base_ = 0;
  std::vector<double> values_, last_values_, positive_, negative_;
  std::array<double, 10> weapon_reward_{};
  int selected_weapon_ = -1, selected_weapon_count_ = 0;

  size_t num_buttons_ = 0;
  std::vector<std::vector<double>> action_set_;
  std::vector<double> action_;

  int raw_height_ = 0, raw_width_ = 0;
  bool depth_ = false, labels_ = false, automap_ = false;
  FrameStack screen_, depth_stack_, labels_stack_, automap_stack_;
  vzd::GameStatePtr state_;
};

}  // namespace vizdoom
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_VIZDOOM_VIZDOOM_ENV_H_
