// MiniGrid-LavaCrossing* / SimpleCrossing*: a port of minigrid 3.2.0's CrossingEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/crossing.py).
// Rivers of lava (or walls) cross the room; each has one opening on a path from the agent
// (top-left, facing right) to the goal (bottom-right).
//
// The draws are the reference's: np_random.shuffle of the list of candidate rivers, then of
// the path's directions (Generator.shuffle: one random_interval per swap), and
// np_random.choice(range(...)) for each opening (integers(0, len)). Its naming is kept:
// "limits_v" holds the vertical rivers' columns and ends with height - 1, "limits_h" the
// horizontal ones' rows and ends with width - 1 (the same on the square grids it makes).
//
// Options: size 9 (odd, >= 5), num_crossings 1, obstacle_type "lava" ("wall" for
// SimpleCrossing); max_steps defaults to 4 * size**2. mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_CROSSING_H_
#define ENVFLEET_FAMILIES_MINIGRID_CROSSING_H_

#include <algorithm>
#include <vector>

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class CrossingEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{9}},
                          {"num_crossings", int64_t{1}},
                          {"obstacle_type", std::string("lava")}},
                         /*see_through_walls=*/false);
  }
  static Layout LayoutOf(const Config& config) {
    const int size = static_cast<int>(IntOption(config, "size", 5, kMaxGridSide - 1));
    if (size % 2 == 0) {
      throw std::invalid_argument("size must be odd (CrossingEnv asserts it), got " +
                                  std::to_string(size));
    }
    return {size, size, MaxSteps(config, 4 * int64_t{size} * size)};
  }
  static EnvSpec Spec(const Config& config) {
    ObstacleOption(config);
    IntOption(config, "num_crossings", 0);
    return MiniGridSpec(config, LayoutOf(config));
  }

  CrossingEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)),
        num_crossings_(static_cast<size_t>(IntOption(config, "num_crossings", 0))),
        obstacle_(ObstacleOption(config)) {
    rivers_.reserve(static_cast<size_t>(width_ + height_));
    path_.reserve(rivers_.capacity());
    rivers_v_.reserve(rivers_.capacity());
    rivers_h_.reserve(rivers_.capacity());
  }

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());
    agent_pos_ = {1, 1};
    agent_dir_ = 0;
    PutObj(Goal(), width_ - 2, height_ - 2);
    // rivers = [(v, i) for i in range(2, height - 2, 2)] + [(h, j) for j in range(2, width - 2,
    // 2)], shuffled, the first num_crossings kept.
    rivers_.clear();
    for (int i = 2; i < height_ - 2; i += 2) rivers_.push_back({kVertical, i});
    for (int j = 2; j < width_ - 2; j += 2) rivers_.push_back({kHorizontal, j});
    rng().Shuffle(rivers_.data(), rivers_.size());
    rivers_.resize(std::min(rivers_.size(), num_crossings_));
    rivers_v_.clear();
    rivers_h_.clear();
    for (const River& river : rivers_) {
      (river.direction == kVertical ? rivers_v_ : rivers_h_).push_back(river.pos);
    }
    std::sort(rivers_v_.begin(), rivers_v_.end());
    std::sort(rivers_h_.begin(), rivers_h_.end());
    const ObjectId obstacle = obstacle_ == Type::kLava ? Lava() : Wall();
    for (int i = 1; i < width_ - 1; ++i) {
      for (int j : rivers_h_) PutObj(obstacle, i, j);
    }
    for (int i : rivers_v_) {
      for (int j = 1; j < height_ - 1; ++j) PutObj(obstacle, i, j);
    }
    // path = [h] * len(rivers_v) + [v] * len(rivers_h), shuffled.
    path_.assign(rivers_v_.size(), kHorizontal);
    path_.insert(path_.end(), rivers_h_.size(), kVertical);
    rng().Shuffle(path_.data(), path_.size());
    // limits_v = [0] + rivers_v + [height - 1]; limits_h = [0] + rivers_h + [width - 1]
    const auto limit = [](const std::vector<int>& rivers, size_t k, int last) {
      return k == 0 ? 0 : k <= rivers.size() ? rivers[k - 1] : last;
    };
    size_t room_i = 0, room_j = 0;
    for (Direction direction : path_) {
      int i, j;
      if (direction == kHorizontal) {
        i = limit(rivers_v_, room_i + 1, height_ - 1);
        const int low = limit(rivers_h_, room_j, width_ - 1) + 1;
        j = low +
            static_cast<int>(rng().ChoiceIndex(limit(rivers_h_, room_j + 1, width_ - 1) - low));
        ++room_i;
      } else {
        const int low = limit(rivers_v_, room_i, height_ - 1) + 1;
        i = low +
            static_cast<int>(rng().ChoiceIndex(limit(rivers_v_, room_i + 1, height_ - 1) - low));
        j = limit(rivers_h_, room_j + 1, width_ - 1);
        ++room_j;
      }
      grid_.Set(i, j, kNoObject);
    }
    mission_.Set(obstacle_ == Type::kLava ? "avoid the lava and get to the green goal square"
                                          : "find the opening and get to the green goal square");
  }

 private:
  enum Direction : uint8_t { kVertical, kHorizontal };
  struct River {
    Direction direction;
    int pos;
  };

  const size_t num_crossings_;
  const Type obstacle_;
  std::vector<River> rivers_;
  std::vector<Direction> path_;
  std::vector<int> rivers_v_, rivers_h_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_CROSSING_H_
