// envfleet._metaworld: the Meta-World family (metaworld 3.1.1's 50 v3 Sawyer tasks), linked
// with libmujoco from the mujoco-core wheel. The tasks' env types are built in five files
// (tasks_<group>.cc, declared in types.h), each of ten tasks, one header per task; ids and
// options are in src/envfleet/families/metaworld.py.
#include <nanobind/nanobind.h>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "common/mujoco/handlers.h"
#include "core/registry.h"
#include "families/metaworld/types.h"

namespace envfleet {
namespace {

EnvTypeMap MetaWorldTypes() {
  EnvTypeMap types;
  metaworld::AddTasksA(types);
  metaworld::AddTasksB(types);
  metaworld::AddTasksC(types);
  metaworld::AddTasksD(types);
  metaworld::AddTasksE(types);
  return types;
}

struct MetaWorldModule {};  // tags this module's Pool type (cpp/bind/env_module.h)

}  // namespace
}  // namespace envfleet

NB_MODULE(_metaworld, m) {
  m.doc() = "envfleet's Meta-World family: the 50 Sawyer manipulation tasks of Meta-World v3.";
  envfleet::InstallMujocoHandlers();
  static envfleet::EnvTypeMap types = envfleet::MetaWorldTypes();
  envfleet::bind::BindEnvModule<envfleet::MetaWorldModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
}
