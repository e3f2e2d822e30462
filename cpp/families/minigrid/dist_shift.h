// MiniGrid-DistShift1-v0 / DistShift2-v0: a port of minigrid 3.2.0's DistShiftEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/distshift.py).
// The goal is in the top-right corner past two strips of lava, one on row 1 and one on row
// strip2_row (2 or 5 for the two ids).
//
// Options: width 9, height 7, agent_start_pos (1, 1) (None: random), agent_start_dir 0,
// strip2_row 2; max_steps defaults to 4 * width * height; see_through_walls True.
// mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_DIST_SHIFT_H_
#define ENVFLEET_FAMILIES_MINIGRID_DIST_SHIFT_H_

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class DistShiftEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"width", int64_t{9}},
                          {"height", int64_t{7}},
                          {"agent_start_pos", std::vector<double>{1, 1}},
                          {"agent_start_dir", int64_t{0}},
                          {"strip2_row", int64_t{2}}},
                         /*see_through_walls=*/true);
  }
  static Layout LayoutOf(const Config& config) {
    const int width = static_cast<int>(IntOption(config, "width", 3, kMaxGridSide));
    const int height = static_cast<int>(IntOption(config, "height", 3, kMaxGridSide));
    return {width, height, MaxSteps(config, 4 * int64_t{width} * height)};
  }
  static EnvSpec Spec(const Config& config) {
    const Layout layout = LayoutOf(config);
    StartPoseOption(config, layout.width, layout.height);
    IntOption(config, "strip2_row", 0, layout.height - 1);
    return MiniGridSpec(config, layout);
  }

  DistShiftEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)),
        start_(StartPoseOption(config, width_, height_)),
        strip2_row_(static_cast<int>(IntOption(config, "strip2_row", 0, height_ - 1))) {}

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());
    PutObj(Goal(), width_ - 2, 1);
    for (int i = 0; i < width_ - 6; ++i) {
      grid_.Set(3 + i, 1, Lava());
      grid_.Set(3 + i, strip2_row_, Lava());
    }
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
  const int strip2_row_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_DIST_SHIFT_H_
