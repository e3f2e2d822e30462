// The BabyAI levels' env types (level_types.h). Every level class derives from RoomGridLevel,
// whose Reset, Step and Write are final, so all of them share the pool's loops compiled once
// for RoomGridLevel (Pool::Kernels::Of<RoomGridLevel>) rather than a set per class.
#include "families/minigrid/babyai/level_types.h"

#include <memory>
#include <type_traits>

#include "core/pool.h"
// level headers (one line each):
#include "families/minigrid/babyai/goto.h"
#include "families/minigrid/babyai/levelgen.h"
#include "families/minigrid/babyai/open.h"
#include "families/minigrid/babyai/other.h"
#include "families/minigrid/babyai/pickup.h"
#include "families/minigrid/babyai/putnext.h"
#include "families/minigrid/babyai/unlock.h"

namespace envfleet::minigrid::babyai {
namespace {

template <typename Level>
EnvType LevelType() {
  static_assert(std::is_base_of_v<RoomGridLevel, Level>);
  EnvType type = MakeCheckedType(
      Level::DefaultConfig(), [](const Config& config) { return Level::Spec(config); },
      [](const Config& config, uint64_t seed) -> std::unique_ptr<Env> {
        return std::make_unique<Level>(config, seed);
      });
  type.kernels = Pool::Kernels::Of<RoomGridLevel>();
  return type;
}

}  // namespace

void AddLevelTypes(EnvTypeMap& types) {
  // level types (one line each):
  types["BabyAIGoToRedBallGrey"] = LevelType<GoToRedBallGrey>();
  types["BabyAIGoToRedBall"] = LevelType<GoToRedBall>();
  types["BabyAIGoToObj"] = LevelType<GoToObj>();
  types["BabyAIGoToLocal"] = LevelType<GoToLocal>();
  types["BabyAIGoTo"] = LevelType<GoTo>();
  types["BabyAIGoToImpUnlock"] = LevelType<GoToImpUnlock>();
  types["BabyAIGoToRedBlueBall"] = LevelType<GoToRedBlueBall>();
  types["BabyAIGoToDoor"] = LevelType<GoToDoor>();
  types["BabyAIGoToObjDoor"] = LevelType<GoToObjDoor>();
  types["BabyAIOpen"] = LevelType<Open>();
  types["BabyAIOpenRedDoor"] = LevelType<OpenRedDoor>();
  types["BabyAIOpenDoor"] = LevelType<OpenDoor>();
  types["BabyAIOpenTwoDoors"] = LevelType<OpenTwoDoors>();
  types["BabyAIOpenDoorsOrder"] = LevelType<OpenDoorsOrder>();
  types["BabyAIPickup"] = LevelType<Pickup>();
  types["BabyAIUnblockPickup"] = LevelType<UnblockPickup>();
  types["BabyAIPickupDist"] = LevelType<PickupDist>();
  types["BabyAIPickupAbove"] = LevelType<PickupAbove>();
  types["BabyAIPutNextLocal"] = LevelType<PutNextLocal>();
  types["BabyAIPutNext"] = LevelType<PutNext>();
  types["BabyAIUnlock"] = LevelType<Unlock>();
  types["BabyAIUnlockLocal"] = LevelType<UnlockLocal>();
  types["BabyAIKeyInBox"] = LevelType<KeyInBox>();
  types["BabyAIUnlockPickup"] = LevelType<UnlockPickup>();
  types["BabyAIBlockedUnlockPickup"] = LevelType<BlockedUnlockPickup>();
  types["BabyAIUnlockToUnlock"] = LevelType<UnlockToUnlock>();
  types["BabyAIActionObjDoor"] = LevelType<ActionObjDoor>();
  types["BabyAIFindObj"] = LevelType<FindObj>();
  types["BabyAIKeyCorridor"] = LevelType<KeyCorridor>();
  types["BabyAIOneRoom"] = LevelType<OneRoom>();
  types["BabyAIMoveTwoAcross"] = LevelType<MoveTwoAcross>();
  types["BabyAILevelGen"] = LevelType<LevelGen>();
}

}  // namespace envfleet::minigrid::babyai
