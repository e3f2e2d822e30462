// The Shadow Dexterous Hand's env types: HandReach (hand_reach.h) and, per object, its
// manipulation task with and without touch sensors (hand_manipulate.h): HandManipulateBlock,
// HandManipulateEgg, HandManipulatePen and their *TouchSensors types, each with its
// object's constants as the defaults of its options. The ids' variants (Rotate*, Full, Dense,
// _BooleanTouchSensors, ...) are options of these types: src/envfleet/families/robotics/hand.py.
#include <string>
#include <utility>

#include "families/robotics/hand_manipulate.h"
#include "families/robotics/hand_reach.h"
#include "families/robotics/types.h"

namespace envfleet {
namespace robotics {

void AddHandTypes(EnvTypeMap& types) {
  types["HandReach"] = MakeRobotType<HandReachEnv>(HandReachEnv::Defaults());
  const std::pair<const char*, const HandObject*> objects[] = {
      {"Block", &kHandBlock}, {"Egg", &kHandEgg}, {"Pen", &kHandPen}};
  for (const auto& [name, object] : objects) {
    const std::string type = std::string("HandManipulate") + name;
    types[type] = MakeRobotType<HandManipulateEnv>(HandManipulateEnv::Defaults(*object, false));
    types[type + "TouchSensors"] =
        MakeRobotType<HandManipulateEnv>(HandManipulateEnv::Defaults(*object, true));
  }
}

}  // namespace robotics
}  // namespace envfleet
