// BabyAI's "put next" levels: ports of minigrid 3.2.0's PutNextLocal and PutNext (with
// start_carrying: the PutNext*Carrying ids)
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/putnext.py).
//
// PutNext's start_carrying takes the object to move off the grid after reset has computed the
// first observation and the verifier has found its objects, as minigrid's reset override does:
// reset's image still shows it on its cell and the agent's hands empty (the frames and the
// FullyObsWrapper, made after reset, show the world as it then is), the description still
// knows it at that cell until a drop, and its cur_pos stays there: a drop that fails (a cell
// taken in front) then checks that old cell against the target's.
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_PUTNEXT_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_PUTNEXT_H_

#include <vector>

#include "families/minigrid/babyai/roomgrid_level.h"

namespace envfleet::minigrid::babyai {

// PutNextLocal: num_objs distinct objects in one room (room_size 8, num_objs 8); put one next
// to another.
class PutNextLocal final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions({{"room_size", int64_t{8}}, {"num_objs", int64_t{8}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {8, 1, 1}), LevelMaxSteps(config)};
  }
  static int NumObjs(const Config& config) {
    // two to draw from (_rand_subset), at most the 18 distinct kinds and colours (all_unique)
    const int num_objs = static_cast<int>(IntOption(config, "num_objs", 2, 18));
    RequireRoomFor("num_objs", LayoutOf(config).shape, 1, num_objs, /*agent=*/true);
    return num_objs;
  }
  static EnvSpec Spec(const Config& config) {
    NumObjs(config);
    return LevelSpec(config, LayoutOf(config));
  }

  PutNextLocal(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)), num_objs_(NumObjs(config)) {
    objs_.reserve(18);
    pair_.reserve(2);
  }

 protected:
  bool GenMission() override {
    PlaceAgentInRoom();
    AddDistractors(std::nullopt, std::nullopt, num_objs_, /*all_unique=*/true);
    if (!CheckObjsReachable()) return false;
    objs_.assign(added().begin(), added().end());
    RandSubset(objs_, 2, pair_);
    const WorldObject& o1 = objects_[pair_[0]];
    const WorldObject& o2 = objects_[pair_[1]];
    const int move = instrs_.NewDesc(o1.type, o1.color);
    instrs_.SetRoot(instrs_.Action(InstrKind::kPutNext, move, instrs_.NewDesc(o2.type, o2.color)));
    return true;
  }

 private:
  const int num_objs_;
  std::vector<ObjectId> objs_;
  std::vector<ObjectId> pair_;
};

// PutNext: two rooms of room_size (>= 4, required) joined by removing their wall, objs_per_room
// (1 to 9, required) distinct objects in each; put one of one room next to one of the other
// (which moves: a coin). max_steps 8 * room_size**2.
class PutNext final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions(
        {{"room_size", int64_t{-1}}, {"objs_per_room", int64_t{-1}}, {"start_carrying", false}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    const int room_size = RequiredIntOption(config, "room_size", 4, 1024);
    return {{room_size, 1, 2}, LevelMaxSteps(config, int64_t{8} * room_size * room_size)};
  }
  static int ObjsPerRoom(const Config& config) {
    const int objs = RequiredIntOption(config, "objs_per_room", 1, 9);
    RequireRoomFor("objs_per_room", LayoutOf(config).shape, 1, objs, /*agent=*/true);
    return objs;
  }
  static EnvSpec Spec(const Config& config) {
    ObjsPerRoom(config);
    return LevelSpec(config, LayoutOf(config));
  }

  PutNext(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)),
        objs_per_room_(ObjsPerRoom(config)),
        start_carrying_(config.Get<bool>("start_carrying")) {
    objs_l_.reserve(9);
  }

 protected:
  bool GenMission() override {
    PlaceAgentInRoom(0, 0);
    AddDistractors(0, 0, objs_per_room_);
    objs_l_.assign(added().begin(), added().end());
    AddDistractors(1, 0, objs_per_room_);
    RemoveWall(0, 0, 0);
    ObjectId a = objs_l_[static_cast<size_t>(RandIndex(objs_l_.size()))];
    ObjectId b = added()[static_cast<size_t>(RandIndex(added().size()))];
    if (RandBool()) std::swap(a, b);
    obj_a_ = a;
    const int move = instrs_.NewDesc(objects_[a].type, objects_[a].color);
    instrs_.SetRoot(instrs_.Action(InstrKind::kPutNext, move,
                                   instrs_.NewDesc(objects_[b].type, objects_[b].color)));
    return true;
  }

  // PutNext.reset: with start_carrying, the agent holds obj_a, taken off its first cell.
  void AfterReset() override {
    if (!start_carrying_) return;
    SaveStartImage();
    grid_.Set(objects_[obj_a_].init_pos, kNoObject);
    carrying_ = obj_a_;
  }

 private:
  const int objs_per_room_;
  const bool start_carrying_;
  std::vector<ObjectId> objs_l_;
  ObjectId obj_a_ = kNoObject;
};

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_PUTNEXT_H_
