// envfleet._minigrid: the MiniGrid family, ports of minigrid 3.2.0's grid worlds (pure C++,
// no engine). One env type per minigrid env class; task ids and per-id options are in
// src/envfleet/families/minigrid.py, the time limits are each env's own max_steps.
#include <nanobind/nanobind.h>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "core/registry.h"
// env headers (one line each):
#include "families/minigrid/empty.h"

namespace envfleet {
namespace {

// One line per env type, each a header in cpp/families/minigrid/ included above.
EnvTypeMap MiniGridTypes() {
  using namespace minigrid;  // NOLINT(build/namespaces): the env classes, one per line
  EnvTypeMap types;
  // env types (one line each):
  types["MiniGridEmpty"] = MakeEnvType<EmptyEnv>();
  return types;
}

struct MiniGridModule {};  // tags this module's Pool type (cpp/bind/env_module.h)

}  // namespace
}  // namespace envfleet

NB_MODULE(_minigrid, m) {
  m.doc() = "envfleet's MiniGrid family: minigrid's grid worlds stepped by the pool.";
  static envfleet::EnvTypeMap types = envfleet::MiniGridTypes();
  envfleet::bind::BindEnvModule<envfleet::MiniGridModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
}
