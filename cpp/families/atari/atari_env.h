// Atari 2600 games through the Arcade Learning Environment (ALE 0.12.1, built from the ale-py
// sdist; see cpp/families/atari/atari.cmake), with EnvPool's Atari options and defaults.
//
// References:
//   ale-py 0.12.1   ale_py/env.py (AtariEnv: seeding, ROM loading, action sets)
//   Gymnasium 1.4.0 gymnasium/wrappers/atari_preprocessing.py (AtariPreprocessing: no-op
//                   reset, frame skip, max-pooling, resize) and FrameStackObservation
//   EnvPool 1.2.5   envpool/atari/atari_env.h (option names and defaults, fire reset,
//                   episodic life, channel-first stacked uint8 observations)
//
// One step = `frame_skip` emulator frames with the same action, exactly as AtariPreprocessing
// does it: the frame loop stops at a game over (and, with episodic_life, at a life loss); the
// second-to-last and last frames are converted to grayscale (or RGB) through ALE's palette,
// max-pooled into the last-frame buffer, resized with OpenCV's INTER_AREA arithmetic
// (common/image/resize.h), and pushed onto a ring of `stack_num` frames. A hard reset fills
// the whole stack with the first frame (FrameStackObservation's "reset" padding). If a step
// ends early, the buffers keep what AtariPreprocessing's buffers would hold, so observations
// match it frame for frame, the last one included.
//
// Reset: ALE reset_game(), then `n` no-op frames with n ~ np_random.integers(1, noop_max + 1)
// (none when noop_max == 0), then, if use_fire_reset and FIRE is in the action set, FIRE in
// place of the last no-op (EnvPool's order: n - 1 no-ops, then FIRE).
//
// Seeding mirrors ale-py: for env seed s, SeedSequence(s).generate_state(2) = [a, b];
// the no-op draws come from Generator(PCG64(SeedSequence(a))) (ale-py's env.np_random) and
// ALE's random_seed is int32(b). So a pool made with seed s reproduces ale-py's
// gymnasium.make("ALE/<Game>-v5", frameskip=1, repeat_action_probability=p) reset with
// seed=s, sticky actions included.
//
// Episodic life (EnvPool semantics): a life loss ends the episode (terminated=True,
// info["terminated"]=0); the autoreset that follows continues the same game with a soft reset
// (no-ops and FIRE, no reset_game, one frame pushed onto the stack) through
// Env::ResetAfterTermination, so the pool keeps the episode's clock running: the soft reset
// reports the elapsed_step the life ended at, the next step adds one, and max_episode_steps
// counts across lives (a game over during the soft reset's no-ops starts a new game on that
// running clock, as in EnvPool). As in EnvPool, a life counts as lost only while lives remain
// (0 < lives < lives before): in games whose counter reaches 0 before the game is over
// (Atlantis, WizardOfWor) the last life is played within the episode to ALE's game over. A
// real game over, a time limit (also one reached on a life-losing step) and every explicit
// reset() hard-reset: reset_game, the stack filled, elapsed_step 0.
//
// zero_discount_on_life_loss adds info["discount"] (float32): 0 on a step that loses a life or
// terminates, else 1. The dm_env front end takes its discount from it (with episodic_life off,
// such a step is MID with discount 0, as in EnvPool's dm_env API).
//
// Per-step work is allocation-free: the palette is turned into lookup tables, frames live in
// preallocated planes, and Write copies the stack's frames oldest first into the output row.
//
// Where this deliberately differs from EnvPool 1.2.5 (each time following ale-py/Gymnasium):
//   - seeds: ALE's random_seed and the no-op draws are derived from the env seed as ale-py
//     does (EnvPool passes the seed to ALE as is and draws no-ops from a std::mt19937);
//   - noop_max=0 is valid (EnvPool's uniform_int_distribution(0, -1) crashes on it);
//   - frames of the 13 games with screens taller than 210 rows are resized whole (EnvPool
//     drops the rows below 210);
//   - a step that ends the game (or, with episodic_life, loses a life) before its last frame
//     stops there, and its observation is what AtariPreprocessing's buffers then hold
//     (EnvPool plays a life-loss step to its end and pools differently at a game over);
//   - grayscale pixel index 255 (drawn by a few games) reads as black, as ALE's own
//     applyPaletteGrayscale gives it.
#ifndef ENVFLEET_FAMILIES_ATARI_ATARI_ENV_H_
#define ENVFLEET_FAMILIES_ATARI_ATARI_ENV_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "ale/ale_interface.hpp"
#include "ale/common/Log.hpp"
#include "ale/emucore/MD5.hxx"
#include "ale/games/Roms.hpp"
#include "common/files.h"
#include "common/image/resize.h"
#include "common/numpy/random.h"
#include "core/env.h"
#include "core/spec.h"

