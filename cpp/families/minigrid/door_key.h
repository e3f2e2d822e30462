// MiniGrid-DoorKey-*: a port of minigrid 3.2.0's DoorKeyEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/doorkey.py).
// A wall splits the room at a random column; the agent starts left of it, with a yellow key,
// and must unlock the yellow door in the wall to reach the goal in the bottom-right corner.
//
// Options: size 8 (>= 5); max_steps defaults to 10 * size**2. mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_DOOR_KEY_H_
#define ENVFLEET_FAMILIES_MINIGRID_DOOR_KEY_H_

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class DoorKeyEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{8}}}, /*see_through_walls=*/false);
  }
  static Layout LayoutOf(const Config& config) {
    // _rand_int(2, size - 2) needs size >= 5 (NumPy raises below).
    const int size = static_cast<int>(IntOption(config, "size", 5, kMaxGridSide));
    return {size, size, MaxSteps(config, 10 * int64_t{size} * size)};
  }
  static EnvSpec Spec(const Config& config) { return MiniGridSpec(config, LayoutOf(config)); }

  DoorKeyEnv(const Config& config, uint64_t seed) : MiniGridEnv(config, seed, LayoutOf(config)) {}

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());
    PutObj(Goal(), width_ - 2, height_ - 2);
    const int split = RandInt(2, width_ - 2);
    grid_.VertWall(split, 0, -1, Wall());
    PlaceAgent({0, 0}, {split, height_});
    const int door = RandInt(1, height_ - 2);
    PutObj(NewDoor(Color::kYellow, /*is_locked=*/true), split, door);
    PlaceObj(NewObject(Type::kKey, Color::kYellow), {0, 0}, {split, height_});
    mission_.Set("use the key to open the door and then get to the goal");
  }
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_DOOR_KEY_H_
