// envfleet._dm_control: the DeepMind Control Suite family (dm_control 1.0.50's suite tasks),
// linked with libmujoco from the mujoco-core wheel. One env type per domain, e.g. "Cartpole",
// whose `task_name` option picks the task; task ids and time limits are in
// src/envfleet/families/dm_control.py.
#include <nanobind/nanobind.h>

#include "bind/env_module.h"
#include "core/registry.h"
#include "families/dm_control/acrobot.h"
#include "families/dm_control/ball_in_cup.h"
#include "families/dm_control/cartpole.h"
#include "families/dm_control/cheetah.h"
#include "families/dm_control/dm_control_env.h"
#include "families/dm_control/dog.h"
#include "families/dm_control/finger.h"
#include "families/dm_control/fish.h"
#include "families/dm_control/hopper.h"
#include "families/dm_control/humanoid.h"
#include "families/dm_control/lqr.h"
#include "families/dm_control/manipulator.h"
#include "families/dm_control/pendulum.h"
#include "families/dm_control/point_mass.h"
#include "families/dm_control/quadruped.h"
#include "families/dm_control/reacher.h"
#include "families/dm_control/stacker.h"
#include "families/dm_control/swimmer.h"
#include "families/dm_control/walker.h"

namespace envfleet {
namespace {

EnvTypeMap DmControlTypes() {
  using namespace dm_control;
  EnvTypeMap types;
  types["Acrobot"] = MakeEnvType<AcrobotEnv>();
  types["BallInCup"] = MakeEnvType<BallInCupEnv>();
  types["Cartpole"] = MakeEnvType<CartpoleEnv>();
  types["Cheetah"] = MakeEnvType<CheetahEnv>();
  types["Dog"] = MakeEnvType<DogEnv>();
  types["Finger"] = MakeEnvType<FingerEnv>();
  types["Fish"] = MakeEnvType<FishEnv>();
  types["Hopper"] = MakeEnvType<HopperEnv>();
  types["Humanoid"] = MakeEnvType<HumanoidEnv>();
  types["HumanoidCMU"] = MakeEnvType<HumanoidCmuEnv>();
  types["Lqr"] = MakeEnvType<LqrEnv>();
  types["Manipulator"] = MakeEnvType<ManipulatorEnv>();
  types["Pendulum"] = MakeEnvType<PendulumEnv>();
  types["PointMass"] = MakeEnvType<PointMassEnv>();
  types["Quadruped"] = MakeEnvType<QuadrupedEnv>();
  types["Reacher"] = MakeEnvType<ReacherEnv>();
  types["Stacker"] = MakeEnvType<StackerEnv>();
  types["Swimmer"] = MakeEnvType<SwimmerEnv>();
  types["Walker"] = MakeEnvType<WalkerEnv>();
  return types;
}

struct DmControlModule {};  // tags this module's Pool type (cpp/bind/env_module.h)

}  // namespace
}  // namespace envfleet

NB_MODULE(_dm_control, m) {
  m.doc() = "envfleet's dm_control family: DeepMind Control Suite tasks stepped by the pool.";
  envfleet::InstallMujocoHandlers();
  static envfleet::EnvTypeMap types = envfleet::DmControlTypes();
  envfleet::bind::BindEnvModule<envfleet::DmControlModule>(m, types);
}