namespace envfleet {
namespace atari {

// ALE screens are 160 wide and 210 tall, except for 13 games whose ROM properties ask for
// more rows (214 to 250: Adventure, AirRaid, Carnival, ...). Those frames are resized whole,
// as Gymnasium does (EnvPool crops them to their first 210 rows). Observations may shrink a
// frame, never enlarge it, so img_height <= 210 and img_width <= 160 fit every game.
constexpr int kMinRawHeight = 210;
constexpr int kRawWidth = 160;

inline void QuietAle() {
  static const bool quiet = [] {
    ale::Logger::setMode(ale::Logger::Error);
    return true;
  }();
  (void)quiet;
}

// ALE reads at most this much of a ROM file (MAX_ROM_SIZE in its OSystem.cxx); 2600 cartridges
// hold 64 KiB at most.
constexpr uintmax_t kMaxRomBytes = 512 * 1024;

// The ROM file of `game` in rom_dir, checked to be a regular file of ROM size (a FIFO or a
// device there would block or never end the reads below).
inline std::string RomPath(const Config& config) {
  const std::string& dir = config.Get<std::string>("rom_dir");
  const std::string& game = config.Get<std::string>("game");
  if (game.empty() || game.find('/') != std::string::npos || game == "." || game == "..") {
    throw std::invalid_argument("game must be a ROM id such as 'pong', got '" + game + "'");
  }
  if (dir.empty()) {
    throw std::invalid_argument(
        "rom_dir is empty: the Atari ROMs come from the ale-py==0.12.1 package "
        "(pip install ale-py==0.12.1)");
  }
  files::CheckFolder("rom_dir", dir);
  const std::string path = dir + "/" + game + ".bin";
  try {
    files::CheckFile("the ROM", path, kMaxRomBytes);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) + " (game '" + game +
                                "'; the ROMs come from the ale-py==0.12.1 package)");
  }
  return path;
}

// What the ROM's ALE game wrapper says, read without starting an emulator. Also checks that
// ALE supports the file, since ALEInterface::loadROM calls exit() on an unknown ROM.
struct RomInfo {
  ale::ActionVect minimal_actions;
  ale::ActionVect all_actions;
  ale::ModeVect modes;
  ale::DifficultyVect difficulties;
};

