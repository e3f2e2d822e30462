// The Adroit hand's env types, one per task (adroit_door.h, adroit_hammer.h, adroit_pen.h,
// adroit_relocate.h): the dense and sparse ids of each differ in reward_type only.
#include "families/robotics/adroit_door.h"
#include "families/robotics/adroit_hammer.h"
#include "families/robotics/adroit_pen.h"
#include "families/robotics/adroit_relocate.h"
#include "families/robotics/types.h"

namespace envfleet {
namespace robotics {

void AddAdroitTypes(EnvTypeMap& types) {
  types["AdroitHandDoor"] = MakeRobotType<AdroitDoorEnv>(AdroitDoorEnv::Defaults());
  types["AdroitHandHammer"] = MakeRobotType<AdroitHammerEnv>(AdroitHammerEnv::Defaults());
  types["AdroitHandPen"] = MakeRobotType<AdroitPenEnv>(AdroitPenEnv::Defaults());
  types["AdroitHandRelocate"] = MakeRobotType<AdroitRelocateEnv>(AdroitRelocateEnv::Defaults());
}

}  // namespace robotics
}  // namespace envfleet
