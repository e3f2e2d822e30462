#include "envs/example/counting.h"
#include "envs/registry.h"

namespace envfleet {

void RegisterExample(EnvTypeMap& types) { types["Counting"] = MakeEnvType<CountingEnv>(); }

}  // namespace envfleet