inline RomInfo ReadRomInfo(const std::string& path) {
  std::ifstream file(path, std::ios::binary);  // RomPath checked it
  if (!file) throw std::invalid_argument("Atari ROM cannot be opened: " + path);
  std::vector<uint8_t> rom((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
  const std::string md5 = ale::stella::MD5(rom.data(), static_cast<uint32_t>(rom.size()));
  std::unique_ptr<ale::RomSettings> settings(ale::buildRomRLWrapper(path, md5));
  if (!settings || settings->md5() != md5) {
    throw std::invalid_argument("not a ROM that ALE 0.12.1 supports: " + path);
  }
  return {settings->getMinimalActionSet(), settings->getAllActions(), settings->getAvailableModes(),
          settings->getAvailableDifficulties()};
}

// The height of a game's screen (210 rows for most; PAL games such as AirRaid have 250). Only
// the emulator knows it (it detects PAL by running frames), so the first ask per ROM loads
// the game once; the spec's render size needs it before any env exists.
inline int ScreenHeight(const std::string& rom_path) {
  static std::mutex mutex;
  static std::map<std::string, int> heights;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = heights.find(rom_path);
  if (it == heights.end()) {
    QuietAle();
    ale::ALEInterface ale;
    ale.loadROM(rom_path);
    it = heights.emplace(rom_path, static_cast<int>(ale.getScreen().height())).first;
  }
  return it->second;
}

class AtariEnv : public Env {
 public:
  static Config DefaultConfig() {
    return {{"game", std::string("pong")},
            {"rom_dir", std::string()},
            {"stack_num", int64_t{4}},
            {"frame_skip", int64_t{4}},
            {"noop_max", int64_t{30}},
            {"episodic_life", false},
            {"zero_discount_on_life_loss", false},
            {"reward_clip", false},
            {"use_fire_reset", true},
            {"img_height", int64_t{84}},
            {"img_width", int64_t{84}},
            {"gray_scale", true},
            {"use_inter_area_resize", true},
            {"repeat_action_probability", 0.0},
            {"full_action_space", false},
            {"mode", int64_t{-1}},
            {"difficulty", int64_t{-1}},
            {"include_ram", false}};
  }

  static EnvSpec Spec(const Config& config) {
    const int64_t stack = config.Get<int64_t>("stack_num");
    const int64_t skip = config.Get<int64_t>("frame_skip");
    const int64_t noop_max = config.Get<int64_t>("noop_max");
    const int64_t height = config.Get<int64_t>("img_height");
    const int64_t width = config.Get<int64_t>("img_width");
    const double sticky = config.Get<double>("repeat_action_probability");
    if (stack < 1 || stack > 64) throw std::invalid_argument("stack_num must be in [1, 64]");
    if (skip < 1) throw std::invalid_argument("frame_skip must be >= 1");
    if (noop_max < 0) throw std::invalid_argument("noop_max must be >= 0");
    if (height < 1 || height > kMinRawHeight || width < 1 || width > kRawWidth) {
      throw std::invalid_argument(
          "img_height must be in [1, 210] and img_width in [1, 160] (frames are shrunk, "
          "never enlarged), got " +
          std::to_string(height) + "x" + std::to_string(width));
    }
    if (!(sticky >= 0.0 && sticky <= 1.0)) {
      throw std::invalid_argument("repeat_action_probability must be in [0, 1]");
    }
    const RomInfo rom = ReadRomInfo(RomPath(config));
    CheckModeAndDifficulty(config, rom);
    const int64_t channels = config.Get<bool>("gray_scale") ? 1 : 3;
    const int64_t num_actions =
        static_cast<int64_t>(config.Get<bool>("full_action_space") ? rom.all_actions.size()
                                                                   : rom.minimal_actions.size());

    EnvSpec spec;
    spec.obs = {Box("obs", DType::kUint8, {stack * channels, height, width}, {0.0}, {255.0})};
    // Info keys follow EnvPool's (lives, unclipped reward, terminated = real game over).
    spec.info = {Box("lives", DType::kInt32, {}, {}, {}),
                 Box("reward", DType::kFloat64, {}, {}, {}),
                 Box("terminated", DType::kInt32, {}, {0.0}, {1.0})};
    if (config.Get<bool>("zero_discount_on_life_loss")) {
      spec.info.push_back(Box("discount", DType::kFloat32, {}, {0.0}, {1.0}));
    }
    if (config.Get<bool>("include_ram")) {
      spec.info.push_back(Box("ram", DType::kUint8, {128}, {0.0}, {255.0}));
    }
    spec.action = Discrete("action", num_actions);
    if (config.Get<bool>("reward_clip")) {
      spec.reward_low = -1.0;
      spec.reward_high = 1.0;
    }
    // ale-py's render(): the emulator's whole screen in colour, at its metadata's 30 fps.
    spec.render = {kRawWidth, ScreenHeight(RomPath(config)), /*resizable=*/false, /*fps=*/30.0,
                   /*num_cameras=*/0};
    return spec;
  }

  AtariEnv(const Config& config, uint64_t seed)
      : Env(seed),
        rom_path_(RomPath(config)),
        stack_num_(static_cast<int>(config.Get<int64_t>("stack_num"))),
        frame_skip_(static_cast<int>(config.Get<int64_t>("frame_skip"))),
        noop_max_(config.Get<int64_t>("noop_max")),
        episodic_life_(config.Get<bool>("episodic_life")),
        zero_discount_on_life_loss_(config.Get<bool>("zero_discount_on_life_loss")),
        reward_clip_(config.Get<bool>("reward_clip")),
        gray_scale_(config.Get<bool>("gray_scale")),
        include_ram_(config.Get<bool>("include_ram")),
        full_action_space_(config.Get<bool>("full_action_space")),
        mode_(config.Get<int64_t>("mode")),
        difficulty_(config.Get<int64_t>("difficulty")),
        sticky_(static_cast<float>(config.Get<double>("repeat_action_probability"))),
        height_(static_cast<int>(config.Get<int64_t>("img_height"))),
        width_(static_cast<int>(config.Get<int64_t>("img_width"))),
        channels_(gray_scale_ ? 1 : 3),
        frame_bytes_(static_cast<size_t>(channels_) * height_ * width_) {
    QuietAle();
    const RomInfo rom = ReadRomInfo(rom_path_);  // fails cleanly where loadROM would exit()
    CheckModeAndDifficulty(config, rom);
    ale_ = std::make_unique<ale::ALEInterface>();
    Seed(seed);
    LoadGame();
    action_set_ = full_action_space_ ? ale_->getLegalActionSet() : ale_->getMinimalActionSet();
    fire_reset_ =
        config.Get<bool>("use_fire_reset") &&
        std::find(action_set_.begin(), action_set_.end(), ale::PLAYER_A_FIRE) != action_set_.end();
    const ale::ALEScreen& screen = ale_->getScreen();
    raw_height_ = static_cast<int>(screen.height());
    raw_size_ = raw_height_ * kRawWidth;
    if (static_cast<int>(screen.width()) != kRawWidth || raw_height_ < kMinRawHeight) {
      throw std::runtime_error("unexpected ALE screen size for " + rom_path_);
    }
    resizer_ = image::PlaneResizer(raw_height_, kRawWidth, height_, width_,
                                   config.Get<bool>("use_inter_area_resize"));
    for (int v = 0; v < 256; ++v) {
      // ColourPalette::applyPaletteGrayscale / applyPaletteRGB: pixels are palette indices;
      // the entry after an even index holds its luminance. Some games (AirRaid's missiles)
      // also draw index 255, whose grayscale ALE reads one past the 256-entry palette, where
      // its builds (ale-py's included) find the next palette's first entry: black.
      const uint32_t rgb = ale_->theOSystem->colourPalette().getRGB(v);
      const uint32_t next = v < 255 ? ale_->theOSystem->colourPalette().getRGB(v + 1) : 0u;
      gray_lut_[v] = static_cast<uint8_t>(next & 0xFF);
      rgb_lut_[v] = {static_cast<uint8_t>(rgb >> 16), static_cast<uint8_t>(rgb >> 8),
                     static_cast<uint8_t>(rgb)};
    }
    last_.assign(static_cast<size_t>(channels_) * raw_size_, 0);
    prev_.assign(static_cast<size_t>(channels_) * raw_size_, 0);
    stack_.assign(frame_bytes_ * stack_num_, 0);
  }

  // ale-py's render() (ALEInterface::getScreenRGB): the current screen, the last frame of the
  // last step (not max-pooled), through the palette.
  void Render(int /*camera_id*/, int width, int height, uint8_t* rgb) override {
    if (width != kRawWidth || height != raw_height_) {
      throw std::runtime_error("this game's screen is " + std::to_string(kRawWidth) + "x" +
                               std::to_string(raw_height_) + ", not the spec's " +
                               std::to_string(width) + "x" + std::to_string(height));
    }
    const uint8_t* screen = ale_->getScreen().getArray();
    for (int i = 0; i < raw_size_; ++i, rgb += 3) {
      const auto& c = rgb_lut_[screen[i]];
      rgb[0] = c[0];
      rgb[1] = c[1];
      rgb[2] = c[2];
    }
  }

  // ale-py's seed_game(seed): SeedSequence(seed) gives the no-op stream's seed and ALE's
  // random_seed. The emulator picks the new ALE seed up when the ROM is (re)loaded, which
  // ale-py does on every reset(seed=...): the next Reset() reloads it.
  void Seed(uint64_t seed) override {
    uint32_t words[2];
    SeedSequenceGenerateState(seed, words, 2);
    rng().Seed(words[0]);
    ale_seed_ = static_cast<int32_t>(words[1]);
    reload_ = true;
  }

  // A new game: explicit resets, time limits, game overs.
  void Reset() override { Start(/*soft=*/false); }

  // After a lost life (episodic_life), the same game goes on: a soft reset, and the pool keeps
  // the episode's clock running (EnvPool's elapsed_step and time limit count across lives).
  bool ResetAfterTermination() override {
    const bool soft = continue_game_ && !reload_;
    Start(soft);
    return soft;
  }

  void Step(const void* action) override {
    const int64_t index = *static_cast<const int64_t*>(action);
    const ale::Action a = action_set_[static_cast<size_t>(index)];
    double reward = 0.0;
    bool game_over = false;
    bool life_lost = false;
    const int lives_before = lives_;
    int t = 0;
    for (; t < frame_skip_; ++t) {
      reward += static_cast<double>(ale_->act(a));
      game_over = ale_->game_over(false);
      if (episodic_life_) {
        // EnvPool's rule: a life counts as lost only while lives remain. Games such as
        // Atlantis and WizardOfWor drop the counter to 0 and play the last life on until
        // ALE's game over, which then ends the episode.
        const int lives = ale_->lives();
        life_lost = 0 < lives && lives < lives_;
        lives_ = lives;
      }
      if (game_over || life_lost) break;
      if (t == frame_skip_ - 2) {
        Grab(prev_.data(), nullptr);
      } else if (t == frame_skip_ - 1) {
        // The last frame, max-pooled with the previous one as it is converted.
        Grab(last_.data(), frame_skip_ > 1 ? prev_.data() : nullptr);
      }
    }
    if (t < frame_skip_ && frame_skip_ > 1) {
      // Ended early: max-pool whatever the buffers hold, as AtariPreprocessing does.
      uint8_t* last = last_.data();
      const uint8_t* prev = prev_.data();
      for (size_t i = 0, n = last_.size(); i < n; ++i) last[i] = std::max(last[i], prev[i]);
    }
    Push(last_.data(), /*fill=*/false);
    lives_ = ale_->lives();
    raw_reward_ = reward;
    reward_ = reward_clip_ ? static_cast<double>((reward > 0) - (reward < 0)) : reward;
    game_over_ = game_over;
    // Any drop of the counter, to 0 included, zeroes info["discount"] (EnvPool's
    // zero_discount_on_life_loss); only an episodic life loss ends the episode.
    life_lost_ = lives_ < lives_before;
    terminated_ = game_over || life_lost;
    continue_game_ = life_lost && !game_over;
  }

  void Write(const OutputSlot& out) const override {
    uint8_t* obs = out.Get<uint8_t>(0);
    // Oldest frame first: ring slot head_ holds the newest.
    for (int i = 0; i < stack_num_; ++i) {
      const int slot = (head_ + 1 + i) % stack_num_;
      std::memcpy(obs + static_cast<size_t>(i) * frame_bytes_,
                  stack_.data() + static_cast<size_t>(slot) * frame_bytes_, frame_bytes_);
    }
    *out.Get<int32_t>(1) = lives_;
    *out.Get<double>(2) = raw_reward_;
    *out.Get<int32_t>(3) = game_over_ ? 1 : 0;
    size_t key = 4;
    if (zero_discount_on_life_loss_) {
      *out.Get<float>(key++) = terminated_ || life_lost_ ? 0.f : 1.f;
    }
    if (include_ram_) {
      std::memcpy(out.Get<uint8_t>(key++), ale_->getRAM().array(), 128);
    }
  }

 private:
  static void CheckModeAndDifficulty(const Config& config, const RomInfo& rom) {
    const int64_t mode = config.Get<int64_t>("mode");
    const int64_t difficulty = config.Get<int64_t>("difficulty");
    if (mode != -1 && std::find(rom.modes.begin(), rom.modes.end(), mode) == rom.modes.end()) {
      std::string valid;
      for (auto m : rom.modes) valid += (valid.empty() ? "" : ", ") + std::to_string(m);
      throw std::invalid_argument("mode " + std::to_string(mode) + " is not available for " +
                                  config.Get<std::string>("game") + "; modes: " + valid +
                                  " (or -1, the default)");
    }
    if (difficulty != -1 && std::find(rom.difficulties.begin(), rom.difficulties.end(),
                                      difficulty) == rom.difficulties.end()) {
      std::string valid;
      for (auto d : rom.difficulties) valid += (valid.empty() ? "" : ", ") + std::to_string(d);
      throw std::invalid_argument("difficulty " + std::to_string(difficulty) +
                                  " is not available for " + config.Get<std::string>("game") +
                                  "; difficulties: " + valid + " (or -1, the default)");
    }
  }

  // Reset's work. A hard start begins a new game (reloading the ROM after a re-seed) and fills
  // the frame stack; a soft one plays the no-ops and FIRE on the running game and pushes one
  // frame. Either way a game over during the no-ops starts a new game, as EnvPool does.
  void Start(bool soft) {
    bool hard = !soft;
    continue_game_ = false;
    if (reload_) {
      LoadGame();
      hard = true;
    }
    if (hard) ale_->reset_game();
    int64_t noops = noop_max_ > 0 ? rng().Integers(1, noop_max_ + 1) : 0;
    if (fire_reset_) noops = std::max<int64_t>(noops - 1, 0);
    for (int64_t i = 0; i < noops; ++i) {
      ale_->act(ale::PLAYER_A_NOOP);
      if (ale_->game_over(false)) {
        ale_->reset_game();
        hard = true;
      }
    }
    if (fire_reset_) ale_->act(ale::PLAYER_A_FIRE);
    Grab(last_.data(), nullptr);
    std::fill(prev_.begin(), prev_.end(), 0);
    Push(last_.data(), /*fill=*/hard);
    lives_ = ale_->lives();
    reward_ = 0.0;
    raw_reward_ = 0.0;
    terminated_ = false;
    game_over_ = false;
    life_lost_ = false;
  }

  // ale-py's load_game() after seed_game(): settings, loadROM, mode and difficulty.
  void LoadGame() {
    ale_->setFloat("repeat_action_probability", sticky_);
    ale_->setInt("random_seed", ale_seed_);
    ale_->loadROM(rom_path_);
    if (mode_ != -1) ale_->setMode(static_cast<ale::game_mode_t>(mode_));
    if (difficulty_ != -1) ale_->setDifficulty(static_cast<ale::difficulty_t>(difficulty_));
    reload_ = false;
  }

  // The current screen through the palette into planar channels; with `pool`, each value is
  // max-pooled with pool's (in place of a separate pass). Atari frames repeat many rows; a
  // row whose inputs equal the previous row's gets the previous output row, copied.
  void Grab(uint8_t* dst, const uint8_t* pool) const {
    const uint8_t* screen = ale_->getScreen().getArray();
    const size_t n = static_cast<size_t>(raw_size_);
    for (int r = 0; r < raw_height_; ++r) {
      const size_t row = static_cast<size_t>(r) * kRawWidth;
      const uint8_t* s = screen + row;
      const uint8_t* p = pool != nullptr ? pool + row : nullptr;
      if (r > 0 && std::memcmp(s, s - kRawWidth, kRawWidth) == 0 &&
          (p == nullptr ||
           (std::memcmp(p, p - kRawWidth, kRawWidth) == 0 &&
            (gray_scale_ || (std::memcmp(p + n, p + n - kRawWidth, kRawWidth) == 0 &&
                             std::memcmp(p + 2 * n, p + 2 * n - kRawWidth, kRawWidth) == 0))))) {
        for (int c = 0; c < channels_; ++c) {
          uint8_t* d = dst + c * n + row;
          std::memcpy(d, d - kRawWidth, kRawWidth);
        }
        continue;
      }
      if (gray_scale_) {
        uint8_t* d = dst + row;
        if (p != nullptr) {
          for (int i = 0; i < kRawWidth; ++i) d[i] = std::max(gray_lut_[s[i]], p[i]);
        } else {
          for (int i = 0; i < kRawWidth; ++i) d[i] = gray_lut_[s[i]];
        }
        continue;
      }
      uint8_t* red = dst + row;
      uint8_t* green = red + n;
      uint8_t* blue = green + n;
      for (int i = 0; i < kRawWidth; ++i) {
        const auto& c = rgb_lut_[s[i]];
        red[i] = c[0];
        green[i] = c[1];
        blue[i] = c[2];
      }
      if (p != nullptr) {
        for (int c = 0; c < 3; ++c) {
          uint8_t* d = dst + c * n + row;
          const uint8_t* q = p + c * n;
          for (int i = 0; i < kRawWidth; ++i) d[i] = std::max(d[i], q[i]);
        }
      }
    }
  }

  // Resizes a raw frame into the next ring slot (or, with fill, into every slot).
  void Push(const uint8_t* raw, bool fill) {
    head_ = (head_ + 1) % stack_num_;
    uint8_t* frame = stack_.data() + static_cast<size_t>(head_) * frame_bytes_;
    const size_t plane = static_cast<size_t>(height_) * width_;
    for (int c = 0; c < channels_; ++c) {
      resizer_.Resize(raw + static_cast<size_t>(c) * raw_size_, frame + c * plane);
    }
    if (fill) {
      for (int i = 0; i < stack_num_; ++i) {
        if (i != head_) {
          std::memcpy(stack_.data() + static_cast<size_t>(i) * frame_bytes_, frame, frame_bytes_);
        }
      }
    }
  }

  std::string rom_path_;
  int stack_num_;
  int frame_skip_;
  int64_t noop_max_;
  bool episodic_life_;
  bool zero_discount_on_life_loss_;
  bool reward_clip_;
  bool gray_scale_;
  bool include_ram_;
  bool full_action_space_;
  int64_t mode_;
  int64_t difficulty_;
  float sticky_;
  int height_, width_, channels_;
  size_t frame_bytes_;
  int raw_height_ = kMinRawHeight;
  int raw_size_ = kMinRawHeight * kRawWidth;
  image::PlaneResizer resizer_;

  std::unique_ptr<ale::ALEInterface> ale_;
  ale::ActionVect action_set_;
  bool fire_reset_ = false;
  int32_t ale_seed_ = 0;
  bool reload_ = true;
  std::array<uint8_t, 256> gray_lut_{};
  std::array<std::array<uint8_t, 3>, 256> rgb_lut_{};

  std::vector<uint8_t> last_;   // AtariPreprocessing's obs_buffer[0]: the last (pooled) frame
  std::vector<uint8_t> prev_;   // obs_buffer[1]: the second-to-last frame
  std::vector<uint8_t> stack_;  // stack_num resized frames, a ring; head_ is the newest
  int head_ = 0;

  int lives_ = 0;
  double raw_reward_ = 0.0;
  bool game_over_ = false;
  bool life_lost_ = false;
  bool continue_game_ = false;
};

}  // namespace atari
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ATARI_ATARI_ENV_H_
