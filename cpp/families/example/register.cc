// The example family's env type (Counting), compiled into envfleet._core. Its task id:
// src/envfleet/families/example.py.
#include "core/registry.h"
#include "families/example/counting.h"

namespace envfleet::example {

void Register(EnvTypeMap& types) { types["Counting"] = MakeEnvType<CountingEnv>(); }

}  // namespace envfleet::example
