// MiniGrid-Empty-*: a port of minigrid 3.2.0's EmptyEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/empty.py).
// A walled room, the goal in the bottom-right corner; the agent starts at agent_start_pos
// facing agent_start_dir, or, with agent_start_pos None (the Random ids), anywhere
// (place_agent: x, y, then a direction).
//
// Options: size 8, agent_start_pos (1, 1) (None, [] or EnvPool's (-1, -1): random),
// agent_start_dir 0; max_steps defaults to 4 * size**2; see_through_walls True.
// mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_EMPTY_H_
#define ENVFLEET_FAMILIES_MINIGRID_EMPTY_H_

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class EmptyEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{8}},
                          {"agent_start_pos", std::vector<double>{1, 1}},
                          {"agent_start_dir", int64_t{0}}},
                         /*see_through_walls=*/true);
  }
  static Layout LayoutOf(const Config& config) {
    const int size = static_cast<int>(IntOption(config, "size", 3, kMaxGridSide));
    return {size, size, MaxSteps(config, 4 * int64_t{size} * size)};
  }
  static EnvSpec Spec(const Config& config) {
    const Layout layout = LayoutOf(config);
    StartPoseOption(config, layout.width, layout.height);
    return MiniGridSpec(config, layout);
  }

  EmptyEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)),
        start_(StartPoseOption(config, width_, height_)) {}

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());
    PutObj(Goal(), width_ - 2, height_ - 2);
    if (start_.pos) {
      agent_pos_ = *start_.pos;
      agent_dir_ = start_.dir;
    } else {
      PlaceAgent();
    }
    mission_.Set("get to the green goal square");
  }

 private:
  const StartPose start_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_EMPTY_H_
