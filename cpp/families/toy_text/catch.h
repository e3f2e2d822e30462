// Catch-v0 (EnvPool's id), a port of bsuite 0.3.6's bsuite/environments/catch.py (Catch): a
// ball falls from the top row of a height x width board, one row per step, in a column drawn
// at reset; the agent moves a paddle along the bottom row. When the ball reaches the bottom
// row the episode ends with reward 1 if the paddle is under it, else -1; every other step pays
// 0. An episode is always height - 1 steps.
//
// Randomness as bsuite's: Catch(seed=seed) draws the ball's column with
// np.random.RandomState(seed).randint(width) at each reset (the NumpyRandomState twin), so
// seeds are 0 .. 2**32 - 1, as NumPy takes them.
//
// Options: height (10) and width (5), EnvPool's names for bsuite's rows and columns.
// Observation: the float32 board (height, width), 1 where the ball and the paddle are, else 0.
// Action: Discrete(3): 0 left, 1 stay, 2 right (bsuite's _ACTIONS = (-1, 0, 1)), the paddle
// kept on the board. No info, no renderer (bsuite's Catch has none).
#ifndef ENVFLEET_FAMILIES_TOY_TEXT_CATCH_H_
#define ENVFLEET_FAMILIES_TOY_TEXT_CATCH_H_

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/numpy/random_state.h"
#include "core/env.h"
#include "core/spec.h"

namespace envfleet::toy_text {

class CatchEnv : public Env {
 public:
  static Config DefaultConfig() { return {{"height", int64_t{10}}, {"width", int64_t{5}}}; }

  static EnvSpec Spec(const Config& config) {
    EnvSpec spec;
    spec.obs = {
        Box("obs", DType::kFloat32, {CheckedHeight(config), CheckedWidth(config)}, {0.0}, {1.0})};
    spec.action = Discrete("action", 3);
    spec.reward_low = -1.0;
    spec.reward_high = 1.0;
    return spec;
  }

  CatchEnv(const Config& config, uint64_t seed)
      : Env(seed),
        rows_(CheckedHeight(config)),
        columns_(CheckedWidth(config)),
        random_(CheckedSeed(seed)) {}

  void Reset() override {
    ball_x_ = random_.RandInt(0, columns_);  // self._rng.randint(self._columns)
    ball_y_ = 0;
    paddle_x_ = columns_ / 2;
  }

  void Step(const void* action) override {
    const int64_t a = *static_cast<const int64_t*>(action);
    if (a < 0 || a > 2) throw std::out_of_range("Catch: action must be in [0, 3)");
    // np.clip(self._paddle_x + dx, 0, self._columns - 1)
    paddle_x_ = std::clamp(paddle_x_ + (a - 1), int64_t{0}, columns_ - 1);
    ++ball_y_;
    terminated_ = ball_y_ == rows_ - 1;  // self._paddle_y
    reward_ = !terminated_ ? 0.0 : paddle_x_ == ball_x_ ? 1.0 : -1.0;
  }

  void Write(const OutputSlot& out) const override {
    float* board = out.Get<float>(0);
    std::fill(board, board + rows_ * columns_, 0.0f);
    board[ball_y_ * columns_ + ball_x_] = 1.0f;
    board[(rows_ - 1) * columns_ + paddle_x_] = 1.0f;
  }

  // reset(seed=...) makes a new RandomState(seed), as Catch(seed=seed) does.
  void Seed(uint64_t seed) override {
    Env::Seed(seed);
    random_.Seed(CheckedSeed(seed));
  }

 private:
  // Two rows at least: the ball starts above the paddle's row.
  static int64_t CheckedHeight(const Config& config) {
    const int64_t height = config.Get<int64_t>("height");
    if (height < 2) {
      throw std::invalid_argument("Catch: height must be >= 2, got " + std::to_string(height));
    }
    return height;
  }
  static int64_t CheckedWidth(const Config& config) {
    const int64_t width = config.Get<int64_t>("width");
    if (width < 1) {
      throw std::invalid_argument("Catch: width must be >= 1, got " + std::to_string(width));
    }
    return width;
  }
  static uint32_t CheckedSeed(uint64_t seed) {
    if (seed > NumpyRandomState::kMaxSeed) {
      throw std::invalid_argument(
          "Catch seeds np.random.RandomState as bsuite does, which takes seeds 0 .. 2**32 - 1; "
          "got " +
          std::to_string(seed));
    }
    return static_cast<uint32_t>(seed);
  }

  int64_t rows_, columns_;
  NumpyRandomState random_;
  int64_t ball_x_ = 0, ball_y_ = 0, paddle_x_ = 0;
};

}  // namespace envfleet::toy_text

#endif  // ENVFLEET_FAMILIES_TOY_TEXT_CATCH_H_
