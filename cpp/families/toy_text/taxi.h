// Taxi-v4, a port of Gymnasium 1.4.0's gymnasium/envs/toy_text/taxi.py (TaxiEnv), including
// the rainy transitions and the fickle passenger. The transition table is built exactly as the
// reference builds it (its wall checks against the ASCII map included), and the random draws
// are the reference's, in order:
//   reset: categorical_sample(initial_state_distrib) [one random()], then, only if
//          fickle_passenger, random() < fickle_probability
//   step:  categorical_sample(P[s][a]) [one random()], then, when the fickle step fires,
//          np_random.choice(<the 3 other destinations>) [integers(0, 3)]
//
// Options (names and defaults as TaxiEnv.__init__): is_rainy (false), fickle_passenger
// (false), rainy_probability (0.8), fickle_probability (0.3).
// Observation: Discrete(500), ((taxi_row * 5 + taxi_col) * 5 + passenger_location) * 4 +
// destination. Action: Discrete(6) (south, north, east, west, pickup, dropoff).
// Info: "prob" (float64; 1 at reset) and "action_mask" (int8, shape (6,)).
//
// Render: TaxiEnv._render_gui in rgb_array mode (see render.h), 536x456 pixels at render_fps 4.
// The taxi faces the way of the last move (south, north, east, west); a reset turns it south.
// Gymnasium updates that heading only when it renders (from lastaction), so a frame drawn after
// a pickup or dropoff that follows unrendered moves can face differently there; here it is
// always the last move's. Option assets_dir: the directory of Gymnasium's toy-text sprites
// (set by the Python registration).
#ifndef ENVFLEET_FAMILIES_TOY_TEXT_TAXI_H_
#define ENVFLEET_FAMILIES_TOY_TEXT_TAXI_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/env.h"
#include "core/spec.h"
#include "families/toy_text/discrete.h"
#include "families/toy_text/render.h"

namespace envfleet::toy_text {

class TaxiEnv : public toy_text::TabularEnv {
 public:
  static Config DefaultConfig() {
    return {{"is_rainy", false},
            {"fickle_passenger", false},
            {"rainy_probability", 0.8},
            {"fickle_probability", 0.3},
            {"assets_dir", std::string()}};
  }

  static EnvSpec Spec(const Config& config) {
    files::CheckFolderIfGiven("assets_dir", config.Get<std::string>("assets_dir"));
    EnvSpec spec = TabularSpec(kNumStates, kNumActions);
    spec.info.push_back(Box("action_mask", DType::kInt8, {kNumActions}, {0.0}, {1.0}));
    spec.render = PixelArtRender(kWindowWidth, kWindowHeight);
    return spec;
  }

  TaxiEnv(const Config& config, uint64_t seed)
      : TabularEnv(seed, "Taxi", kNumStates, kNumActions),
        rainy_probability_(config.Get<double>("rainy_probability")),
        rainy_lateral_probability_((1.0 - rainy_probability_) / 2.0),
        fickle_passenger_(config.Get<bool>("fickle_passenger")),
        fickle_probability_(config.Get<double>("fickle_probability")),
        assets_dir_(config.Get<std::string>("assets_dir")) {
    const bool is_rainy = config.Get<bool>("is_rainy");
    std::vector<double> start(kNumStates, 0.0);
    for (int row = 0; row < 5; ++row) {
      for (int col = 0; col < 5; ++col) {
        for (int pass_idx = 0; pass_idx < 5; ++pass_idx) {
          for (int dest_idx = 0; dest_idx < 4; ++dest_idx) {
            const int64_t state = Encode(row, col, pass_idx, dest_idx);
            if (pass_idx < 4 && pass_idx != dest_idx) start[state] += 1.0;
            for (int action = 0; action < kNumActions; ++action) {
              if (is_rainy) {
                BuildRainyTransitions(row, col, pass_idx, dest_idx, action);
              } else {
                BuildDryTransitions(row, col, pass_idx, dest_idx, action);
              }
            }
          }
        }
      }
    }
    initial_state_ = toy_text::InitialStateDistribution(start);
  }

