// MiniGrid-RedBlueDoors-*: a port of minigrid 3.2.0's RedBlueDoorEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/redbluedoors.py).
// A size x size room in the middle of a 2 size x size grid, a red door in its left wall and a
// blue one in its right: opening the blue door after the red one is rewarded, opening the
// blue one first (or the red one after the blue) ends the episode unrewarded. The env keeps
// its two doors (by identity) and reads their is_open before and after each step.
//
// Options: size 8; max_steps defaults to 20 * size**2. mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_RED_BLUE_DOORS_H_
#define ENVFLEET_FAMILIES_MINIGRID_RED_BLUE_DOORS_H_

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class RedBlueDoorsEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{8}}}, /*see_through_walls=*/false);
  }
  static Layout LayoutOf(const Config& config) {
    const int size = static_cast<int>(IntOption(config, "size", 3, kMaxGridSide / 2));
    return {2 * size, size, MaxSteps(config, 20 * int64_t{size} * size)};
  }
  static EnvSpec Spec(const Config& config) { return MiniGridSpec(config, LayoutOf(config)); }

  RedBlueDoorsEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)), size_(height_) {}

  void Step(const void* action) override {
    const bool red_before = objects_[red_door_].is_open;
    const bool blue_before = objects_[blue_door_].is_open;
    StepAgent(*static_cast<const int64_t*>(action));
    const bool red_after = objects_[red_door_].is_open;
    const bool blue_after = objects_[blue_door_].is_open;
    if (blue_after) {
      reward_ = red_before ? SuccessReward() : 0;
      terminated_ = true;
    } else if (red_after && blue_before) {
      reward_ = 0;
      terminated_ = true;
    }
  }

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, 2 * size_, size_, Wall());
    grid_.WallRect(size_ / 2, 0, size_, size_, Wall());
    PlaceAgent({size_ / 2, 0}, {size_, size_});
    red_door_ = NewDoor(Color::kRed);
    grid_.Set(size_ / 2, RandInt(1, size_ - 1), red_door_);
    blue_door_ = NewDoor(Color::kBlue);
    grid_.Set(size_ / 2 + size_ - 1, RandInt(1, size_ - 1), blue_door_);
    mission_.Set("open the red door then the blue door");
  }

 private:
  const int size_;
  ObjectId red_door_ = kNoObject;
  ObjectId blue_door_ = kNoObject;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_RED_BLUE_DOORS_H_
