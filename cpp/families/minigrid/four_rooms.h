// MiniGrid-FourRooms-v0: a port of minigrid 3.2.0's FourRoomsEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/fourrooms.py).
// A 19x19 grid cut into four rooms by walls with one random opening each; the agent and the
// goal at random places (or where agent_pos and goal_pos say; the agent's direction is
// random either way).
//
// Options: agent_pos None, goal_pos None (each [] or (x, y)); max_steps 100 (FourRoomsEnv's
// fixed default, not a formula). mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_FOUR_ROOMS_H_
#define ENVFLEET_FAMILIES_MINIGRID_FOUR_ROOMS_H_

#include <optional>

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class FourRoomsEnv final : public MiniGridEnv {
 public:
  static constexpr int kSize = 19;

  static Config DefaultConfig() {
    return CommonOptions(
        {{"agent_pos", std::vector<double>{}}, {"goal_pos", std::vector<double>{}}},
        /*see_through_walls=*/false);
  }
  static Layout LayoutOf(const Config& config) { return {kSize, kSize, MaxSteps(config, 100)}; }
  static EnvSpec Spec(const Config& config) {
    PosOption(config, "agent_pos", kSize, kSize);
    PosOption(config, "goal_pos", kSize, kSize);
    return MiniGridSpec(config, LayoutOf(config));
  }

  FourRoomsEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)),
        agent_start_(PosOption(config, "agent_pos", kSize, kSize)),
        goal_(PosOption(config, "goal_pos", kSize, kSize)) {}

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());  // minigrid's four horz_/vert_wall calls
    const int room_w = width_ / 2, room_h = height_ / 2;
    for (int j = 0; j < 2; ++j) {
      for (int i = 0; i < 2; ++i) {
        const int x_left = i * room_w, y_top = j * room_h;
        const int x_right = x_left + room_w, y_bottom = y_top + room_h;
        if (i + 1 < 2) {
          grid_.VertWall(x_right, y_top, room_h, Wall());
          grid_.Set(x_right, RandInt(y_top + 1, y_bottom), kNoObject);
        }
        if (j + 1 < 2) {
          grid_.HorzWall(x_left, y_bottom, room_w, Wall());
          grid_.Set(RandInt(x_left + 1, x_right), y_bottom, kNoObject);
        }
      }
    }
    if (agent_start_) {
      agent_pos_ = *agent_start_;
      grid_.Set(agent_pos_, kNoObject);
      agent_dir_ = RandInt(0, 4);  // "assuming random start direction"
    } else {
      PlaceAgent();
    }
    if (goal_) {
      PutObj(Goal(), goal_->x, goal_->y);
    } else {
      PlaceObj(Goal());
    }
    mission_.Set("reach the goal");
  }

 private:
  const std::optional<Pos> agent_start_;
  const std::optional<Pos> goal_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_FOUR_ROOMS_H_
