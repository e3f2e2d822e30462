// envfleet._myosuite: the MyoSuite family (myosuite 3.0.0's musculoskeletal tasks on myo-sim's
// models), linked with libmujoco from the mujoco-core wheel. One env type per task class of
// the reference; ids and their options are in src/envfleet/families/myosuite.py.
#include <nanobind/nanobind.h>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "bind/ufunc_loops.h"
#include "common/mujoco/handlers.h"
#include "core/registry.h"
#include "families/myosuite/pose.h"
#include "families/myosuite/reach.h"

namespace envfleet {
namespace {

EnvTypeMap MyoSuiteTypes() {
  EnvTypeMap types;
  types["Pose"] = robotics::MakeRobotType<myosuite::PoseEnv>(myosuite::PoseEnv::DefaultConfig());
  types["Reach"] = robotics::MakeRobotType<myosuite::ReachEnv>(myosuite::ReachEnv::DefaultConfig());
  return types;
}

struct MyoSuiteModule {};  // tags this module's Pool type (cpp/bind/env_module.h)

}  // namespace
}  // namespace envfleet

NB_MODULE(_myosuite, m) {
  m.doc() = "envfleet's MyoSuite family: myosuite's musculoskeletal tasks on myo-sim's models.";
  envfleet::InstallMujocoHandlers();
  envfleet::bind::BindUfuncLoops();  // NumPy's float32 exp, for the muscles' sigmoid
  static envfleet::EnvTypeMap types = envfleet::MyoSuiteTypes();
  envfleet::bind::BindEnvModule<envfleet::MyoSuiteModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
}
