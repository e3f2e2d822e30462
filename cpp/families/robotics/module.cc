// envfleet._robotics: the Gymnasium-Robotics family (gymnasium-robotics 1.4.2's Fetch, Shadow
// Hand, Adroit, PointMaze and Franka Kitchen envs), linked with libmujoco from the mujoco-core
// wheel. Each robot's env types are built in its own file (<robot>.cc, declared in types.h);
// task ids, time limits and per-id options are in src/envfleet/families/robotics/.
#include <nanobind/nanobind.h>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "common/mujoco/handlers.h"
#include "core/registry.h"
#include "families/robotics/types.h"

namespace envfleet {
namespace {

EnvTypeMap RoboticsTypes() {
  EnvTypeMap types;
  robotics::AddFetchTypes(types);
  robotics::AddHandTypes(types);
  robotics::AddMazeTypes(types);
  robotics::AddAdroitTypes(types);
  robotics::AddKitchenTypes(types);
  return types;
}

struct RoboticsModule {};  // tags this module's Pool type (cpp/bind/env_module.h)

}  // namespace
}  // namespace envfleet

NB_MODULE(_robotics, m) {
  m.doc() =
      "envfleet's Gymnasium-Robotics family: Fetch, Shadow Hand, Adroit, PointMaze and "
      "Franka Kitchen stepped by the pool.";
  envfleet::InstallMujocoHandlers();
  static envfleet::EnvTypeMap types = envfleet::RoboticsTypes();
  envfleet::bind::BindEnvModule<envfleet::RoboticsModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
}
