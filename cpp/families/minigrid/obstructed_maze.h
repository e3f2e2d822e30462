// MiniGrid-ObstructedMaze-*: ports of minigrid 3.2.0's ObstructedMaze_1Dlhb,
// ObstructedMaze_Full (the v0 ids) and ObstructedMaze_Full_V1 (the v1 ids)
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/obstructedmaze.py,
// obstructedmaze_v1.py). Rooms joined by locked doors, their keys (in grey boxes with
// key_in_box) in the room in front of them, green balls blocking the doors (blocked); the
// blue ball to pick up (by identity) in a corner room.
//
// The door colours are _rand_subset(COLOR_NAMES, 6). v0 puts each locked door's blocking
// ball and then its key before the next door's: the second door's ball can land on the first
// door's key (or box), which is then lost (still in room.objs, no longer on the grid), a quirk
// minigrid keeps in v0 and v1 fixes by placing the keys after all doors and balls.
//
// Options (1Dlhb): key_in_box True, blocked True. (Full, V1): agent_room (1, 1), key_in_box
// True, blocked True, num_quarters 4 (1 .. 4), num_rooms_visited 25. max_steps defaults to
// 4 * num_rooms_visited * 6**2 (2 rooms for 1Dlhb). mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_OBSTRUCTED_MAZE_H_
#define ENVFLEET_FAMILIES_MINIGRID_OBSTRUCTED_MAZE_H_

#include <array>
#include <optional>
#include <vector>

#include "families/minigrid/room_grid.h"

namespace envfleet::minigrid {

enum class ObstructedMazeKind : uint8_t { k1Dlhb, kFull, kFullV1 };

template <ObstructedMazeKind kKind>
class ObstructedMazeEnvOf final : public RoomGridEnv {
  static constexpr bool kFullMaze = kKind != ObstructedMazeKind::k1Dlhb;

 public:
  static constexpr int kRoomSize = 6;

  static Config DefaultConfig() {
    Config config = CommonOptions({{"key_in_box", true}, {"blocked", true}},
                                  /*see_through_walls=*/false);
    if constexpr (kFullMaze) {
      config.Set("agent_room", std::vector<double>{1, 1});
      config.Set("num_quarters", int64_t{4});
      config.Set("num_rooms_visited", int64_t{25});
    }
    return config;
  }
  static RoomShape ShapeOf() {
    return kFullMaze ? RoomShape{kRoomSize, 3, 3} : RoomShape{kRoomSize, 1, 2};
  }
  static int64_t MaxStepsOf(const Config& config) {
    const int64_t rooms_visited = kFullMaze ? IntOption(config, "num_rooms_visited", 1) : 2;
    return MaxSteps(config, 4 * rooms_visited * kRoomSize * kRoomSize);
  }
  static EnvSpec Spec(const Config& config) {
    if constexpr (kFullMaze) {
      AgentRoom(config);
      IntOption(config, "num_quarters", 1, 4);
    }
    return MiniGridSpec(config, RoomLayout(ShapeOf(), MaxStepsOf(config)));
  }

  ObstructedMazeEnvOf(const Config& config, uint64_t seed)
      : RoomGridEnv(config, seed, ShapeOf(), MaxStepsOf(config)),
        key_in_box_(config.Get<bool>("key_in_box")),
        blocked_(config.Get<bool>("blocked")) {
    if constexpr (kFullMaze) {
      agent_room_ = AgentRoom(config);
      num_quarters_ = static_cast<int>(IntOption(config, "num_quarters", 1, 4));
    }
  }

  void Step(const void* action_ptr) override {
    const int64_t action = *static_cast<const int64_t*>(action_ptr);
    StepAgent(action);
    if (action == kPickup && carrying_ != kNoObject && carrying_ == obj_) {
      reward_ = SuccessReward();
      terminated_ = true;
    }
  }

