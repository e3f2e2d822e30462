// CliffWalking-v1 / CliffWalkingSlippery-v1, a port of Gymnasium 1.4.0's
// gymnasium/envs/toy_text/cliffwalking.py (CliffWalkingEnv): a 4x12 grid, start (3, 0), goal
// (3, 11), cliff (3, 1..10) sending the agent back to the start with reward -100 (the episode
// goes on). Every step draws one random() (categorical_sample), slippery or not, as there.
//
// Option: is_slippery (false): the move is the intended one or either perpendicular one, 1/3
// each. Observation: Discrete(48), row * 12 + col. Action: Discrete(4) (up, right, down,
// left). Info: "prob" (float64), 1/len(outcomes) for the transition taken; 1 at reset.
#ifndef ENVFLEET_FAMILIES_TOY_TEXT_CLIFF_WALKING_H_
#define ENVFLEET_FAMILIES_TOY_TEXT_CLIFF_WALKING_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/spec.h"
#include "families/toy_text/discrete.h"

namespace envfleet::toy_text {

class CliffWalkingEnv : public toy_text::TabularEnv {
 public:
  static Config DefaultConfig() { return {{"is_slippery", false}}; }

  static EnvSpec Spec(const Config&) { return TabularSpec(kRows * kCols, 4); }

  CliffWalkingEnv(const Config& config, uint64_t seed)
      : TabularEnv(seed, "CliffWalking", kRows * kCols, 4) {
    const bool is_slippery = config.Get<bool>("is_slippery");
    // POSITION_MAPPING: UP, RIGHT, DOWN, LEFT.
    const int dr[4] = {-1, 0, 1, 0};
    const int dc[4] = {0, 1, 0, -1};
    for (int s = 0; s < kRows * kCols; ++s) {
      const int row = s / kCols, col = s % kCols;
      for (int move = 0; move < 4; ++move) {
        std::vector<int> acts;
        if (is_slippery) {
          acts = {(move + 3) % 4, move, (move + 1) % 4};
        } else {
          acts = {move};
        }
        const double prob = 1.0 / static_cast<double>(acts.size());
        auto& outcomes = Transitions(s, move);
        for (int act : acts) {
          const int r = std::max(std::min(row + dr[act], kRows - 1), 0);
          const int c = std::max(std::min(col + dc[act], kCols - 1), 0);
          if (r == kRows - 1 && c >= 1 && c <= kCols - 2) {  // the cliff
            outcomes.push_back({prob, kStartState, -100.0, false});
          } else {
            const bool terminated = r == kRows - 1 && c == kCols - 1;
            outcomes.push_back({prob, static_cast<int64_t>(r) * kCols + c, -1.0, terminated});
          }
        }
      }
    }
    // initial_state_distrib: one-hot on the start (still one random() draw per reset).
    std::vector<double> start(kRows * kCols, 0.0);
    start[kStartState] = 1.0;
    initial_state_ = toy_text::InitialStateDistribution(start);
  }

 private:
  static constexpr int kRows = 4;
  static constexpr int kCols = 12;
  static constexpr int64_t kStartState = 3 * kCols + 0;
};

}  // namespace envfleet::toy_text

#endif  // ENVFLEET_FAMILIES_TOY_TEXT_CLIFF_WALKING_H_
