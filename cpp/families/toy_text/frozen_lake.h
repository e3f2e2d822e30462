// FrozenLake-v1 / FrozenLake8x8-v1, a port of Gymnasium 1.4.0's
// gymnasium/envs/toy_text/frozen_lake.py (FrozenLakeEnv). The transition table P is built in
// the reference's order and sampled with the same single random() draw per step and per reset,
// so trajectories match bit for bit.
//
// Options (names and defaults as FrozenLakeEnv.__init__):
//   desc            list of strings; empty means None (use map_name)
//   map_name        "4x4" or "8x8"; "" stands for None: with desc also None, a random 8x8 map
//   is_slippery     true
//   success_rate    1/3, probability of the intended move when slippery
//   reward_schedule (1, 0, 0): rewards for reaching Goal, Hole, Frozen (incl. Start).
// Gymnasium's random map is generate_random_map() with seed=None, i.e. OS entropy. Ours is
// generate_random_map(size=8, p=0.8, seed=<this env's seed>), reproduced bit for bit, so the
// maps are reproducible and each env of a pool gets its own, as each Gymnasium env would.
//
// Observation: Discrete(nrow * ncol), row * ncol + col. Action: Discrete(4) (left, down,
// right, up). Info: "prob" (float64), the probability of the transition taken; 1 at reset.
//
// Render: FrozenLakeEnv._render_gui in rgb_array mode (see render.h), a frame of
// min(64 * ncol, 512) x min(64 * nrow, 512) pixels at render_fps 4. Option assets_dir: the
// directory of Gymnasium's toy-text sprites (set by the Python registration).
#ifndef ENVFLEET_FAMILIES_TOY_TEXT_FROZEN_LAKE_H_
#define ENVFLEET_FAMILIES_TOY_TEXT_FROZEN_LAKE_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/numpy/random.h"
#include "core/env.h"
#include "core/spec.h"
#include "families/toy_text/discrete.h"
#include "families/toy_text/render.h"

