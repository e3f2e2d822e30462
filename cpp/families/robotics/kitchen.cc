// The Franka Kitchen env type (kitchen.h): FrankaKitchen, the one task, its goal tasks an
// option.
#include "families/robotics/kitchen.h"

#include "families/robotics/types.h"

namespace envfleet {
namespace robotics {

void AddKitchenTypes(EnvTypeMap& types) {
  types["FrankaKitchen"] = MakeRobotType<KitchenEnv>(KitchenEnv::Defaults());
}

}  // namespace robotics
}  // namespace envfleet
