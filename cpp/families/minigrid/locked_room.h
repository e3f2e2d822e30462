// MiniGrid-LockedRoom-v0: a port of minigrid 3.2.0's LockedRoomEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/lockedroom.py).
// Six rooms off a hallway, each with a door of its own colour; one is locked and holds the
// goal, another holds the key to it. The env has no step of its own: the goal ends it.
//
// Rooms are compared by identity (keyRoom != lockedRoom) and colours drawn from
// sorted(remaining colours), as the reference draws them.
//
// Options: size 19 (>= 8: smaller grids leave a room no inside); max_steps defaults to
// 10 * size. mission_id 0 (EnvPool's).
#ifndef ENVFLEET_FAMILIES_MINIGRID_LOCKED_ROOM_H_
#define ENVFLEET_FAMILIES_MINIGRID_LOCKED_ROOM_H_

#include <array>

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class LockedRoomEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{19}}}, /*see_through_walls=*/false);
  }
  static Layout LayoutOf(const Config& config) {
    const int size = static_cast<int>(IntOption(config, "size", 8, kMaxGridSide));
    return {size, size, MaxSteps(config, 10 * int64_t{size})};
  }
  static EnvSpec Spec(const Config& config) { return MiniGridSpec(config, LayoutOf(config)); }

  LockedRoomEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)) {}

 protected:
  void GenGrid() override {
    for (int i = 0; i < width_; ++i) {
      grid_.Set(i, 0, Wall());
      grid_.Set(i, height_ - 1, Wall());
    }
    for (int j = 0; j < height_; ++j) {
      grid_.Set(0, j, Wall());
      grid_.Set(width_ - 1, j, Wall());
    }
    const int left_wall = width_ / 2 - 2, right_wall = width_ / 2 + 2;
    for (int j = 0; j < height_; ++j) {
      grid_.Set(left_wall, j, Wall());
      grid_.Set(right_wall, j, Wall());
    }
    for (int n = 0; n < 3; ++n) {
      const int j = n * (height_ / 3);
      for (int i = 0; i < left_wall; ++i) grid_.Set(i, j, Wall());
      for (int i = right_wall; i < width_; ++i) grid_.Set(i, j, Wall());
      const Pos size = {left_wall + 1, height_ / 3 + 1};
      rooms_[2 * n] = {{0, j}, size, {left_wall, j + 3}};
      rooms_[2 * n + 1] = {{right_wall, j}, size, {right_wall, j + 3}};
    }
    const size_t locked = static_cast<size_t>(RandIndex(rooms_.size()));
    grid_.Set(RandPosIn(rooms_[locked]), Goal());
    // colors = set(COLOR_NAMES); each room: _rand_elem(sorted(colors)), then removed.
    std::array<Color, kNumColors> colors = kColorNames;
    size_t left = colors.size();
    for (size_t r = 0; r < rooms_.size(); ++r) {
      rooms_[r].color = Pop(colors, left, static_cast<size_t>(RandIndex(left)));
      grid_.Set(rooms_[r].door_pos, NewDoor(rooms_[r].color, /*is_locked=*/r == locked));
    }
    size_t key_room;
    do {
      key_room = static_cast<size_t>(RandIndex(rooms_.size()));
    } while (key_room == locked);
    grid_.Set(RandPosIn(rooms_[key_room]), NewObject(Type::kKey, rooms_[locked].color));
    PlaceAgent({left_wall, 0}, {right_wall - left_wall, height_});
    mission_.Clear();
    mission_ << "get the " << rooms_[locked].color << " key from the " << rooms_[key_room].color
             << " room, unlock the " << rooms_[locked].color << " door and go to the goal";
  }

 private:
  struct Room {
    Pos top;
    Pos size;
    Pos door_pos;
    Color color = Color::kRed;
  };

  // LockedRoom.rand_pos(env): env._rand_pos(topX + 1, topX + sizeX - 1, topY + 1, ...).
  Pos RandPosIn(const Room& room) {
    return RandPos(room.top.x + 1, room.top.x + room.size.x - 1, room.top.y + 1,
                   room.top.y + room.size.y - 1);
  }

  std::array<Room, 6> rooms_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_LOCKED_ROOM_H_
