// A grid of rooms: a port of minigrid 3.2.0's RoomGrid
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/core/roomgrid.py), the
// base of KeyCorridor, Unlock, UnlockPickup, BlockedUnlockPickup, ObstructedMaze, and of
// BabyAI's levels (RoomGridLevel).
//
// num_rows x num_cols rooms of room_size x room_size cells sharing their walls; each room
// knows its neighbours (right, down, left, up, as DIR_TO_VEC), a door position on each inner
// wall (drawn once per episode, in GenGrid), what is in each of them (None, a door, or True
// after remove_wall), whether it is locked, and the objects placed in it. The helpers draw as
// the reference's (add_object: kind then colour; add_door: a wall until one has a neighbour
// and no door, then colour, then locked; add_distractors: colour then kind, then the room),
// and keep its quirks: add_door sets the room's `locked` to the new door's, unlocking a room
// whose locked door was added first; place_in_room rejects the cells next to wherever the
// agent stands when it is called (the middle of the grid before place_agent); reachability
// (connect_all) follows doors open or not.
#ifndef ENVFLEET_FAMILIES_MINIGRID_ROOM_GRID_H_
#define ENVFLEET_FAMILIES_MINIGRID_ROOM_GRID_H_

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "families/minigrid/go_to_object.h"
#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

// minigrid.core.roomgrid.Room
struct Room {
  // What Room.doors holds for a wall: None, True (the wall was removed), or a Door.
  static constexpr ObjectId kNoDoor = kNoObject;
  static constexpr ObjectId kWallRemoved = -2;

  Pos top;
  Pos size;
  std::array<ObjectId, 4> doors;
  std::array<std::optional<Pos>, 4> door_pos;
  std::array<int, 4> neighbors;  // room indices (RoomGridEnv::RoomIndex), -1 for none
  bool locked = false;
  std::vector<ObjectId> objs;

  // `if room.doors[k]`: a door or a removed wall.
  bool Connected(int k) const { return doors[static_cast<size_t>(k)] != kNoDoor; }

  // Room.pos_inside(x, y)
  bool PosInside(int x, int y) const {
    return x >= top.x && y >= top.y && x < top.x + size.x && y < top.y + size.y;
  }
};

// RoomGrid's shape: room_size (>= 3), num_rows, num_cols (>= 1).
struct RoomShape {
  int room_size = 7;
  int num_rows = 3;
  int num_cols = 3;
};

class RoomGridEnv : public MiniGridEnv {
 public:
  // The world of `shape`: (room_size - 1) * num_cols + 1 wide, (room_size - 1) * num_rows + 1
  // high.
  static Layout RoomLayout(const RoomShape& shape, int64_t max_steps) {
    if (shape.room_size < 3 || shape.room_size > 1024) {
      throw std::invalid_argument("room_size must be in [3, 1024], got " +
                                  std::to_string(shape.room_size));
    }
    if (shape.num_rows < 1 || shape.num_cols < 1 || shape.num_rows > 64 || shape.num_cols > 64) {
      throw std::invalid_argument("num_rows and num_cols must be in [1, 64]");
    }
    const int64_t side =
        int64_t{shape.room_size - 1} * std::max(shape.num_rows, shape.num_cols) + 1;
    if (side > kMaxGridSide) {
      throw std::invalid_argument("room_size " + std::to_string(shape.room_size) + " with " +
                                  std::to_string(shape.num_rows) + " rows and " +
                                  std::to_string(shape.num_cols) +
                                  " columns of rooms makes a grid of more than " +
                                  std::to_string(kMaxGridSide) + " cells a side");
    }
    return {(shape.room_size - 1) * shape.num_cols + 1, (shape.room_size - 1) * shape.num_rows + 1,
            max_steps};
  }