namespace envfleet::toy_text {

namespace frozen_lake_internal {

inline const std::vector<std::string>& Map4x4() {
  static const std::vector<std::string> map = {"SFFF", "FHFH", "FFFH", "HFFG"};
  return map;
}

inline const std::vector<std::string>& Map8x8() {
  static const std::vector<std::string> map = {
      "SFFFFFFF", "FFFFFFFF", "FFFHFFFF", "FFFFFHFF",
      "FFFHFFFF", "FHHFFFHF", "FHFFHFHF", "FFFHFFFG",
  };
  return map;
}

// is_valid(board, max_size): is a "G" reachable from (0, 0) through tiles other than "H"?
// Only the yes/no answer matters, so the search order need not be the reference's.
inline bool IsValid(const std::vector<std::string>& board, int size) {
  std::vector<char> discovered(static_cast<size_t>(size) * size, 0);
  std::vector<std::pair<int, int>> frontier = {{0, 0}};
  const int dr[4] = {1, 0, -1, 0};
  const int dc[4] = {0, 1, 0, -1};
  while (!frontier.empty()) {
    const auto [r, c] = frontier.back();
    frontier.pop_back();
    char& seen = discovered[static_cast<size_t>(r) * size + c];
    if (seen) continue;
    seen = 1;
    for (int k = 0; k < 4; ++k) {
      const int rn = r + dr[k], cn = c + dc[k];
      if (rn < 0 || rn >= size || cn < 0 || cn >= size) continue;
      if (board[rn][cn] == 'G') return true;
      if (board[rn][cn] != 'H') frontier.push_back({rn, cn});
    }
  }
  return false;
}

// generate_random_map(size, p, seed): np_random.choice(["F", "H"], (size, size), p=[p, 1 - p])
// until valid. numpy's weighted choice: cdf = cumsum(p); cdf /= cdf[-1]; one random() per
// cell in C order; index = cdf.searchsorted(u, side="right").
inline std::vector<std::string> GenerateRandomMap(int size, double p, uint64_t seed) {
  NumpyGenerator rng(seed);
  p = std::min(1.0, p);
  const double p0 = p, p1 = 1.0 - p;
  double cdf0 = p0, cdf1 = p0 + p1;
  const double last = cdf1;
  cdf0 /= last;
  cdf1 /= last;
  std::vector<std::string> board(static_cast<size_t>(size), std::string(size, 'F'));
  while (true) {
    for (int r = 0; r < size; ++r) {
      for (int c = 0; c < size; ++c) {
        const double u = rng.Random();
        const int index = (cdf0 <= u) + (cdf1 <= u);
        board[r][c] = index == 0 ? 'F' : 'H';  // index 2 cannot happen for a valid p
      }
    }
    board[0][0] = 'S';
    board[size - 1][size - 1] = 'G';
    if (IsValid(board, size)) return board;
  }
}

// desc if given, else MAPS[map_name], else a random 8x8 map.
inline std::vector<std::string> ResolveMap(const Config& config, uint64_t seed) {
  std::vector<std::string> desc = config.Get<std::vector<std::string>>("desc");
  if (desc.empty()) {
    const std::string& name = config.Get<std::string>("map_name");
    if (name.empty()) {
      desc = GenerateRandomMap(8, 0.8, seed);
    } else if (name == "4x4") {
      desc = Map4x4();
    } else if (name == "8x8") {
      desc = Map8x8();
    } else {
      throw std::invalid_argument("FrozenLake: unknown map_name '" + name +
                                  "' (expected \"4x4\", \"8x8\" or \"\" for a random map)");
    }
  }
  const size_t ncol = desc.front().size();
  if (ncol == 0) throw std::invalid_argument("FrozenLake: desc rows must not be empty");
  // States are numbered with ints (row * ncol + col).
  if (desc.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()) / ncol) {
    throw std::invalid_argument("FrozenLake: desc has " + std::to_string(desc.size()) + "x" +
                                std::to_string(ncol) + " cells, more than 2**31 - 1");
  }
  for (const std::string& row : desc) {
    if (row.size() != ncol) throw std::invalid_argument("FrozenLake: desc rows differ in length");
  }
  return desc;
}

inline std::vector<double> RewardSchedule(const Config& config) {
  const auto& values = config.Get<std::vector<double>>("reward_schedule");
  if (values.size() < 3) {
    throw std::invalid_argument("FrozenLake: reward_schedule needs 3 values (goal, hole, frozen)");
  }
  return values;
}

}  // namespace frozen_lake_internal

class FrozenLakeEnv : public toy_text::TabularEnv {
 public:
  static Config DefaultConfig() {
    return {{"desc", std::vector<std::string>{}},
            {"map_name", std::string("4x4")},
            {"is_slippery", true},
            {"success_rate", 1.0 / 3.0},
            {"reward_schedule", std::vector<double>{1.0, 0.0, 0.0}},
            {"assets_dir", std::string()}};
  }

  static EnvSpec Spec(const Config& config) {
    files::CheckFolderIfGiven("assets_dir", config.Get<std::string>("assets_dir"));
    // The random map is always 8x8; its contents do not change the spec.
    const auto desc = frozen_lake_internal::ResolveMap(config, 0);
    const auto rewards = frozen_lake_internal::RewardSchedule(config);
    EnvSpec spec = TabularSpec(static_cast<int64_t>(desc.size() * desc.front().size()), 4);
    // FrozenLake-v1 registers 100 steps, FrozenLake8x8-v1 (map_name "8x8") 200.
    spec.reward_low = *std::min_element(rewards.begin(), rewards.end());
    spec.reward_high = *std::max_element(rewards.begin(), rewards.end());
    const auto [width, height] =
        WindowSize(static_cast<int>(desc.size()), static_cast<int>(desc.front().size()));
    spec.render = PixelArtRender(width, height);
    return spec;
  }

  FrozenLakeEnv(const Config& config, uint64_t seed)
      : FrozenLakeEnv(config, seed, frozen_lake_internal::ResolveMap(config, seed)) {}

