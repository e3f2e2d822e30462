// MiniGrid-Memory*: a port of minigrid 3.2.0's MemoryEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/memory.py).
// A green key or ball in the start room; at the end of a hallway one of each, above and
// below. Reaching the cell next to the matching one is rewarded, next to the other ends the
// episode unrewarded. `pickup` acts as `toggle` here.
//
// Options: size 8 (odd, as MemoryEnv asserts; >= 5, >= 7 with random_length),
// random_length False (the hallway's end at random); max_steps defaults to 5 * size**2.
// mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_MEMORY_H_
#define ENVFLEET_FAMILIES_MINIGRID_MEMORY_H_

#include <array>

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class MemoryEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{8}}, {"random_length", false}},
                         /*see_through_walls=*/false);
  }
  static Layout LayoutOf(const Config& config) {
    const bool random_length = config.Get<bool>("random_length");
    const int size =
        static_cast<int>(IntOption(config, "size", random_length ? 7 : 5, kMaxGridSide - 1));
    if (size % 2 == 0) {
      throw std::invalid_argument("size must be odd (MemoryEnv asserts it), got " +
                                  std::to_string(size));
    }
    return {size, size, MaxSteps(config, 5 * int64_t{size} * size)};
  }
  static EnvSpec Spec(const Config& config) { return MiniGridSpec(config, LayoutOf(config)); }

  MemoryEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)),
        random_length_(config.Get<bool>("random_length")) {}

  void Step(const void* action_ptr) override {
    int64_t action = *static_cast<const int64_t*>(action_ptr);
    if (action == kPickup) action = kToggle;
    StepAgent(action);
    if (agent_pos_ == success_pos_) {
      reward_ = SuccessReward();
      terminated_ = true;
    }
    if (agent_pos_ == failure_pos_) {
      reward_ = 0;
      terminated_ = true;
    }
  }

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());  // minigrid's four horz_/vert_wall calls
    const int mid = height_ / 2;
    const int upper_room_wall = mid - 2, lower_room_wall = mid + 2;
    const int hallway_end = random_length_ ? RandInt(4, width_ - 2) : width_ - 3;
    for (int i = 1; i < 5; ++i) {
      grid_.Set(i, upper_room_wall, Wall());
      grid_.Set(i, lower_room_wall, Wall());
    }
    grid_.Set(4, upper_room_wall + 1, Wall());
    grid_.Set(4, lower_room_wall - 1, Wall());
    for (int i = 5; i < hallway_end; ++i) {
      grid_.Set(i, upper_room_wall + 1, Wall());
      grid_.Set(i, lower_room_wall - 1, Wall());
    }
    for (int j = 0; j < height_; ++j) {
      if (j != mid) grid_.Set(hallway_end, j, Wall());
      grid_.Set(hallway_end + 2, j, Wall());
    }
    agent_pos_ = {RandInt(1, hallway_end + 1), mid};
    agent_dir_ = 0;
    constexpr std::array<Type, 2> kStartObjects = {Type::kKey, Type::kBall};
    const Type start_room_obj = RandElem(kStartObjects);
    grid_.Set(1, mid - 1, NewObject(start_room_obj, Color::kGreen));
    // _rand_elem([[Ball, Key], [Key, Ball]])
    constexpr std::array<std::array<Type, 2>, 2> kOtherObjects = {
        {{Type::kBall, Type::kKey}, {Type::kKey, Type::kBall}}};
    const std::array<Type, 2> other_objs = RandElem(kOtherObjects);
    const Pos pos0 = {hallway_end + 1, mid - 2};
    const Pos pos1 = {hallway_end + 1, mid + 2};
    grid_.Set(pos0, NewObject(other_objs[0], Color::kGreen));
    grid_.Set(pos1, NewObject(other_objs[1], Color::kGreen));
    if (start_room_obj == other_objs[0]) {
      success_pos_ = {pos0.x, pos0.y + 1};
      failure_pos_ = {pos1.x, pos1.y - 1};
    } else {
      success_pos_ = {pos1.x, pos1.y - 1};
      failure_pos_ = {pos0.x, pos0.y + 1};
    }
    mission_.Set("go to the matching object at the end of the hallway");
  }

 private:
  const bool random_length_;
  Pos success_pos_;
  Pos failure_pos_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_MEMORY_H_
