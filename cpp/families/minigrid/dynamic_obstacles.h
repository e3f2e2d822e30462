// MiniGrid-Dynamic-Obstacles-*: a port of minigrid 3.2.0's DynamicObstaclesEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/dynamicobstacles.py).
// Blue balls move at random every step; running into one (or into a wall) ends the episode
// with reward -1. Three actions: left, right, forward.
//
// Each step, before the agent moves: the cell in front is looked at ("not clear" unless empty
// or the goal), then every obstacle in turn is re-placed by place_obj in the 3x3 square around
// it (its own draws, up to 101 tries; when none succeeds minigrid's RecursionError is caught
// and the ball stays), and its old cell emptied. Then the agent steps (MiniGridEnv.step), and
// a forward step toward a cell that was not clear gives -1 and terminates, even when the
// ball has moved away and the agent with it.
//
// Options: size 8, agent_start_pos (1, 1) (None: random), agent_start_dir 0, n_obstacles 4
// (more than size / 2 + 1 become int(size / 2)); max_steps defaults to 4 * size**2;
// see_through_walls True. mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_DYNAMIC_OBSTACLES_H_
#define ENVFLEET_FAMILIES_MINIGRID_DYNAMIC_OBSTACLES_H_

#include <vector>

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class DynamicObstaclesEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{8}},
                          {"agent_start_pos", std::vector<double>{1, 1}},
                          {"agent_start_dir", int64_t{0}},
                          {"n_obstacles", int64_t{4}}},
                         /*see_through_walls=*/true);
  }
  static Layout LayoutOf(const Config& config) {
    const int size = static_cast<int>(IntOption(config, "size", 3, kMaxGridSide));
    Layout layout{size, size, MaxSteps(config, 4 * int64_t{size} * size)};
    layout.num_actions = kForward + 1;  // Discrete(self.actions.forward + 1)
    layout.reward_low = -1;
    return layout;
  }
  static EnvSpec Spec(const Config& config) {
    const Layout layout = LayoutOf(config);
    StartPoseOption(config, layout.width, layout.height);
    IntOption(config, "n_obstacles", 0);
    return MiniGridSpec(config, layout);
  }

  DynamicObstaclesEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)),
        start_(StartPoseOption(config, width_, height_)),
        n_obstacles_(NumObstacles(IntOption(config, "n_obstacles", 0), width_)) {
    obstacles_.reserve(n_obstacles_);
  }

  void Step(const void* action_ptr) override {
    int64_t action = *static_cast<const int64_t*>(action_ptr);
    if (action >= num_actions_) action = 0;
    const ObjectId front = grid_.Get(FrontPos());
    const bool not_clear = front != kNoObject && objects_[front].type != Type::kGoal;
    for (ObjectId obstacle : obstacles_) {
      const Pos old_pos = objects_[obstacle].cur_pos;
      try {
        PlaceObj(obstacle, {old_pos.x - 1, old_pos.y - 1}, {3, 3}, kAcceptAll, 100);
        grid_.Set(old_pos, kNoObject);
      } catch (const PlacementError&) {
        // minigrid: except Exception: pass
      }
    }
    StepAgent(action);
    if (action == kForward && not_clear) {
      reward_ = -1;
      terminated_ = true;
    }
  }

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());
    grid_.Set(width_ - 2, height_ - 2, Goal());
    if (start_.pos) {
      agent_pos_ = *start_.pos;
      agent_dir_ = start_.dir;
    } else {
      PlaceAgent();
    }
    obstacles_.clear();
    for (size_t i = 0; i < n_obstacles_; ++i) {
      obstacles_.push_back(NewObject(Type::kBall, Color::kBlue));
      PlaceObj(obstacles_.back(), {0, 0}, kWholeGrid, kAcceptAll, 100);
    }
    mission_.Set("get to the green goal square");
  }

 private:
  // if n_obstacles <= size / 2 + 1: int(n_obstacles) else int(size / 2), in float64.
  static size_t NumObstacles(int64_t n, int size) {
    return static_cast<size_t>(static_cast<double>(n) <= size / 2.0 + 1 ? n : size / 2);
  }

  const StartPose start_;
  const size_t n_obstacles_;
  std::vector<ObjectId> obstacles_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_DYNAMIC_OBSTACLES_H_
