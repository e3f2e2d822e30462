// BabyAI's "unlock" levels: ports of minigrid 3.2.0's Unlock, UnlockLocal (UnlockLocalDist),
// KeyInBox, UnlockPickup (UnlockPickupDist), BlockedUnlockPickup and UnlockToUnlock
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/unlock.py).
//
// Quirks kept: Unlock compares the rooms it draws with `is` on NumPy integers, never true: the
// key's room is drawn once (it may be the locked room, behind its own door) and every room, the
// locked one too, gets three distractors. UnlockPickup's `if max is None` (the builtin, never
// None) leaves max_steps None: its limit comes from its instructions (2 * 6**2 a room, 72),
// where the level meant 8 * 6**2. KeyInBox's key is in a box: toggling the box puts it on the
// box's cell.
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_UNLOCK_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_UNLOCK_H_

#include <array>

#include "families/minigrid/babyai/roomgrid_level.h"

namespace envfleet::minigrid::babyai {

// Unlock: a locked door into a random room, its key anywhere, the agent outside; open it.
// room_size 8, num_rows 3, num_cols 3.
class Unlock final : public RoomGridLevel {
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
    RequireRoomFor("room_size", layout.shape, 1,
                   4);  // the locked room: three distractors and maybe the key
    return LevelSpec(config, layout);
  }

  Unlock(const Config& config, uint64_t seed) : RoomGridLevel(config, seed, LayoutOf(config)) {
    Spec(config);
  }

 protected:
  bool GenMission() override {
    const int id = RandInt(0, num_cols_);
    const int jd = RandInt(0, num_rows_);
    const ObjectId door = AddDoor(id, jd, std::nullopt, std::nullopt, true).first;
    const Room* locked_room = &RoomAt(id, jd);
    const Color door_color = objects_[door].color;
    const int ik = RandInt(0, num_cols_);  // `ik is id and jk is jd`: never, see the top
    const int jk = RandInt(0, num_rows_);
    AddObject(ik, jk, Type::kKey, door_color);
    if (RandBool()) {
      // the locked door is the only door of its colour
      std::array<Color, kNumColors - 1> colors{};
      size_t n = 0;
      for (const Color color : kColorNames) {
        if (color != door_color) colors[n++] = color;
      }
      ConnectAll(colors);
    } else {
      ConnectAll();
    }
    for (int i = 0; i < num_cols_; ++i) {
      for (int j = 0; j < num_rows_; ++j) AddDistractors(i, j, 3, /*all_unique=*/false);
    }
    do {
      PlaceAgentInRoom();
    } while (AgentRoom() == locked_room);
    if (!CheckObjsReachable()) return false;
    instrs_.SetRoot(instrs_.Action(InstrKind::kOpen, instrs_.NewDesc(Type::kDoor, door_color)));
    return true;
  }
};

// UnlockLocal (a locked door of room (1, 1) and its key in the room; distractors: three more
// objects) and KeyInBox (the key in a box). room_size 8, num_rows 3, num_cols 3.
enum class LocalUnlockTask : uint8_t { kKeyInRoom, kKeyInBox };

template <LocalUnlockTask kTask>
class UnlockLocalLevel final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    Config own = {{"room_size", int64_t{8}}, {"num_rows", int64_t{3}}, {"num_cols", int64_t{3}}};
    if constexpr (kTask == LocalUnlockTask::kKeyInRoom) own.Set("distractors", false);
    return LevelOptions(own);
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {8, 3, 3}), LevelMaxSteps(config)};
  }
  static EnvSpec Spec(const Config& config) {
    const LevelLayout layout = LayoutOf(config);
    RequireRooms(layout.shape, 2, 2);
    RequireRoomFor("room_size", layout.shape, 1, 4);
    return LevelSpec(config, layout);
  }

  UnlockLocalLevel(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)),
        distractors_(kTask == LocalUnlockTask::kKeyInRoom && config.Get<bool>("distractors")) {
    Spec(config);
  }

 protected:
  bool GenMission() override {
    const ObjectId door = AddDoor(1, 1, std::nullopt, std::nullopt, true).first;
    if constexpr (kTask == LocalUnlockTask::kKeyInRoom) {
      AddObject(1, 1, Type::kKey, objects_[door].color);
      if (distractors_) AddDistractors(1, 1, 3);
    } else {
      const ObjectId key = NewObject(Type::kKey, objects_[door].color);
      const ObjectId box = NewObject(Type::kBox, RandColor());
      objects_[box].contains = key;
      PlaceInRoom(1, 1, box);
    }
    PlaceAgentInRoom(1, 1);
    instrs_.SetRoot(instrs_.Action(InstrKind::kOpen, instrs_.NewDesc(Type::kDoor, std::nullopt)));
    return true;
  }

 private:
  const bool distractors_;
};

