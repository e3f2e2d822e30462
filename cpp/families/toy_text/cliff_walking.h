// CliffWalking-v1 / CliffWalkingSlippery-v1, a port of Gymnasium 1.4.0's
// gymnasium/envs/toy_text/cliffwalking.py (CliffWalkingEnv): a 4x12 grid, start (3, 0), goal
// (3, 11), cliff (3, 1..10) sending the agent back to the start with reward -100 (the episode
// goes on). Every step draws one random() (categorical_sample), slippery or not, as there.
//
// Option: is_slippery (false): the move is the intended one or either perpendicular one, 1/3
// each. Observation: Discrete(48), row * 12 + col. Action: Discrete(4) (up, right, down,
// left). Info: "prob" (float64), 1/len(outcomes) for the transition taken; 1 at reset.
//
// Render: CliffWalkingEnv._render_gui in rgb_array mode (see render.h), 768x256 pixels at
// render_fps 4. Option assets_dir: the directory of Gymnasium's toy-text sprites (set by the
// Python registration).
#ifndef ENVFLEET_FAMILIES_TOY_TEXT_CLIFF_WALKING_H_
#define ENVFLEET_FAMILIES_TOY_TEXT_CLIFF_WALKING_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/spec.h"
#include "families/toy_text/discrete.h"
#include "families/toy_text/render.h"

namespace envfleet::toy_text {

class CliffWalkingEnv : public toy_text::TabularEnv {
 public:
  static Config DefaultConfig() { return {{"is_slippery", false}, {"assets_dir", std::string()}}; }

  static EnvSpec Spec(const Config& config) {
    files::CheckFolderIfGiven("assets_dir", config.Get<std::string>("assets_dir"));
    EnvSpec spec = TabularSpec(kRows * kCols, 4);
    spec.render = PixelArtRender(kCols * kCell, kRows * kCell);
    return spec;
  }

  CliffWalkingEnv(const Config& config, uint64_t seed)
      : TabularEnv(seed, "CliffWalking", kRows * kCols, 4),
        assets_dir_(config.Get<std::string>("assets_dir")) {
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

  // _render_gui("rgb_array"), cell by cell in state order: ground, cliff tile, the start or
  // goal letter (and the goal's flag), the agent. Cells are 64 pixels, the art's own size, so
  // its pygame.transform.scale by 64 / ART_CELL_SIZE = 1 keeps every sprite as it is.
  void Render(int /*camera_id*/, int width, int height, uint8_t* rgb) override {
    CheckFrameSize("CliffWalking", width, height, kCols * kCell, kRows * kCell);
    if (!sprites_.ground) {
      const auto load = [&](const char* name) {
        return LoadAsset(assets_dir_, std::string("cliff_walking/") + name);
      };
      Sprites s;
      s.cliff_left = load("tile_cliff_left.png");
      s.cliff_mid_a = load("tile_cliff_mid_a.png");
      s.cliff_mid_b = load("tile_cliff_mid_b.png");
      s.cliff_right = load("tile_cliff_right.png");
      s.start = load("letter_s.png");
      s.goal = load("letter_g.png");
      s.goal_flag = load("goal_flag.png");
      s.agent = load("agent.png");
      s.ground = load("tile_ground.png");
      sprites_ = std::move(s);
    }
    const image::RgbFrame frame{rgb, width, height};
    for (int s = 0; s < kRows * kCols; ++s) {
      const int row = s / kCols, col = s % kCols;
      const int x = col * kCell, y = row * kCell;
      image::Blit(frame, *sprites_.ground, x, y);
      if (row == kRows - 1 && col >= 1 && col <= kCols - 2) {  // the cliff: columns 1..10
        const image::Image& tile = col == 1           ? *sprites_.cliff_left
                                   : col == kCols - 2 ? *sprites_.cliff_right
                                   : col % 2 == 0     ? *sprites_.cliff_mid_a
                                                      : *sprites_.cliff_mid_b;
        image::Blit(frame, tile, x, y);
      }
      // LETTER_OFFSET (8, 8), FLAG_OFFSET (28, 16), AGENT_OFFSET (20, 20).
      if (s == kStartState) image::Blit(frame, *sprites_.start, x + 8, y + 8);
      if (s == kRows * kCols - 1) {
        image::Blit(frame, *sprites_.goal, x + 8, y + 8);
        image::Blit(frame, *sprites_.goal_flag, x + 28, y + 16);
      }
      if (s == state_) image::Blit(frame, *sprites_.agent, x + 20, y + 20);
    }
  }

 private:
  static constexpr int kRows = 4;
  static constexpr int kCols = 12;
  static constexpr int kCell = 64;
  static constexpr int64_t kStartState = 3 * kCols + 0;

  struct Sprites {
    image::Sprite ground, cliff_left, cliff_mid_a, cliff_mid_b, cliff_right, start, goal, goal_flag,
        agent;
  };  // (ground set marks them loaded)

  std::string assets_dir_;
  Sprites sprites_;
};

}  // namespace envfleet::toy_text

#endif  // ENVFLEET_FAMILIES_TOY_TEXT_CLIFF_WALKING_H_