  // _render_gui("rgb_array"): tiles, cracks, letters and flag per cell with a 1-pixel outline,
  // then the agent (hidden in a hole). Sprites are scaled to the cell (tiles) or by
  // min(cell) / 64 (the others, drawn for 64-pixel cells), as there.
  void Render(int /*camera_id*/, int width, int height, uint8_t* rgb) override {
    const int nrow = static_cast<int>(desc_.size());
    const int ncol = static_cast<int>(desc_.front().size());
    const auto [window_w, window_h] = WindowSize(nrow, ncol);
    CheckFrameSize("FrozenLake", width, height, window_w, window_h);
    const int cell_w = window_w / ncol, cell_h = window_h / nrow;
    if (!sprites_.ice) LoadSprites(cell_w, cell_h);
    const image::RgbFrame frame{rgb, width, height};
    // The cells cover ncol * cell_w x nrow * cell_h pixels; the rest of the window (a map of
    // more than 8 columns or rows: 512 // n cells) is never drawn there and stays black.
    image::Fill(frame, {0, 0, 0});

    // blit_overlay(img, col, row, anchor); Python's float positions are truncated by pygame.
    const auto blit_overlay = [&](const image::Image& img, int col, int row, char anchor) {
      const int cx = col * cell_w, cy = row * cell_h;
      if (anchor == 'c') {  // "corner"
        const int margin = static_cast<int>(image::PyRound(cell_w * 0.06));
        image::Blit(frame, img, cx + margin, cy + margin);
      } else if (anchor == 'f') {  // "flag": bottom-centred
        const double x = cx + (cell_w - img.width) / 2.0;
        const int64_t y = cy + cell_h - img.height - image::PyRound(cell_h * 0.12);
        image::Blit(frame, img, static_cast<int>(x), static_cast<int>(y));
      } else {  // centred
        const double x = cx + (cell_w - img.width) / 2.0;
        const double y = cy + (cell_h - img.height) / 2.0;
        image::Blit(frame, img, static_cast<int>(x), static_cast<int>(y));
      }
    };

    for (int y = 0; y < nrow; ++y) {
      for (int x = 0; x < ncol; ++x) {
        const int px = x * cell_w, py = y * cell_h;
        const char tile = desc_[y][x];
        if (tile == 'H') {
          image::Blit(frame, *sprites_.hole, px, py);
        } else {
          image::Blit(frame, *sprites_.ice, px, py);
          if (tile == 'F') {
            // Cracks on some frozen tiles, chosen by position.
            const int crack = (x * 3 + y * 5) % 7;
            if (crack < 2) image::Blit(frame, *sprites_.cracks[crack], px, py);
          } else if (tile == 'S') {
            blit_overlay(*sprites_.letter_s, x, y, 'c');
          } else if (tile == 'G') {
            blit_overlay(*sprites_.goal_flag, x, y, 'f');
            blit_overlay(*sprites_.letter_g, x, y, 'c');
          }
        }
        image::DrawRect(frame, px, py, cell_w, cell_h, 1, {180, 200, 230});
      }
    }
    const int row = static_cast<int>(state_ / ncol), col = static_cast<int>(state_ % ncol);
    if (desc_[row][col] != 'H') blit_overlay(*sprites_.agent, col, row, 'm');
  }

