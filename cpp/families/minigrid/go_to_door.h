// MiniGrid-GoToDoor-*: a port of minigrid 3.2.0's GoToDoorEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/gotodoor.py).
// A room of random size (5 .. size on each side, in the top-left of the grid: the cells past
// it stay empty) with a door of a distinct colour in each wall; the agent must stand next to
// the door the mission names and take the `done` action. Toggling ends the episode (after it
// has opened the door, as MiniGridEnv.step does first).
//
// Options: size 5 (>= 5); max_steps defaults to 4 * size**2; see_through_walls True.
// mission_id: the door's colour (COLOR_TO_IDX).
#ifndef ENVFLEET_FAMILIES_MINIGRID_GO_TO_DOOR_H_
#define ENVFLEET_FAMILIES_MINIGRID_GO_TO_DOOR_H_

#include <algorithm>
#include <array>
#include <cstdlib>

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class GoToDoorEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{5}}}, /*see_through_walls=*/true);
  }
  static Layout LayoutOf(const Config& config) {
    const int size = static_cast<int>(IntOption(config, "size", 5, kMaxGridSide));
    return {size, size, MaxSteps(config, 4 * int64_t{size} * size)};
  }
  static EnvSpec Spec(const Config& config) { return MiniGridSpec(config, LayoutOf(config)); }

  GoToDoorEnv(const Config& config, uint64_t seed) : MiniGridEnv(config, seed, LayoutOf(config)) {}

  void Step(const void* action_ptr) override {
    const int64_t action = *static_cast<const int64_t*>(action_ptr);
    StepAgent(action);
    if (action == kToggle) terminated_ = true;
    if (action == kDone) {
      if (NextTo(agent_pos_, target_pos_)) reward_ = SuccessReward();
      terminated_ = true;
    }
  }

  // (ax == tx and abs(ay - ty) == 1) or (ay == ty and abs(ax - tx) == 1)
  static bool NextTo(Pos a, Pos t) {
    return (a.x == t.x && std::abs(a.y - t.y) == 1) || (a.y == t.y && std::abs(a.x - t.x) == 1);
  }

 protected:
  void GenGrid() override {
    const int width = RandInt(5, width_ + 1);
    const int height = RandInt(5, height_ + 1);
    grid_.WallRect(0, 0, width, height, Wall());
    std::array<Pos, 4> door_pos;
    door_pos[0] = {RandInt(2, width - 2), 0};
    door_pos[1] = {RandInt(2, width - 2), height - 1};
    door_pos[2] = {0, RandInt(2, height - 2)};
    door_pos[3] = {width - 1, RandInt(2, height - 2)};
    std::array<Color, 4> door_colors;
    size_t n = 0;
    while (n < door_colors.size()) {
      const Color color = RandElem(kColorNames);
      if (std::find(door_colors.begin(), door_colors.begin() + n, color) !=
          door_colors.begin() + n) {
        continue;
      }
      door_colors[n++] = color;
    }
    for (size_t k = 0; k < door_pos.size(); ++k) grid_.Set(door_pos[k], NewDoor(door_colors[k]));
    PlaceAgent({0, 0}, {width, height});
    const size_t target = static_cast<size_t>(RandIndex(door_pos.size()));
    target_pos_ = door_pos[target];
    mission_.Clear();
    mission_ << "go to the " << door_colors[target] << " door";
    mission_id_ = static_cast<int>(door_colors[target]);
  }

 private:
  Pos target_pos_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_GO_TO_DOOR_H_