 protected:
  void GenGrid() override {
    RoomGridEnv::GenGrid();
    door_colors_ = RandSubset(kColorNames, kColorNames.size());
    mission_.Set("pick up the blue ball");  // COLOR_NAMES[0]
    if constexpr (!kFullMaze) {
      AddObstructedDoor(0, 0, 0, door_colors_[0], true, key_in_box_, blocked_);
      obj_ = AddObject(1, 0, Type::kBall, kBallColor).first;
      PlaceAgentInRoom(0, 0);
    } else {
      constexpr std::array<std::array<int, 2>, 4> kSideRooms = {{{2, 1}, {1, 2}, {0, 1}, {1, 0}}};
      constexpr std::array<std::array<int, 2>, 4> kCorners = {{{2, 0}, {2, 2}, {0, 2}, {0, 0}}};
      for (int i = 0; i < num_quarters_; ++i) {
        const auto [si, sj] = kSideRooms[static_cast<size_t>(i)];
        AddObstructedDoor(1, 1, i, door_colors_[static_cast<size_t>(i)], false, false, false);
        for (int k : {-1, 1}) {
          const int door_idx = Mod(i + k, 4);
          const Color color = door_colors_[static_cast<size_t>(Mod(i + k, kNumColors))];
          if constexpr (kKind == ObstructedMazeKind::kFull) {
            AddObstructedDoor(si, sj, door_idx, color, true, key_in_box_, blocked_);
          } else {  // add_locked_door: the door and its ball, the key below
            AddBlockedDoor(si, sj, door_idx, color, true, blocked_);
          }
        }
        if constexpr (kKind == ObstructedMazeKind::kFullV1) {
          for (int k : {-1, 1}) {  // add_key, after both doors and their balls
            AddKey(si, sj, door_colors_[static_cast<size_t>(Mod(i + k, kNumColors))]);
          }
        }
      }
      const size_t corner = static_cast<size_t>(RandIndex(static_cast<size_t>(num_quarters_)));
      obj_ = AddObject(kCorners[corner][0], kCorners[corner][1], Type::kBall, kBallColor).first;
      PlaceAgentInRoom(agent_room_.x, agent_room_.y);
    }
  }

 private:
  // ball_to_find_color, blocking_ball_color, box_color: COLOR_NAMES[0], [1], [2].
  static constexpr Color kBallColor = kColorNames[0];
  static constexpr Color kBlockingBallColor = kColorNames[1];
  static constexpr Color kBoxColor = kColorNames[2];

  static int Mod(int a, int n) { return ((a % n) + n) % n; }  // Python's %

  // agent_room: (i, j) of a room of the 3x3 grid.
  static Pos AgentRoom(const Config& config) {
    const auto& values = config.Get<std::vector<double>>("agent_room");
    if (values.size() != 2 || values[0] != static_cast<int>(values[0]) ||
        values[1] != static_cast<int>(values[1]) || values[0] < 0 || values[0] > 2 ||
        values[1] < 0 || values[1] > 2) {
      throw std::invalid_argument("agent_room must be two ints (i, j) in [0, 2]");
    }
    return {static_cast<int>(values[0]), static_cast<int>(values[1])};
  }

  // RoomGrid.add_door, then, if blocked, a green ball on the cell before the door (inside
  // room (i, j)), whatever was there.
  std::pair<ObjectId, Pos> AddBlockedDoor(int i, int j, int door_idx, Color color, bool locked,
                                          bool blocked) {
    const auto [door, pos] = AddDoor(i, j, door_idx, color, locked);
    if (blocked) {
      const Pos vec = kDirToVec[static_cast<size_t>(door_idx)];
      grid_.Set(pos.x - vec.x, pos.y - vec.y, NewObject(Type::kBall, kBlockingBallColor));
    }
    return {door, pos};
  }

  // v1's add_key: the door's key (in a grey box with key_in_box) placed in room (i, j).
  void AddKey(int i, int j, Color color) {
    ObjectId obj = NewObject(Type::kKey, color);
    if (key_in_box_) {
      const ObjectId box = NewObject(Type::kBox, kBoxColor);
      objects_[box].contains = obj;
      obj = box;
    }
    PlaceInRoom(i, j, obj);
  }

  // ObstructedMazeEnv.add_door: the door, its blocking ball, and for a locked door its key
  // (in a box with key_in_box) in room (i, j).
  void AddObstructedDoor(int i, int j, int door_idx, Color color, bool locked, bool key_in_box,
                         bool blocked) {
    const ObjectId door = AddBlockedDoor(i, j, door_idx, color, locked, blocked).first;
    if (locked) {
      ObjectId obj = NewObject(Type::kKey, objects_[door].color);
      if (key_in_box) {
        const ObjectId box = NewObject(Type::kBox, kBoxColor);
        objects_[box].contains = obj;
        obj = box;
      }
      PlaceInRoom(i, j, obj);
    }
  }

  const bool key_in_box_;
  const bool blocked_;
  Pos agent_room_ = {1, 1};
  int num_quarters_ = 4;
  std::array<Color, kNumColors> door_colors_{};
  ObjectId obj_ = kNoObject;
};

using ObstructedMaze1DlhbEnv = ObstructedMazeEnvOf<ObstructedMazeKind::k1Dlhb>;
using ObstructedMazeFullEnv = ObstructedMazeEnvOf<ObstructedMazeKind::kFull>;
using ObstructedMazeFullV1Env = ObstructedMazeEnvOf<ObstructedMazeKind::kFullV1>;

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_OBSTRUCTED_MAZE_H_