  RoomGridEnv(const Config& config, uint64_t seed, const RoomShape& shape, int64_t max_steps)
      : MiniGridEnv(config, seed, RoomLayout(shape, max_steps)),
        room_size_(shape.room_size),
        num_rows_(shape.num_rows),
        num_cols_(shape.num_cols) {
    const size_t rooms = static_cast<size_t>(num_rows_) * num_cols_;
    rooms_.resize(rooms);
    for (Room& room : rooms_) room.objs.reserve(32);
    reach_.resize(rooms);
    stack_.reserve(4 * rooms + 1);
    added_.reserve(64);
    existing_.reserve(64);
  }

  const Room& RoomAt(int i, int j) const { return rooms_[RoomIndex(i, j)]; }

 protected:
  // RoomGrid._gen_grid: the rooms' walls, their neighbours and door positions (a draw per
  // inner wall: for each room, row by row, its right wall's y then its bottom wall's x), and
  // the agent in the middle room's centre facing right.
  void GenGrid() override {
    for (int j = 0; j < num_rows_; ++j) {
      for (int i = 0; i < num_cols_; ++i) {
        Room& room = rooms_[RoomIndex(i, j)];
        room.top = {i * (room_size_ - 1), j * (room_size_ - 1)};
        room.size = {room_size_, room_size_};
        room.doors.fill(Room::kNoDoor);
        room.door_pos.fill(std::nullopt);
        room.neighbors.fill(-1);
        room.locked = false;
        room.objs.clear();
        grid_.WallRect(room.top.x, room.top.y, room.size.x, room.size.y, Wall());
      }
    }
    for (int j = 0; j < num_rows_; ++j) {
      for (int i = 0; i < num_cols_; ++i) {
        Room& room = rooms_[RoomIndex(i, j)];
        const int x_l = room.top.x + 1, y_l = room.top.y + 1;
        const int x_m = room.top.x + room.size.x - 1, y_m = room.top.y + room.size.y - 1;
        if (i < num_cols_ - 1) {
          room.neighbors[0] = static_cast<int>(RoomIndex(i + 1, j));
          room.door_pos[0] = Pos{x_m, RandInt(y_l, y_m)};
        }
        if (j < num_rows_ - 1) {
          room.neighbors[1] = static_cast<int>(RoomIndex(i, j + 1));
          room.door_pos[1] = Pos{RandInt(x_l, x_m), y_m};
        }
        if (i > 0) {
          room.neighbors[2] = static_cast<int>(RoomIndex(i - 1, j));
          room.door_pos[2] = rooms_[static_cast<size_t>(room.neighbors[2])].door_pos[0];
        }
        if (j > 0) {
          room.neighbors[3] = static_cast<int>(RoomIndex(i, j - 1));
          room.door_pos[3] = rooms_[static_cast<size_t>(room.neighbors[3])].door_pos[1];
        }
      }
    }
    agent_pos_ = {(num_cols_ / 2) * (room_size_ - 1) + room_size_ / 2,
                  (num_rows_ / 2) * (room_size_ - 1) + room_size_ / 2};
    agent_dir_ = 0;
  }

  size_t RoomIndex(int i, int j) const {
    if (i < 0 || j < 0 || i >= num_cols_ || j >= num_rows_) {
      throw std::logic_error("minigrid: no room (" + std::to_string(i) + ", " + std::to_string(j) +
                             ")");
    }
    return static_cast<size_t>(j) * num_cols_ + i;
  }
  Room& RoomAt(int i, int j) { return rooms_[RoomIndex(i, j)]; }

  // room_from_pos(x, y)
  Room& RoomFromPos(Pos pos) { return RoomAt(pos.x / (room_size_ - 1), pos.y / (room_size_ - 1)); }

  // place_in_room(i, j, obj): place_obj in the room, away from the agent (reject_next_to),
  // at most 1000 tries; appended to room.objs.
  std::pair<ObjectId, Pos> PlaceInRoom(int i, int j, ObjectId obj) {
    Room& room = RoomAt(i, j);
    const auto reject_next_to = [this](Pos pos) {
      return std::abs(agent_pos_.x - pos.x) + std::abs(agent_pos_.y - pos.y) < 2;
    };
    const Pos pos = PlaceObj(obj, room.top, room.size, reject_next_to, 1000);
    room.objs.push_back(obj);
    return {obj, pos};
  }

