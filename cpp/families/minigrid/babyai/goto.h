// BabyAI's "go to" levels: ports of minigrid 3.2.0's GoToRedBallGrey, GoToRedBall (and
// GoToRedBallNoDists, registered with num_dists 0), GoToObj, GoToLocal, GoTo, GoToImpUnlock,
// GoToRedBlueBall, GoToDoor and GoToObjDoor
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/goto.py).
// GoToSeq is a LevelGen (levelgen.h). Each level's GenMission is its gen_mission, line by line.
//
// Quirks kept: GoToImpUnlock compares the rooms it draws with `is` on NumPy integers, which is
// never true: the key's room is drawn once (it may be the locked room) and every room, the
// locked one too, gets two distractors. GoToRedBallGrey paints its distractors grey after
// placing them (a red ball among them becomes a grey one).
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_GOTO_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_GOTO_H_

#include <vector>

#include "families/minigrid/babyai/roomgrid_level.h"

namespace envfleet::minigrid::babyai {

// The levels of one room with the agent, a red ball (GoToRedBall, GoToRedBallGrey) or a red or
// blue one (GoToRedBlueBall) and num_dists distractors: room_size 8, num_dists 7.
enum class RedBallTask : uint8_t { kRedBall, kRedBallGrey, kRedBlueBall };

template <RedBallTask kTask>
class GoToRedBallLevel final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions({{"room_size", int64_t{8}}, {"num_dists", int64_t{7}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {8, 1, 1}), LevelMaxSteps(config)};
  }
  // num_dists: the ball and they fit in the room with the agent.
  static int NumDists(const Config& config) {
    const RoomShape shape = LayoutOf(config).shape;
    return static_cast<int>(IntOption(config, "num_dists", 0, RoomCapacity(shape, true) - 1));
  }
  static EnvSpec Spec(const Config& config) {
    NumDists(config);
    return LevelSpec(config, LayoutOf(config));
  }

  GoToRedBallLevel(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)), num_dists_(NumDists(config)) {}

 protected:
  bool GenMission() override {
    PlaceAgentInRoom();
    ObjectId ball = kNoObject;
    if constexpr (kTask == RedBallTask::kRedBlueBall) {
      AddDistractors(std::nullopt, std::nullopt, num_dists_, /*all_unique=*/false);
      for (const ObjectId dist : added()) {
        const WorldObject& obj = objects_[dist];
        if (obj.type == Type::kBall && (obj.color == Color::kBlue || obj.color == Color::kRed)) {
          return false;  // "can only have one blue or red ball"
        }
      }
      const Color color = RandIndex(2) == 0 ? Color::kRed : Color::kBlue;  // ["red", "blue"]
      ball = AddObject(0, 0, Type::kBall, color).first;
    } else {
      ball = AddObject(0, 0, Type::kBall, Color::kRed).first;
      AddDistractors(std::nullopt, std::nullopt, num_dists_, /*all_unique=*/false);
      if constexpr (kTask == RedBallTask::kRedBallGrey) {
        for (const ObjectId dist : added()) objects_[dist].color = Color::kGrey;
      }
    }
    if (!CheckObjsReachable()) return false;
    instrs_.SetRoot(
        instrs_.Action(InstrKind::kGoTo, instrs_.NewDesc(Type::kBall, objects_[ball].color)));
    return true;
  }

 private:
  const int num_dists_;
};

using GoToRedBall = GoToRedBallLevel<RedBallTask::kRedBall>;
using GoToRedBallGrey = GoToRedBallLevel<RedBallTask::kRedBallGrey>;
using GoToRedBlueBall = GoToRedBallLevel<RedBallTask::kRedBlueBall>;

// GoToObj: one distractor (all_unique) in one room: room_size 8.
class GoToObj final : public RoomGridLevel {
 public:
  static Config DefaultConfig() { return LevelOptions({{"room_size", int64_t{8}}}); }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {8, 1, 1}), LevelMaxSteps(config)};
  }
  static EnvSpec Spec(const Config& config) { return LevelSpec(config, LayoutOf(config)); }

  GoToObj(const Config& config, uint64_t seed) : RoomGridLevel(config, seed, LayoutOf(config)) {}

 protected:
  bool GenMission() override {
    PlaceAgentInRoom();
    AddDistractors(std::nullopt, std::nullopt, 1);
    const WorldObject& obj = objects_[added()[0]];
    instrs_.SetRoot(instrs_.Action(InstrKind::kGoTo, instrs_.NewDesc(obj.type, obj.color)));
    return true;
  }
};