using UnlockLocal = UnlockLocalLevel<LocalUnlockTask::kKeyInRoom>;
using KeyInBox = UnlockLocalLevel<LocalUnlockTask::kKeyInBox>;

// UnlockPickup (a box behind a locked door, its key with the agent; distractors: four more
// objects anywhere; max_steps per episode, see the top) and BlockedUnlockPickup (a ball before
// the door; max_steps 16 * 6**2): two rooms of 6.
template <bool kBlocked>
class UnlockPickupLevel final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    Config own;
    if constexpr (!kBlocked) own.Set("distractors", false);
    return LevelOptions(own);
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {{6, 1, 2}, kBlocked ? LevelMaxSteps(config, 16 * 6 * 6) : LevelMaxSteps(config)};
  }
  static EnvSpec Spec(const Config& config) { return LevelSpec(config, LayoutOf(config)); }

  UnlockPickupLevel(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)),
        distractors_(!kBlocked && config.Get<bool>("distractors")) {}

 protected:
  bool GenMission() override {
    const ObjectId obj = AddObject(1, 0, Type::kBox).first;
    const auto [door, pos] = AddDoor(0, 0, 0, std::nullopt, true);
    if constexpr (kBlocked) grid_.Set(pos.x - 1, pos.y, NewObject(Type::kBall, RandColor()));
    AddObject(0, 0, Type::kKey, objects_[door].color);
    if (distractors_) AddDistractors(std::nullopt, std::nullopt, 4);
    PlaceAgentInRoom(0, 0);
    const std::optional<Color> color =
        kBlocked ? std::nullopt : std::optional<Color>(objects_[obj].color);
    instrs_.SetRoot(instrs_.Action(InstrKind::kPickup, instrs_.NewDesc(Type::kBox, color)));
    return true;
  }

 private:
  const bool distractors_;
};

using UnlockPickup = UnlockPickupLevel<false>;
using BlockedUnlockPickup = UnlockPickupLevel<true>;

// UnlockToUnlock: three rooms of 6; the ball on the left behind a locked door whose key is on
// the right, behind another locked door whose key is in the middle, with the agent. max_steps
// 30 * 6**2.
class UnlockToUnlock final : public RoomGridLevel {
 public:
  static Config DefaultConfig() { return LevelOptions({}); }
  static LevelLayout LayoutOf(const Config& config) {
    return {{6, 1, 3}, LevelMaxSteps(config, 30 * 6 * 6)};
  }
  static EnvSpec Spec(const Config& config) { return LevelSpec(config, LayoutOf(config)); }

  UnlockToUnlock(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)) {}

 protected:
  bool GenMission() override {
    const auto colors = RandSubset(kColorNames, 2);
    AddDoor(0, 0, 0, colors[0], true);
    AddObject(2, 0, Type::kKey, colors[0]);
    AddDoor(1, 0, 0, colors[1], true);
    AddObject(1, 0, Type::kKey, colors[1]);
    AddObject(0, 0, Type::kBall);
    PlaceAgentInRoom(1, 0);
    instrs_.SetRoot(instrs_.Action(InstrKind::kPickup, instrs_.NewDesc(Type::kBall, std::nullopt)));
    return true;
  }
};

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_UNLOCK_H_
