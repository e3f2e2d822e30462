#include "envs/classic_control/cartpole.h"
#include "envs/registry.h"

namespace envfleet {

void RegisterClassicControl(EnvTypeMap& types) {
  types["CartPole"] = MakeEnvType<CartPoleEnv>();
}

}  // namespace envfleet