  // add_object(i, j, kind=None, color=None): a key, ball or box (kind drawn first, then the
  // colour, each when not given).
  std::pair<ObjectId, Pos> AddObject(int i, int j, std::optional<Type> kind = std::nullopt,
                                     std::optional<Color> color = std::nullopt) {
    if (!kind) kind = RandElem(kObjectKinds);
    if (!color) color = RandColor();
    if (*kind != Type::kKey && *kind != Type::kBall && *kind != Type::kBox) {
      throw std::logic_error("add_object: only keys, balls and boxes");
    }
    return PlaceInRoom(i, j, NewObject(*kind, *color));
  }

  // add_door(i, j, door_idx=None, color=None, locked=None)
  std::pair<ObjectId, Pos> AddDoor(int i, int j, std::optional<int> door_idx = std::nullopt,
                                   std::optional<Color> color = std::nullopt,
                                   std::optional<bool> locked = std::nullopt) {
    Room& room = RoomAt(i, j);
    if (!door_idx) {
      while (true) {
        const int k = RandInt(0, 4);
        if (room.neighbors[static_cast<size_t>(k)] >= 0 && !room.Connected(k)) {
          door_idx = k;
          break;
        }
      }
    }
    if (!color) color = RandColor();
    if (!locked) locked = RandBool();
    const size_t k = static_cast<size_t>(*door_idx);
    if (room.Connected(*door_idx)) throw std::logic_error("add_door: door already exists");
    if (!room.door_pos[k]) throw std::logic_error("add_door: no room behind this wall");
    room.locked = *locked;
    const ObjectId door = NewDoor(*color, *locked);
    const Pos pos = *room.door_pos[k];
    grid_.Set(pos, door);
    objects_[door].cur_pos = pos;
    Room& neighbor = rooms_[static_cast<size_t>(room.neighbors[k])];
    room.doors[k] = door;
    neighbor.doors[(k + 2) % 4] = door;
    return {door, pos};
  }

  // remove_wall(i, j, wall_idx)
  void RemoveWall(int i, int j, int wall_idx) {
    Room& room = RoomAt(i, j);
    const size_t k = static_cast<size_t>(wall_idx);
    if (room.Connected(wall_idx) || room.neighbors[k] < 0) {
      throw std::logic_error("remove_wall: a door exists on this wall, or no room behind it");
    }
    const int tx = room.top.x, ty = room.top.y, w = room.size.x, h = room.size.y;
    if (wall_idx == 0) {
      for (int d = 1; d < h - 1; ++d) grid_.Set(tx + w - 1, ty + d, kNoObject);
    } else if (wall_idx == 1) {
      for (int d = 1; d < w - 1; ++d) grid_.Set(tx + d, ty + h - 1, kNoObject);
    } else if (wall_idx == 2) {
      for (int d = 1; d < h - 1; ++d) grid_.Set(tx, ty + d, kNoObject);
    } else {
      for (int d = 1; d < w - 1; ++d) grid_.Set(tx + d, ty, kNoObject);
    }
    room.doors[k] = Room::kWallRemoved;
    rooms_[static_cast<size_t>(room.neighbors[k])].doors[(k + 2) % 4] = Room::kWallRemoved;
  }

  // RoomGrid.place_agent(i=None, j=None, rand_dir=True): a random room for what is not given
  // (column, then row), then MiniGridEnv.place_agent in it (1000 tries) until the cell in
  // front is empty or a wall. minigrid tries forever where no free cell of the room has such a
  // front (a room crowded by a level's options); PlacementError after 100000 placements.
  Pos PlaceAgentInRoom(std::optional<int> i = std::nullopt, std::optional<int> j = std::nullopt,
                       bool rand_dir = true) {
    if (!i) i = RandInt(0, num_cols_);
    if (!j) j = RandInt(0, num_rows_);
    const Room& room = RoomAt(*i, *j);
    for (int placements = 0;; ++placements) {
      if (placements == 100000) throw PlacementError("place_agent: no free cell with a free front");
      PlaceAgent(room.top, room.size, rand_dir, 1000);
      const ObjectId front = grid_.Get(FrontPos());
      if (front == kNoObject || objects_[front].type == Type::kWall) break;
    }
    return agent_pos_;
  }