 private:
  FrozenLakeEnv(const Config& config, uint64_t seed, const std::vector<std::string>& desc)
      : TabularEnv(seed, "FrozenLake", static_cast<int64_t>(desc.size() * desc.front().size()), 4),
        desc_(desc),
        assets_dir_(config.Get<std::string>("assets_dir")) {
    const auto rewards = frozen_lake_internal::RewardSchedule(config);
    const bool is_slippery = config.Get<bool>("is_slippery");
    const double success_rate = config.Get<double>("success_rate");
    const double fail_rate = (1.0 - success_rate) / 2.0;
    const int nrow = static_cast<int>(desc.size());
    const int ncol = static_cast<int>(desc.front().size());
    const int num_states = nrow * ncol;

    std::vector<double> start(static_cast<size_t>(num_states), 0.0);
    for (int s = 0; s < num_states; ++s) start[s] = desc[s / ncol][s % ncol] == 'S' ? 1.0 : 0.0;
    initial_state_ = toy_text::InitialStateDistribution(start);

    auto to_s = [ncol](int row, int col) { return static_cast<int64_t>(row) * ncol + col; };
    auto outcome = [&](double prob, int row, int col, int a) {
      if (a == kLeft) {
        col = std::max(col - 1, 0);
      } else if (a == kDown) {
        row = std::min(row + 1, nrow - 1);
      } else if (a == kRight) {
        col = std::min(col + 1, ncol - 1);
      } else if (a == kUp) {
        row = std::max(row - 1, 0);
      }
      const char letter = desc[row][col];
      const bool terminated = letter == 'G' || letter == 'H';
      const double reward = rewards[letter == 'G' ? 0 : letter == 'H' ? 1 : 2];
      return toy_text::Transition{prob, to_s(row, col), reward, terminated};
    };

    for (int row = 0; row < nrow; ++row) {
      for (int col = 0; col < ncol; ++col) {
        const int64_t s = to_s(row, col);
        for (int a = 0; a < 4; ++a) {
          auto& li = Transitions(s, a);
          const char letter = desc[row][col];
          if (letter == 'G' || letter == 'H') {
            li.push_back({1.0, s, 0.0, true});
          } else if (is_slippery) {
            for (int b : {(a + 3) % 4, a, (a + 1) % 4}) {
              li.push_back(outcome(b == a ? success_rate : fail_rate, row, col, b));
            }
          } else {
            li.push_back(outcome(1.0, row, col, a));
          }
        }
      }
    }
  }

  // window_size = (min(64 * ncol, 512), min(64 * nrow, 512)).
  static std::pair<int, int> WindowSize(int nrow, int ncol) {
    return {std::min(64 * ncol, 512), std::min(64 * nrow, 512)};
  }

  // load_tile (scaled to the cell) and load_overlay (native size times min(cell) / 64, rounded,
  // at least 1) of _render_gui.
  void LoadSprites(int cell_w, int cell_h) {
    const auto tile = [&](const char* name) {
      return LoadAsset(assets_dir_, name, {cell_w, cell_h});
    };
    const double scale = std::min(cell_w, cell_h) / 64.0;
    const auto overlay = [&](const char* name, int w, int h) {
      const int sw = static_cast<int>(std::max<int64_t>(1, image::PyRound(w * scale)));
      const int sh = static_cast<int>(std::max<int64_t>(1, image::PyRound(h * scale)));
      return LoadAsset(assets_dir_, name, {sw, sh});
    };
    Sprites s;  // (sprites_.ice set marks them loaded)
    s.hole = tile("tile_hole.png");
    s.cracks[0] = tile("tile_ice_crack_a.png");
    s.cracks[1] = tile("tile_ice_crack_b.png");
    s.agent = overlay("agent.png", 40, 36);
    s.goal_flag = overlay("goal_flag.png", 24, 32);
    s.letter_s = overlay("letter_s.png", 12, 20);
    s.letter_g = overlay("letter_g.png", 12, 20);
    s.ice = tile("tile_ice.png");
    sprites_ = std::move(s);
  }

  static constexpr int kLeft = 0;
  static constexpr int kDown = 1;
  static constexpr int kRight = 2;
  static constexpr int kUp = 3;

  struct Sprites {
    image::Sprite ice, hole, cracks[2], agent, goal_flag, letter_s, letter_g;
  };

  std::vector<std::string> desc_;
  std::string assets_dir_;
  Sprites sprites_;
};

}  // namespace envfleet::toy_text

#endif  // ENVFLEET_FAMILIES_TOY_TEXT_FROZEN_LAKE_H_
