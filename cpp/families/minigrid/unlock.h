// MiniGrid-Unlock-v0, MiniGrid-UnlockPickup-v0 and MiniGrid-BlockedUnlockPickup-v0: ports of
// minigrid 3.2.0's UnlockEnv, UnlockPickupEnv and BlockedUnlockPickupEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/unlock.py,
// unlockpickup.py, blockedunlockpickup.py). Two 6x6 rooms side by side, joined by a locked
// door whose key lies in the agent's room. Unlock: opening the door is rewarded.
// UnlockPickup: picking up the box behind it (the very object: identity) is. Blocked: a ball
// of a random colour stands in front of the door too.
//
// Options: none of their own; max_steps defaults to 8 * 6**2 (Unlock, UnlockPickup) and
// 16 * 6**2 (BlockedUnlockPickup). mission_id: 0, the box's colour (UnlockPickup, as
// EnvPool's), 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_UNLOCK_H_
#define ENVFLEET_FAMILIES_MINIGRID_UNLOCK_H_

#include "families/minigrid/room_grid.h"

namespace envfleet::minigrid {

enum class UnlockTask : uint8_t { kUnlock, kUnlockPickup, kBlockedUnlockPickup };

template <UnlockTask kTask>
class UnlockEnvOf final : public RoomGridEnv {
 public:
  static constexpr RoomShape kShape = {/*room_size=*/6, /*num_rows=*/1, /*num_cols=*/2};

  static Config DefaultConfig() { return CommonOptions({}, /*see_through_walls=*/false); }
  static int64_t MaxStepsOf(const Config& config) {
    return MaxSteps(config, (kTask == UnlockTask::kBlockedUnlockPickup ? 16 : 8) * 6 * 6);
  }
  static EnvSpec Spec(const Config& config) {
    return MiniGridSpec(config, RoomLayout(kShape, MaxStepsOf(config)));
  }

  UnlockEnvOf(const Config& config, uint64_t seed)
      : RoomGridEnv(config, seed, kShape, MaxStepsOf(config)) {}

  void Step(const void* action_ptr) override {
    const int64_t action = *static_cast<const int64_t*>(action_ptr);
    StepAgent(action);
    if constexpr (kTask == UnlockTask::kUnlock) {
      if (action == kToggle && objects_[door_].is_open) {
        reward_ = SuccessReward();
        terminated_ = true;
      }
    } else {
      if (action == kPickup && carrying_ != kNoObject && carrying_ == obj_) {
        reward_ = SuccessReward();
        terminated_ = true;
      }
    }
  }

 protected:
  void GenGrid() override {
    RoomGridEnv::GenGrid();
    if constexpr (kTask != UnlockTask::kUnlock) obj_ = AddObject(1, 0, Type::kBox).first;
    const auto [door, pos] = AddDoor(0, 0, 0, std::nullopt, true);
    door_ = door;
    if constexpr (kTask == UnlockTask::kBlockedUnlockPickup) {
      grid_.Set(pos.x - 1, pos.y, NewObject(Type::kBall, RandColor()));
    }
    AddObject(0, 0, Type::kKey, objects_[door_].color);
    PlaceAgentInRoom(0, 0);
    if constexpr (kTask == UnlockTask::kUnlock) {
      mission_.Set("open the door");
    } else {
      mission_.Clear();
      mission_ << "pick up the " << objects_[obj_].color << " " << objects_[obj_].type;
      if constexpr (kTask == UnlockTask::kUnlockPickup) {
        mission_id_ = static_cast<int>(objects_[obj_].color);
      }
    }
  }

 private:
  ObjectId door_ = kNoObject;
  ObjectId obj_ = kNoObject;
};

using UnlockEnv = UnlockEnvOf<UnlockTask::kUnlock>;
using UnlockPickupEnv = UnlockEnvOf<UnlockTask::kUnlockPickup>;
using BlockedUnlockPickupEnv = UnlockEnvOf<UnlockTask::kBlockedUnlockPickup>;

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_UNLOCK_H_