  // connect_all(door_colors=COLOR_NAMES, max_itrs=5000): unlocked doors between random rooms
  // until every room is reachable from the agent's; the doors added are added_doors().
  // PlacementError after max_itrs rounds (minigrid's RecursionError).
  template <size_t N = kNumColors>
  void ConnectAll(const std::array<Color, N>& door_colors = kColorNames, int max_itrs = 5000) {
    const size_t start = static_cast<size_t>(&RoomFromPos(agent_pos_) - rooms_.data());
    added_.clear();
    for (int itrs = 0;; ++itrs) {
      if (itrs > max_itrs) throw PlacementError("connect_all failed");
      if (Reachable(start) == rooms_.size()) break;
      const int i = RandInt(0, num_cols_);
      const int j = RandInt(0, num_rows_);
      const int k = RandInt(0, 4);
      const Room& room = RoomAt(i, j);
      if (!room.door_pos[static_cast<size_t>(k)] || room.Connected(k)) continue;
      const Room& neighbor = rooms_[static_cast<size_t>(room.neighbors[static_cast<size_t>(k)])];
      if (room.locked || neighbor.locked) continue;
      const Color color = RandElem(door_colors);
      added_.push_back(AddDoor(i, j, k, color, false).first);
    }
  }

  // add_distractors(i=None, j=None, num_distractors=10, all_unique=True): random keys, balls
  // and boxes (colour drawn first, then kind; with all_unique none with the (kind, colour)
  // of an object already in a room), each in room (i, j) or a random one (column, then row).
  // The objects added are added_objects().
  void AddDistractors(std::optional<int> i = std::nullopt, std::optional<int> j = std::nullopt,
                      int num_distractors = 10, bool all_unique = true) {
    existing_.clear();
    for (const Room& room : rooms_) {
      for (ObjectId obj : room.objs) existing_.push_back({objects_[obj].type, objects_[obj].color});
    }
    added_.clear();
    while (static_cast<int>(added_.size()) < num_distractors) {
      const Color color = RandElem(kColorNames);
      const Type type = RandElem(kObjectKinds);
      const KindAndColor obj{type, color};
      if (all_unique && std::find(existing_.begin(), existing_.end(), obj) != existing_.end()) {
        continue;
      }
      const int room_i = i ? *i : RandInt(0, num_cols_);
      const int room_j = j ? *j : RandInt(0, num_rows_);
      added_.push_back(AddObject(room_i, room_j, type, color).first);
      existing_.push_back(obj);
    }
  }

  // What the last ConnectAll or AddDistractors added.
  const std::vector<ObjectId>& added() const { return added_; }

  const int room_size_;
  const int num_rows_;
  const int num_cols_;
  std::vector<Room> rooms_;  // row-major: room (i, j) is rooms_[j * num_cols_ + i]

 private:
  // connect_all's find_reach(): how many rooms the start room reaches through doors and
  // removed walls (a depth-first search, as the reference's; only the count matters).
  size_t Reachable(size_t start) {
    std::fill(reach_.begin(), reach_.end(), 0);
    stack_.clear();
    stack_.push_back(start);
    size_t count = 0;
    while (!stack_.empty()) {
      const size_t r = stack_.back();
      stack_.pop_back();
      if (reach_[r]) continue;
      reach_[r] = 1;
      ++count;
      for (int k = 0; k < 4; ++k) {
        if (rooms_[r].Connected(k)) {
          stack_.push_back(static_cast<size_t>(rooms_[r].neighbors[static_cast<size_t>(k)]));
        }
      }
    }
    return count;
  }

  std::vector<uint8_t> reach_;
  std::vector<size_t> stack_;
  std::vector<ObjectId> added_;
  std::vector<KindAndColor> existing_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_ROOM_GRID_H_
