// MiniGrid-LavaGapS*: a port of minigrid 3.2.0's LavaGapEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/lavagap.py).
// A vertical strip of lava (or wall) with one gap between the agent (top-left, facing right)
// and the goal (bottom-right).
//
// Options: size (no default: LavaGapEnv requires it; >= 5), obstacle_type "lava" (minigrid
// takes the class, Lava or Wall; here its name, as EnvPool and CrossingEnv take it); max_steps
// defaults to 4 * size**2. mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_LAVA_GAP_H_
#define ENVFLEET_FAMILIES_MINIGRID_LAVA_GAP_H_

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class LavaGapEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{0}}, {"obstacle_type", std::string("lava")}},
                         /*see_through_walls=*/false);
  }
  static Layout LayoutOf(const Config& config) {
    if (config.Get<int64_t>("size") == 0) {
      throw std::invalid_argument(
          "LavaGap needs the option size (LavaGapEnv has no default; its ids use 5, 6 or 7)");
    }
    const int size = static_cast<int>(IntOption(config, "size", 5, kMaxGridSide));
    return {size, size, MaxSteps(config, 4 * int64_t{size} * size)};
  }
  static EnvSpec Spec(const Config& config) {
    ObstacleOption(config);
    return MiniGridSpec(config, LayoutOf(config));
  }

  LavaGapEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)), obstacle_(ObstacleOption(config)) {}

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());
    agent_pos_ = {1, 1};
    agent_dir_ = 0;
    PutObj(Goal(), width_ - 2, height_ - 2);
    const int gap_x = RandInt(2, width_ - 2);
    const int gap_y = RandInt(1, height_ - 1);
    grid_.VertWall(gap_x, 1, height_ - 2, obstacle_ == Type::kLava ? Lava() : Wall());
    grid_.Set(gap_x, gap_y, kNoObject);
    mission_.Set(obstacle_ == Type::kLava ? "avoid the lava and get to the green goal square"
                                          : "find the opening and get to the green goal square");
  }

 private:
  const Type obstacle_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_LAVA_GAP_H_