  void Reset() override {
    TabularEnv::Reset();
    fickle_step_ = fickle_passenger_ && rng().Random() < fickle_probability_;
    orientation_ = 0;
  }

  // The fickle passenger: on the first move with the passenger on board after a reset that
  // drew it, the destination changes to one of the other three.
  void Step(const void* action) override {
    const Decoded shadow = Decode(state_);
    TabularEnv::Step(action);
    const int64_t a = *static_cast<const int64_t*>(action);  // checked by TabularEnv::Step
    if (a <= 3) orientation_ = static_cast<int>(a);          // a move: the taxi turns
    const Decoded next = Decode(state_);
    if (fickle_passenger_ && fickle_step_ && shadow.pass_loc == 4 &&
        (next.row != shadow.row || next.col != shadow.col)) {
      fickle_step_ = false;
      int possible[3];
      int n = 0;
      for (int i = 0; i < 4; ++i) {
        if (i != shadow.dest_idx) possible[n++] = i;
      }
      const int dest_idx = possible[rng().ChoiceIndex(3)];
      state_ = Encode(next.row, next.col, next.pass_loc, dest_idx);
    }
  }

  void Write(const OutputSlot& out) const override {
    TabularEnv::Write(out);
    ActionMask(state_, out.Get<int8_t>(2));
  }

  // _render_gui("rgb_array"): the canvas colour, the background (frame, walls, pads) and the
  // house, the destination marker, the waiting passenger, the taxi (empty or full) turned to
  // its heading.
  void Render(int /*camera_id*/, int width, int height, uint8_t* rgb) override {
    CheckFrameSize("Taxi", width, height, kWindowWidth, kWindowHeight);
    if (!sprites_.background) LoadSprites();
    const image::RgbFrame frame{rgb, width, height};
    image::Fill(frame, {250, 250, 246});              // CANVAS_COLOR
    image::Blit(frame, *sprites_.background, 0, 80);  // BACKGROUND_POS
    image::Blit(frame, *sprites_.house, 403, 36);     // HOUSE_POS
    const Decoded d = Decode(state_);
    static const int kLocs[4][2] = {{0, 0}, {0, 4}, {4, 0}, {4, 3}};
    // get_surf_loc: GRID_ORIGIN (48, 128) + (col, row) * CELL_SIZE (88, 56).
    const auto surf_x = [](int col) { return 48 + col * 88; };
    const auto surf_y = [](int row) { return 128 + row * 56; };
    image::Blit(frame, *sprites_.destination, surf_x(kLocs[d.dest_idx][1]),
                surf_y(kLocs[d.dest_idx][0]));
    if (d.pass_loc < 4) {  // PASSENGER_OFFSET (35, 19)
      image::Blit(frame, *sprites_.passenger, surf_x(kLocs[d.pass_loc][1]) + 35,
                  surf_y(kLocs[d.pass_loc][0]) + 19);
    }
    const image::Image& taxi =
        d.pass_loc == 4 ? *sprites_.taxi_full[orientation_] : *sprites_.taxi[orientation_];
    // TAXI_V_OFFSET (25, 0) facing south or north, TAXI_H_OFFSET (15, 9) east or west.
    const int dx = orientation_ < 2 ? 25 : 15, dy = orientation_ < 2 ? 0 : 9;
    image::Blit(frame, taxi, surf_x(d.col) + dx, surf_y(d.row) + dy);
  }

 private:
  static constexpr int kWindowWidth = 536;  // WINDOW_SIZE
  static constexpr int kWindowHeight = 456;
  static constexpr int kNumStates = 500;
  static constexpr int kNumActions = 6;
  static constexpr int kMaxRow = 4;
  static constexpr int kMaxCol = 4;

  struct Decoded {
    int row, col, pass_loc, dest_idx;
  };

  // MAP = ["+---------+", "|R: | : :G|", ...]; the reference indexes it as desc[1 + row, c].
  static char Desc(int r, int c) {
    static const char* const kMap[7] = {
        "+---------+", "|R: | : :G|", "| : | : : |", "| : : : : |",
        "| | : | : |", "|Y| : |B: |", "+---------+",
    };
    return kMap[r][c];
  }

