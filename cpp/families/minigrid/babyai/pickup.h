// BabyAI's "pick up" levels: ports of minigrid 3.2.0's Pickup, UnblockPickup, PickupDist
// (PickupDistDebug) and PickupAbove
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/pickup.py).
// PickupLoc is a LevelGen (levelgen.h).
//
// PickupDist names its object by type, colour or both; by colour alone the description has no
// type and matches walls too (a grey one: "a grey object"), as minigrid's does.
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_PICKUP_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_PICKUP_H_

#include "families/minigrid/babyai/roomgrid_level.h"

namespace envfleet::minigrid::babyai {

// Pickup (18 distractors, all reachable) and UnblockPickup (20, some of them not reachable
// without moving another): room_size 8, num_rows 3, num_cols 3.
template <bool kUnblock>
class PickupLevel final : public RoomGridLevel {
 public:
  static constexpr int kNumDists = kUnblock ? 20 : 18;

  static Config DefaultConfig() {
    return LevelOptions(
        {{"room_size", int64_t{8}}, {"num_rows", int64_t{3}}, {"num_cols", int64_t{3}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {8, 3, 3}), LevelMaxSteps(config)};
  }
  static EnvSpec Spec(const Config& config) {
    const LevelLayout layout = LayoutOf(config);
    RequireRoomFor("room_size", layout.shape, layout.shape.num_rows * layout.shape.num_cols,
                   kNumDists,
                   /*agent=*/true);
    return LevelSpec(config, layout);
  }

  PickupLevel(const Config& config, uint64_t seed) : RoomGridLevel(config, seed, LayoutOf(config)) {
    Spec(config);
  }

 protected:
  bool GenMission() override {
    PlaceAgentInRoom();
    ConnectAll();
    AddDistractors(std::nullopt, std::nullopt, kNumDists, /*all_unique=*/false);
    // Pickup: every object reachable; UnblockPickup: at least one that is not.
    if (CheckObjsReachable() == kUnblock) return false;
    const WorldObject& obj = objects_[added()[static_cast<size_t>(RandIndex(added().size()))]];
    instrs_.SetRoot(instrs_.Action(InstrKind::kPickup, instrs_.NewDesc(obj.type, obj.color)));
    return true;
  }
};

using Pickup = PickupLevel<false>;
using UnblockPickup = PickupLevel<true>;

// PickupDist: five distinct objects in one room of 7; debug makes the instruction strict.
class PickupDist final : public RoomGridLevel {
 public:
  static Config DefaultConfig() { return LevelOptions({{"debug", false}}); }
  static LevelLayout LayoutOf(const Config& config) { return {{7, 1, 1}, LevelMaxSteps(config)}; }
  static EnvSpec Spec(const Config& config) { return LevelSpec(config, LayoutOf(config)); }

  PickupDist(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)), debug_(config.Get<bool>("debug")) {}

 protected:
  bool GenMission() override {
    AddDistractors(std::nullopt, std::nullopt, 5);
    PlaceAgentInRoom(0, 0);
    const WorldObject& obj = objects_[added()[static_cast<size_t>(RandIndex(added().size()))]];
    std::optional<Type> type = obj.type;
    std::optional<Color> color = obj.color;
    switch (RandIndex(3)) {  // ["type", "color", "both"]
      case 0:
        color = std::nullopt;
        break;
      case 1:
        type = std::nullopt;
        break;
      default:
        break;
    }
    instrs_.SetRoot(instrs_.Action(InstrKind::kPickup, instrs_.NewDesc(type, color), -1, debug_));
    return true;
  }

 private:
  const bool debug_;
};

// PickupAbove: an object in room (1, 0), a door to it from the agent's room (1, 1).
// room_size 6, num_rows 3, num_cols 3; max_steps 8 * 6**2.
class PickupAbove final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions({{"num_rows", int64_t{3}}, {"num_cols", int64_t{3}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {6, 3, 3}), LevelMaxSteps(config, 8 * 6 * 6)};
  }
  static EnvSpec Spec(const Config& config) {
    const LevelLayout layout = LayoutOf(config);
    RequireRooms(layout.shape, 2, 2);
    return LevelSpec(config, layout);
  }

  PickupAbove(const Config& config, uint64_t seed) : RoomGridLevel(config, seed, LayoutOf(config)) {
    Spec(config);
  }

 protected:
  bool GenMission() override {
    const ObjectId obj = AddObject(1, 0).first;
    AddDoor(1, 1, 3, std::nullopt, false);
    PlaceAgentInRoom(1, 1);
    ConnectAll();
    instrs_.SetRoot(instrs_.Action(InstrKind::kPickup,
                                   instrs_.NewDesc(objects_[obj].type, objects_[obj].color)));
    return true;
  }
};

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_PICKUP_H_
