// MiniGrid-MultiRoom-*: a port of minigrid 3.2.0's MultiRoomEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/multiroom.py).
// A chain of rooms joined by closed doors (each a colour other than the previous one's), the
// agent in the first, the goal in the last; the cells outside the rooms stay empty.
//
// Generation repeats the reference's recursion exactly: _placeRoom draws a room's size and
// position, refuses one out of the grid (its bottom edge may not touch the last row: topY +
// sizeY >= height) or overlapping an earlier room (the room it hangs from excepted:
// roomList[:-1]), and tries up to 8 exits for the next room, reporting success even when all
// 8 fail; the first door's position draws its y from range(0, width - 2), as the reference
// does (width == height for every id). Whole chains are redrawn until one is as long as the
// room count drawn first (at most 100000 chains: where minigrid would draw forever, a
// PlacementError).
//
// Options: minNumRooms, maxNumRooms (no defaults: MultiRoomEnv requires them; EnvPool's
// min_num_rooms, max_num_rooms also), maxRoomSize 10 (>= 4; max_room_size), width 25,
// height 25; max_steps defaults to maxNumRooms * 20. mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_MULTI_ROOM_H_
#define ENVFLEET_FAMILIES_MINIGRID_MULTI_ROOM_H_

#include <array>
#include <string>
#include <vector>

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class MultiRoomEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"minNumRooms", int64_t{-1}},
                          {"maxNumRooms", int64_t{-1}},
                          {"maxRoomSize", int64_t{10}},
                          {"min_num_rooms", int64_t{-1}},
                          {"max_num_rooms", int64_t{-1}},
                          {"max_room_size", int64_t{-1}},
                          {"width", int64_t{25}},
                          {"height", int64_t{25}}},
                         /*see_through_walls=*/false);
  }
  struct Rooms {
    int min_num, max_num, max_size;
  };
  static Rooms RoomsOf(const Config& config) {
    Rooms rooms;
    const AliasedInt min_num = AliasedIntOption(config, "minNumRooms", "min_num_rooms", 1);
    const AliasedInt max_num = AliasedIntOption(config, "maxNumRooms", "max_num_rooms", 1);
    if (max_num.value < min_num.value) {
      throw std::invalid_argument(max_num.name + " must be >= " + min_num.name);
    }
    if (max_num.value > 1000) throw std::invalid_argument(max_num.name + " must be at most 1000");
    rooms.min_num = static_cast<int>(min_num.value);
    rooms.max_num = static_cast<int>(max_num.value);
    rooms.max_size =
        static_cast<int>(AliasedIntOption(config, "maxRoomSize", "max_room_size", 4).value);
    return rooms;
  }
  static Layout LayoutOf(const Config& config) {
    const int width = static_cast<int>(IntOption(config, "width", 3, kMaxGridSide));
    const int height = static_cast<int>(IntOption(config, "height", 3, kMaxGridSide));
    return {width, height, MaxSteps(config, int64_t{RoomsOf(config).max_num} * 20)};
  }
  static EnvSpec Spec(const Config& config) {
    RoomsOf(config);
    return MiniGridSpec(config, LayoutOf(config));
  }

  MultiRoomEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)), rooms_of_(RoomsOf(config)) {
    room_list_.reserve(static_cast<size_t>(rooms_of_.max_num));
    cur_room_list_.reserve(static_cast<size_t>(rooms_of_.max_num));
  }

 protected:
  void GenGrid() override {
    room_list_.clear();
    const size_t num_rooms = static_cast<size_t>(RandInt(rooms_of_.min_num, rooms_of_.max_num + 1));
    for (int64_t tries = 0; room_list_.size() < num_rooms; ++tries) {
      if (tries == kMaxChains) {  // the reference would loop forever
        throw PlacementError("MultiRoom: no chain of " + std::to_string(num_rooms) +
                             " rooms fits the grid (after " + std::to_string(kMaxChains) +
                             " tries)");
      }
      cur_room_list_.clear();
      const int x = RandInt(0, width_ - 2);
      const Pos entry_door = {x, RandInt(0, width_ - 2)};
      PlaceRoom(num_rooms, 4, rooms_of_.max_size, 2, entry_door);
      if (cur_room_list_.size() > room_list_.size()) room_list_.swap(cur_room_list_);
    }
    const ObjectId wall = Wall();  // one Wall object for every wall cell, as the reference
    Color prev_door_color = Color::kRed;
    for (size_t idx = 0; idx < room_list_.size(); ++idx) {
      const Room& room = room_list_[idx];
      for (int i = 0; i < room.size.x; ++i) {
        grid_.Set(room.top.x + i, room.top.y, wall);
        grid_.Set(room.top.x + i, room.top.y + room.size.y - 1, wall);
      }
      for (int j = 0; j < room.size.y; ++j) {
        grid_.Set(room.top.x, room.top.y + j, wall);
        grid_.Set(room.top.x + room.size.x - 1, room.top.y + j, wall);
      }
      if (idx > 0) {
        // sorted(set(COLOR_NAMES) - {prevDoorColor}); all of them before the first door.
        std::array<Color, kNumColors> colors = kColorNames;
        size_t left = colors.size();
        if (idx > 1) {
          for (size_t k = 0; k < left; ++k) {
            if (colors[k] == prev_door_color) Pop(colors, left, k);
          }
        }
        const Color door_color = colors[static_cast<size_t>(RandIndex(left))];
        grid_.Set(room.entry_door, NewDoor(door_color));
        prev_door_color = door_color;
      }
    }
    PlaceAgent(room_list_.front().top, room_list_.front().size);
    PlaceObj(Goal(), room_list_.back().top, room_list_.back().size);
    mission_.Set("traverse the rooms to get to the goal");
  }

 private:
  // Chains drawn before giving up: where minigrid would draw forever (room counts that no
  // grid of this size holds), a PlacementError instead. The registered ids need a few.
  static constexpr int64_t kMaxChains = 100000;

  struct Room {
    Pos top;
    Pos size;
    Pos entry_door;
  };

  // _placeRoom(numLeft, roomList, minSz, maxSz, entryDoorWall, entryDoorPos), roomList being
  // cur_room_list_.
  bool PlaceRoom(size_t num_left, int min_size, int max_size, int entry_wall, Pos entry_door) {
    const int size_x = RandInt(min_size, max_size + 1);
    const int size_y = RandInt(min_size, max_size + 1);
    int top_x, top_y;
    if (cur_room_list_.empty()) {
      top_x = entry_door.x;
      top_y = entry_door.y;
    } else if (entry_wall == 0) {
      top_x = entry_door.x - size_x + 1;
      top_y = RandInt(entry_door.y - size_y + 2, entry_door.y);
    } else if (entry_wall == 1) {
      top_x = RandInt(entry_door.x - size_x + 2, entry_door.x);
      top_y = entry_door.y - size_y + 1;
    } else if (entry_wall == 2) {
      top_x = entry_door.x;
      top_y = RandInt(entry_door.y - size_y + 2, entry_door.y);
    } else {
      top_x = RandInt(entry_door.x - size_x + 2, entry_door.x);
      top_y = entry_door.y;
    }
    if (top_x < 0 || top_y < 0) return false;
    if (top_x + size_x > width_ || top_y + size_y >= height_) return false;
    for (size_t r = 0; r + 1 < cur_room_list_.size(); ++r) {
      const Room& room = cur_room_list_[r];
      const bool non_overlap = top_x + size_x < room.top.x || room.top.x + room.size.x <= top_x ||
                               top_y + size_y < room.top.y || room.top.y + room.size.y <= top_y;
      if (!non_overlap) return false;
    }
    cur_room_list_.push_back({{top_x, top_y}, {size_x, size_y}, entry_door});
    if (num_left == 1) return true;
    for (int attempt = 0; attempt < 8; ++attempt) {
      // _rand_elem(sorted({0, 1, 2, 3} - {entryDoorWall}))
      std::array<int, 3> walls{};
      size_t n = 0;
      for (int w = 0; w < 4; ++w) {
        if (w != entry_wall) walls[n++] = w;
      }
      const int exit_wall = walls[static_cast<size_t>(RandIndex(walls.size()))];
      const int next_entry_wall = (exit_wall + 2) % 4;
      Pos exit_door;
      if (exit_wall == 0) {
        exit_door = {top_x + size_x - 1, top_y + RandInt(1, size_y - 1)};
      } else if (exit_wall == 1) {
        const int x = top_x + RandInt(1, size_x - 1);
        exit_door = {x, top_y + size_y - 1};
      } else if (exit_wall == 2) {
        exit_door = {top_x, top_y + RandInt(1, size_y - 1)};
      } else {
        const int x = top_x + RandInt(1, size_x - 1);
        exit_door = {x, top_y};
      }
      if (PlaceRoom(num_left - 1, min_size, max_size, next_entry_wall, exit_door)) break;
    }
    return true;
  }

  const Rooms rooms_of_;
  std::vector<Room> room_list_;
  std::vector<Room> cur_room_list_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_MULTI_ROOM_H_
