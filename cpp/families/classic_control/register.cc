// Classic control's env types, compiled into envfleet._core. Task ids, time limits and reward
// thresholds: src/envfleet/families/classic_control.py.
#include "core/registry.h"
#include "families/classic_control/acrobot.h"
#include "families/classic_control/cartpole.h"
#include "families/classic_control/continuous_mountain_car.h"
#include "families/classic_control/mountain_car.h"
#include "families/classic_control/pendulum.h"

namespace envfleet::classic_control {

void Register(EnvTypeMap& types) {
  types["CartPole"] = MakeEnvType<CartPoleEnv>();
  types["MountainCar"] = MakeEnvType<MountainCarEnv>();
  types["MountainCarContinuous"] = MakeEnvType<MountainCarContinuousEnv>();
  types["Pendulum"] = MakeEnvType<PendulumEnv>();
  types["Acrobot"] = MakeEnvType<AcrobotEnv>();
}

}  // namespace envfleet::classic_control
