// MiniGrid-KeyCorridorS*R*: a port of minigrid 3.2.0's KeyCorridorEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/keycorridor.py).
// A corridor of num_rows rooms down the middle column (walls removed), a locked door from it
// into one right-hand room holding the object to pick up, its key in a left-hand room, and
// connect_all's unlocked doors until every room is reachable. Picking up that very object
// (identity) is rewarded.
//
// Options: num_rows 3, obj_type "ball" ("key", "ball" or "box"), room_size 6 (>= 3);
// max_steps defaults to 30 * room_size**2. mission_id 0 (EnvPool's).
#ifndef ENVFLEET_FAMILIES_MINIGRID_KEY_CORRIDOR_H_
#define ENVFLEET_FAMILIES_MINIGRID_KEY_CORRIDOR_H_

#include <string>

#include "families/minigrid/room_grid.h"

namespace envfleet::minigrid {

class KeyCorridorEnv final : public RoomGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions(
        {{"num_rows", int64_t{3}}, {"obj_type", std::string("ball")}, {"room_size", int64_t{6}}},
        /*see_through_walls=*/false);
  }
  static RoomShape ShapeOf(const Config& config) {
    return {static_cast<int>(IntOption(config, "room_size", 3, 1024)),
            static_cast<int>(IntOption(config, "num_rows", 1, 64)), /*num_cols=*/3};
  }
  static int64_t MaxStepsOf(const Config& config) {
    const int64_t room_size = ShapeOf(config).room_size;
    return MaxSteps(config, 30 * room_size * room_size);
  }
  static Type ObjType(const Config& config) {
    const std::string& name = config.Get<std::string>("obj_type");
    for (Type type : kObjectKinds) {
      if (name == TypeName(type)) return type;
    }
    throw std::invalid_argument("obj_type must be one of 'key', 'ball', 'box'; got '" + name + "'");
  }
  static EnvSpec Spec(const Config& config) {
    ObjType(config);
    return MiniGridSpec(config, RoomLayout(ShapeOf(config), MaxStepsOf(config)));
  }

  KeyCorridorEnv(const Config& config, uint64_t seed)
      : RoomGridEnv(config, seed, ShapeOf(config), MaxStepsOf(config)),
        obj_type_(ObjType(config)) {}

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
    for (int j = 1; j < num_rows_; ++j) RemoveWall(1, j, 3);
    const int room_idx = RandInt(0, num_rows_);
    const ObjectId door = AddDoor(2, room_idx, 2, std::nullopt, true).first;
    obj_ = AddObject(2, room_idx, obj_type_).first;
    const int key_room = RandInt(0, num_rows_);
    AddObject(0, key_room, Type::kKey, objects_[door].color);
    PlaceAgentInRoom(1, num_rows_ / 2);
    ConnectAll();
    mission_.Clear();
    mission_ << "pick up the " << objects_[obj_].color << " " << objects_[obj_].type;
  }

 private:
  const Type obj_type_;
  ObjectId obj_ = kNoObject;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_KEY_CORRIDOR_H_
