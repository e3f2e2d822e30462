#include "envs/classic_control/acrobot.h"
#include "envs/classic_control/cartpole.h"
#include "envs/classic_control/continuous_mountain_car.h"
#include "envs/classic_control/mountain_car.h"
#include "envs/classic_control/pendulum.h"
#include "envs/registry.h"

namespace envfleet {

void RegisterClassicControl(EnvTypeMap& types) {
  types["CartPole"] = MakeEnvType<CartPoleEnv>();
  types["MountainCar"] = MakeEnvType<MountainCarEnv>();
  types["MountainCarContinuous"] = MakeEnvType<MountainCarContinuousEnv>();
  types["Pendulum"] = MakeEnvType<PendulumEnv>();
  types["Acrobot"] = MakeEnvType<AcrobotEnv>();
}

}  // namespace envfleet
