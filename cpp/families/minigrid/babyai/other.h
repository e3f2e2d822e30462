// BabyAI's other levels: ports of minigrid 3.2.0's ActionObjDoor, FindObjS5 (FindObjS6,
// FindObjS7), KeyCorridor (KeyCorridorS*R*), OneRoomS8 (OneRoomS12...) and MoveTwoAcross
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/other.py).
//
// Quirk kept: FindObjS5 draws the object's room as (i from num_rows, j from num_cols) and
// passes them to add_object as (column, row): with more rows than columns a room that does not
// exist can be drawn, which minigrid's get_room asserts against (an error from reset here too).
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_OTHER_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_OTHER_H_

#include <string>
#include <vector>

#include "families/minigrid/babyai/roomgrid_level.h"
#include "families/minigrid/key_corridor.h"

namespace envfleet::minigrid::babyai {

// ActionObjDoor: five distinct objects and four doors around room (1, 1); go to one or pick it
// up, go to a door or open it. room_size 7, num_rows 3, num_cols 3.
class ActionObjDoor final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions({{"num_rows", int64_t{3}}, {"num_cols", int64_t{3}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {7, 3, 3}), LevelMaxSteps(config)};
  }
  static EnvSpec Spec(const Config& config) {
    const LevelLayout layout = LayoutOf(config);
    RequireRooms(layout.shape, 3, 3);
    return LevelSpec(config, layout);
  }

  ActionObjDoor(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)) {
    Spec(config);
    objs_.reserve(9);
  }

 protected:
  bool GenMission() override {
    AddDistractors(1, 1, 5);
    objs_.assign(added().begin(), added().end());
    for (int k = 0; k < 4; ++k)
      objs_.push_back(AddDoor(1, 1, std::nullopt, std::nullopt, false).first);
    PlaceAgentInRoom(1, 1);
    const WorldObject& obj = objects_[objs_[static_cast<size_t>(RandIndex(objs_.size()))]];
    const int desc = instrs_.NewDesc(obj.type, obj.color);
    const InstrKind other = obj.type == Type::kDoor ? InstrKind::kOpen : InstrKind::kPickup;
    instrs_.SetRoot(instrs_.Action(RandBool() ? InstrKind::kGoTo : other, desc));
    return true;
  }

 private:
  std::vector<ObjectId> objs_;
};

// FindObjS5: one object in a random room, the agent in room (1, 1); pick it up (by its kind).
// room_size 5, num_rows 3, num_cols 3; max_steps 20 * room_size**2.
class FindObj final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions(
        {{"room_size", int64_t{5}}, {"num_rows", int64_t{3}}, {"num_cols", int64_t{3}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    const RoomShape shape = LevelShape(config, {5, 3, 3});
    return {shape, LevelMaxSteps(config, int64_t{20} * shape.room_size * shape.room_size)};
  }
  static EnvSpec Spec(const Config& config) {
    const LevelLayout layout = LayoutOf(config);
    RequireRooms(layout.shape, 2, 2);
    return LevelSpec(config, layout);
  }

  FindObj(const Config& config, uint64_t seed) : RoomGridLevel(config, seed, LayoutOf(config)) {
    Spec(config);
  }

 protected:
  bool GenMission() override {
    const int i = RandInt(0, num_rows_);  // (sic: see the top)
    const int j = RandInt(0, num_cols_);
    const ObjectId obj = AddObject(i, j).first;
    PlaceAgentInRoom(1, 1);
    ConnectAll();
    instrs_.SetRoot(
        instrs_.Action(InstrKind::kPickup, instrs_.NewDesc(objects_[obj].type, std::nullopt)));
    return true;
  }
};

// KeyCorridor: as MiniGrid's KeyCorridor (key_corridor.h) with the instruction "pick up the
// ball" (by kind). num_rows 3, obj_type "ball", room_size 6, num_cols 3; max_steps
// 30 * room_size**2.
class KeyCorridor final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions({{"num_rows", int64_t{3}},
                         {"obj_type", std::string("ball")},
                         {"room_size", int64_t{6}},
                         {"num_cols", int64_t{3}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    const RoomShape shape = LevelShape(config, {6, 3, 3});
    return {shape, LevelMaxSteps(config, int64_t{30} * shape.room_size * shape.room_size)};
  }
  static EnvSpec Spec(const Config& config) {
    KeyCorridorEnv::ObjType(config);
    const LevelLayout layout = LayoutOf(config);
    RequireRooms(layout.shape, 3, 1);
    return LevelSpec(config, layout);
  }

  KeyCorridor(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)), obj_type_(KeyCorridorEnv::ObjType(config)) {
    Spec(config);
  }

 protected:
  bool GenMission() override {
    for (int j = 1; j < num_rows_; ++j) RemoveWall(1, j, 3);
    const int room_idx = RandInt(0, num_rows_);
    const ObjectId door = AddDoor(2, room_idx, 2, std::nullopt, true).first;
    const ObjectId obj = AddObject(2, room_idx, obj_type_).first;
    const int key_room = RandInt(0, num_rows_);
    AddObject(0, key_room, Type::kKey, objects_[door].color);
    PlaceAgentInRoom(1, num_rows_ / 2);
    ConnectAll();
    instrs_.SetRoot(
        instrs_.Action(InstrKind::kPickup, instrs_.NewDesc(objects_[obj].type, std::nullopt)));
    return true;
  }

 private:
  const Type obj_type_;
};

// OneRoomS8: a ball in one room (room_size 8); pick it up.
class OneRoom final : public RoomGridLevel {
 public:
  static Config DefaultConfig() { return LevelOptions({{"room_size", int64_t{8}}}); }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {8, 1, 1}), LevelMaxSteps(config)};
  }
  static EnvSpec Spec(const Config& config) { return LevelSpec(config, LayoutOf(config)); }

  OneRoom(const Config& config, uint64_t seed) : RoomGridLevel(config, seed, LayoutOf(config)) {}

 protected:
  bool GenMission() override {
    const ObjectId obj = AddObject(0, 0, Type::kBall).first;
    PlaceAgentInRoom();
    instrs_.SetRoot(
        instrs_.Action(InstrKind::kPickup, instrs_.NewDesc(objects_[obj].type, std::nullopt)));
    return true;
  }
};