  static bool IsLoc(int row, int col, int* index) {
    static const int kLocs[4][2] = {{0, 0}, {0, 4}, {4, 0}, {4, 3}};
    for (int i = 0; i < 4; ++i) {
      if (kLocs[i][0] == row && kLocs[i][1] == col) {
        if (index) *index = i;
        return true;
      }
    }
    return false;
  }
  static bool AtLoc(int row, int col, int loc) {
    int index = -1;
    return IsLoc(row, col, &index) && index == loc;
  }

  static int64_t Encode(int row, int col, int pass_loc, int dest_idx) {
    return ((static_cast<int64_t>(row) * 5 + col) * 5 + pass_loc) * 4 + dest_idx;
  }
  static Decoded Decode(int64_t i) {
    Decoded d;
    d.dest_idx = static_cast<int>(i % 4);
    i /= 4;
    d.pass_loc = static_cast<int>(i % 5);
    i /= 5;
    d.col = static_cast<int>(i % 5);
    d.row = static_cast<int>(i / 5);
    return d;
  }

  // What an action does to the passenger, with the step's default reward of -1: _pickup for
  // 4, _dropoff for 5, nothing for a move.
  struct Passenger {
    int pass_idx;
    double reward;
    bool terminated;
  };
  static Passenger PassengerOutcome(int row, int col, int pass_idx, int dest_idx, int action) {
    const double reward = -1.0;
    int loc = -1;
    if (action == 4) {  // _pickup(taxi_loc, pass_idx, reward)
      if (pass_idx < 4 && AtLoc(row, col, pass_idx)) return {4, reward, false};
      return {pass_idx, -10.0, false};
    }
    if (action == 5) {  // _dropoff(taxi_loc, pass_idx, dest_idx, reward)
      if (AtLoc(row, col, dest_idx) && pass_idx == 4) return {dest_idx, 20.0, true};
      if (IsLoc(row, col, &loc) && pass_idx == 4) return {loc, reward, false};
      return {pass_idx, -10.0, false};
    }
    return {pass_idx, reward, false};
  }

  void BuildDryTransitions(int row, int col, int pass_idx, int dest_idx, int action) {
    const int64_t state = Encode(row, col, pass_idx, dest_idx);
    const Passenger p = PassengerOutcome(row, col, pass_idx, dest_idx, action);
    int new_row = row, new_col = col;
    if (action == 0) {
      new_row = std::min(row + 1, kMaxRow);
    } else if (action == 1) {
      new_row = std::max(row - 1, 0);
    }
    if (action == 2 && Desc(1 + row, 2 * col + 2) == ':') {
      new_col = std::min(col + 1, kMaxCol);
    } else if (action == 3 && Desc(1 + row, 2 * col) == ':') {
      new_col = std::max(col - 1, 0);
    }
    Transitions(state, action)
        .push_back({1.0, Encode(new_row, new_col, p.pass_idx, dest_idx), p.reward, p.terminated});
  }

  // _calc_new_position(row, col, movement)
  static std::pair<int, int> CalcNewPosition(int row, int col, int dr, int dc) {
    const int new_row = std::max(0, std::min(row + dr, kMaxRow));
    const int new_col = std::max(0, std::min(col + dc, kMaxCol));
    if (dc == 1 && Desc(1 + new_row, 2 * new_col) != ':') return {row, col};
    if (dc == -1 && Desc(1 + new_row, 2 * new_col + 2) != ':') return {row, col};
    return {new_row, new_col};
  }