// GoToLocal (room_size 8, num_dists 8, one room) and GoTo (room_size 8, num_rows 3,
// num_cols 3, num_dists 18, doors_open False: connect_all first, doors opened last).
template <bool kMaze>
class GoToLevel final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    if constexpr (kMaze) {
      return LevelOptions({{"room_size", int64_t{8}},
                           {"num_rows", int64_t{3}},
                           {"num_cols", int64_t{3}},
                           {"num_dists", int64_t{18}},
                           {"doors_open", false}});
    } else {
      return LevelOptions({{"room_size", int64_t{8}}, {"num_dists", int64_t{8}}});
    }
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {8, kMaze ? 3 : 1, kMaze ? 3 : 1}), LevelMaxSteps(config)};
  }
  static int NumDists(const Config& config) {
    const RoomShape shape = LayoutOf(config).shape;
    return CountOption(config, "num_dists", shape, shape.num_rows * shape.num_cols, 1,
                       /*agent=*/true);
  }
  static EnvSpec Spec(const Config& config) {
    NumDists(config);
    return LevelSpec(config, LayoutOf(config));
  }

  GoToLevel(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)),
        num_dists_(NumDists(config)),
        doors_open_(kMaze && config.Get<bool>("doors_open")) {}

 protected:
  bool GenMission() override {
    PlaceAgentInRoom();
    if constexpr (kMaze) ConnectAll();
    AddDistractors(std::nullopt, std::nullopt, num_dists_, /*all_unique=*/false);
    if (!CheckObjsReachable()) return false;
    const WorldObject& obj = objects_[added()[static_cast<size_t>(RandIndex(added().size()))]];
    instrs_.SetRoot(instrs_.Action(InstrKind::kGoTo, instrs_.NewDesc(obj.type, obj.color)));
    if (doors_open_) OpenAllDoors();
    return true;
  }

 private:
  const int num_dists_;
  const bool doors_open_;
};

using GoToLocal = GoToLevel<false>;
using GoTo = GoToLevel<true>;

// GoToImpUnlock: room_size 8, num_rows 3, num_cols 3 (RoomGridLevel's).
class GoToImpUnlock final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions(
        {{"room_size", int64_t{8}}, {"num_rows", int64_t{3}}, {"num_cols", int64_t{3}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {8, 3, 3}), LevelMaxSteps(config)};
  }
  static EnvSpec Spec(const Config& config) {
    const LevelLayout layout = LayoutOf(config);
    RequireTwoRooms(layout.shape);
    if (layout.shape.room_size < 5) {
      // the locked room may get the key, two distractors and the target: up to four objects,
      // none next to another's only way through
      throw std::invalid_argument("room_size must be at least 5 in this level, got " +
                                  std::to_string(layout.shape.room_size));
    }
    return LevelSpec(config, layout);
  }

  GoToImpUnlock(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)) {
    Spec(config);
  }

 protected:
  bool GenMission() override {
    const int id = RandInt(0, num_cols_);
    const int jd = RandInt(0, num_rows_);
    const ObjectId door = AddDoor(id, jd, std::nullopt, std::nullopt, true).first;
    const Room* locked_room = &RoomAt(id, jd);
    // `if ik is id and jk is jd: continue` never holds: one draw, maybe the locked room.
    const int ik = RandInt(0, num_cols_);
    const int jk = RandInt(0, num_rows_);
    AddObject(ik, jk, Type::kKey, objects_[door].color);
    ConnectAll();
    // `if i is not id or j is not jd` always holds: every room gets its distractors.
    for (int i = 0; i < num_cols_; ++i) {
      for (int j = 0; j < num_rows_; ++j) AddDistractors(i, j, 2, /*all_unique=*/false);
    }
    do {
      PlaceAgentInRoom();
    } while (AgentRoom() == locked_room);
    if (!CheckObjsReachable()) return false;
    AddDistractors(id, jd, 1, /*all_unique=*/false);
    const WorldObject& obj = objects_[added()[0]];
    instrs_.SetRoot(instrs_.Action(InstrKind::kGoTo, instrs_.NewDesc(obj.type, obj.color)));
    return true;
  }
};

// GoToDoor (room_size 7) and GoToObjDoor (room_size 8, eight distractors first): four doors
// of random colours, locked or not, around the middle room (1, 1), the agent in it.
template <bool kObjects>
class GoToDoorLevel final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions({{"num_rows", int64_t{3}}, {"num_cols", int64_t{3}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {kObjects ? 8 : 7, 3, 3}), LevelMaxSteps(config)};
  }
  static EnvSpec Spec(const Config& config) {
    const LevelLayout layout = LayoutOf(config);
    RequireRooms(layout.shape, 3, 3);
    return LevelSpec(config, layout);
  }

  GoToDoorLevel(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)) {
    Spec(config);
    objs_.reserve(16);
  }

 protected:
  bool GenMission() override {
    objs_.clear();
    if constexpr (kObjects) {
      PlaceAgentInRoom(1, 1);
      AddDistractors(1, 1, 8, /*all_unique=*/false);
      objs_.assign(added().begin(), added().end());
    }
    for (int k = 0; k < 4; ++k) objs_.push_back(AddDoor(1, 1).first);
    if constexpr (kObjects) {
      if (!CheckObjsReachable()) return false;
    } else {
      PlaceAgentInRoom(1, 1);
    }
    const WorldObject& obj = objects_[objs_[static_cast<size_t>(RandIndex(objs_.size()))]];
    instrs_.SetRoot(instrs_.Action(InstrKind::kGoTo, instrs_.NewDesc(obj.type, obj.color)));
    return true;
  }

 private:
  std::vector<ObjectId> objs_;
};

using GoToDoor = GoToDoorLevel<false>;
using GoToObjDoor = GoToDoorLevel<true>;

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_GOTO_H_