// MoveTwoAcross: PutNext's two rooms (room_size, required), objs_per_room (2 to 9, required)
// distinct objects in each; put one of the left next to one of the right, then one of the
// right next to one of the left. max_steps 16 * room_size**2.
class MoveTwoAcross final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions({{"room_size", int64_t{-1}}, {"objs_per_room", int64_t{-1}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    const int room_size = RequiredIntOption(config, "room_size", 3, 1024);
    return {{room_size, 1, 2}, LevelMaxSteps(config, int64_t{16} * room_size * room_size)};
  }
  static int ObjsPerRoom(const Config& config) {
    const int objs = RequiredIntOption(config, "objs_per_room", 2, 9);
    RequireRoomFor("objs_per_room", LayoutOf(config).shape, 1, objs, /*agent=*/true);
    return objs;
  }
  static EnvSpec Spec(const Config& config) {
    ObjsPerRoom(config);
    return LevelSpec(config, LayoutOf(config));
  }

  MoveTwoAcross(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)), objs_per_room_(ObjsPerRoom(config)) {
    objs_l_.reserve(9);
    objs_r_.reserve(9);
    pair_l_.reserve(2);
    pair_r_.reserve(2);
  }

 protected:
  bool GenMission() override {
    PlaceAgentInRoom(0, 0);
    AddDistractors(0, 0, objs_per_room_);
    objs_l_.assign(added().begin(), added().end());
    AddDistractors(1, 0, objs_per_room_);
    objs_r_.assign(added().begin(), added().end());
    RemoveWall(0, 0, 0);
    RandSubset(objs_l_, 2, pair_l_);
    RandSubset(objs_r_, 2, pair_r_);
    const int put1 = PutNextOf(pair_l_[0], pair_r_[0]);  // a next to b
    const int put2 = PutNextOf(pair_r_[1], pair_l_[1]);  // c next to d
    instrs_.SetRoot(instrs_.Seq(InstrKind::kBefore, put1, put2));
    return true;
  }

 private:
  int PutNextOf(ObjectId move, ObjectId fixed) {
    const int move_desc = instrs_.NewDesc(objects_[move].type, objects_[move].color);
    const int fixed_desc = instrs_.NewDesc(objects_[fixed].type, objects_[fixed].color);
    return instrs_.Action(InstrKind::kPutNext, move_desc, fixed_desc);
  }

  const int objs_per_room_;
  std::vector<ObjectId> objs_l_;
  std::vector<ObjectId> objs_r_;
  std::vector<ObjectId> pair_l_;
  std::vector<ObjectId> pair_r_;
};

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_OTHER_H_