  void BuildRainyTransitions(int row, int col, int pass_idx, int dest_idx, int action) {
    const int64_t state = Encode(row, col, pass_idx, dest_idx);
    const Passenger p = PassengerOutcome(row, col, pass_idx, dest_idx, action);
    std::pair<int, int> left_pos = {row, col}, right_pos = {row, col};
    int new_row = row, new_col = col;
    // (forward, left, right) (dr, dc) for each heading.
    static const int kMoves[4][3][2] = {
        {{1, 0}, {0, 1}, {0, -1}},
        {{-1, 0}, {0, -1}, {0, 1}},
        {{0, 1}, {-1, 0}, {1, 0}},
        {{0, -1}, {1, 0}, {-1, 0}},
    };
    if ((action == 0 && row < kMaxRow) || (action == 1 && row > 0) ||
        (action == 2 && Desc(1 + row, 2 * col + 2) == ':') ||
        (action == 3 && Desc(1 + row, 2 * col) == ':')) {
      new_row = std::max(0, std::min(row + kMoves[action][0][0], kMaxRow));
      new_col = std::max(0, std::min(col + kMoves[action][0][1], kMaxCol));
      left_pos = CalcNewPosition(row, col, kMoves[action][1][0], kMoves[action][1][1]);
      right_pos = CalcNewPosition(row, col, kMoves[action][2][0], kMoves[action][2][1]);
    }
    const int64_t intended_state = Encode(new_row, new_col, p.pass_idx, dest_idx);
    auto& li = Transitions(state, action);
    if (action <= 3) {
      const int64_t left_state = Encode(left_pos.first, left_pos.second, p.pass_idx, dest_idx);
      const int64_t right_state = Encode(right_pos.first, right_pos.second, p.pass_idx, dest_idx);
      li.push_back({rainy_probability_, intended_state, -1.0, p.terminated});
      li.push_back({rainy_lateral_probability_, left_state, -1.0, p.terminated});
      li.push_back({rainy_lateral_probability_, right_state, -1.0, p.terminated});
    } else {
      li.push_back({1.0, intended_state, p.reward, p.terminated});
    }
  }

  // action_mask(state)
  static void ActionMask(int64_t state, int8_t* mask) {
    const Decoded d = Decode(state);
    for (int i = 0; i < kNumActions; ++i) mask[i] = 0;
    if (d.row < 4) mask[0] = 1;
    if (d.row > 0) mask[1] = 1;
    if (d.col < 4 && Desc(d.row + 1, 2 * d.col + 2) == ':') mask[2] = 1;
    if (d.col > 0 && Desc(d.row + 1, 2 * d.col) == ':') mask[3] = 1;
    if (d.pass_loc < 4 && AtLoc(d.row, d.col, d.pass_loc)) mask[4] = 1;
    if (d.pass_loc == 4 && (AtLoc(d.row, d.col, d.dest_idx) || IsLoc(d.row, d.col, nullptr))) {
      mask[5] = 1;
    }
  }

  // orientations(name): south = the vertical sprite flipped upside down, north = as drawn,
  // east = the horizontal sprite, west = it mirrored.
  void LoadSprites() {
    const auto load = [&](const std::string& name, image::SpriteOptions options = {}) {
      return LoadAsset(assets_dir_, "taxi/" + name + ".png", options);
    };
    const auto orientations = [&](const std::string& suffix, image::Sprite* out) {
      out[0] = load("taxi_v" + suffix, {.flip_y = true});
      out[1] = load("taxi_v" + suffix);
      out[2] = load("taxi_h" + suffix);
      out[3] = load("taxi_h" + suffix, {.flip_x = true});
    };
    Sprites s;  // (sprites_.background set marks them loaded)
    orientations("", s.taxi);
    orientations("_full", s.taxi_full);
    s.passenger = load("passenger");
    s.destination = load("marker_destination");
    s.house = load("house");
    s.background = load("background");
    sprites_ = std::move(s);
  }

  struct Sprites {
    image::Sprite taxi[4], taxi_full[4], passenger, destination, house, background;
  };

  double rainy_probability_;
  double rainy_lateral_probability_;
  bool fickle_passenger_;
  double fickle_probability_;
  bool fickle_step_ = false;
  int orientation_ = 0;  // taxi_orientation: 0 south, 1 north, 2 east, 3 west
  std::string assets_dir_;
  Sprites sprites_;
};

}  // namespace envfleet::toy_text

#endif  // ENVFLEET_FAMILIES_TOY_TEXT_TAXI_H_
