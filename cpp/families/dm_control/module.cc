// envfleet._dm_control: the DeepMind Control Suite family (dm_control 1.0.50's suite tasks),
// linked with libmujoco from the mujoco-core wheel. One env type per domain, e.g. "Cartpole",
// whose `task_name` option picks the task; task ids and time limits are in
// src/envfleet/families/dm_control.py.
#include <nanobind/nanobind.h>

#include <memory>
#include <utility>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "common/mujoco/pixels.h"
#include "common/mujoco/state_stack.h"
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

// A domain's env type; from_pixels=True wraps its tasks in PixelEnv (pixels.h), whose one
// observation "pixels" replaces the task's entries; otherwise frame_stack > 1 wraps them in
// StateStackEnv (state_stack.h), which stacks each entry.
template <typename E>
EnvType MakeDmControlType() {
  return MakeCheckedType(
      E::DefaultConfig(),
      [](const Config& config) {
        EnvSpec spec = E::Spec(config);
        if (config.Get<bool>("from_pixels")) return mujoco::PixelSpec(std::move(spec), config);
        const int frame_stack = mujoco::ReadFrameStack(config);
        if (frame_stack > 1) spec = mujoco::StateStackSpec(std::move(spec), frame_stack);
        return spec;
      },
      [](const Config& config, uint64_t seed) -> std::unique_ptr<Env> {
        if (config.Get<bool>("from_pixels")) {
          return std::make_unique<mujoco::PixelEnv<E>>(config, seed);
        }
        const int frame_stack = mujoco::ReadFrameStack(config);
        if (frame_stack > 1) {
          return std::make_unique<mujoco::StateStackEnv<E>>(E::Spec(config), frame_stack, config,
                                                            seed);
        }
        return std::make_unique<E>(config, seed);
      });
}

EnvTypeMap DmControlTypes() {
  using namespace dm_control;
  EnvTypeMap types;
  types["Acrobot"] = MakeDmControlType<AcrobotEnv>();
  types["BallInCup"] = MakeDmControlType<BallInCupEnv>();
  types["Cartpole"] = MakeDmControlType<CartpoleEnv>();
  types["Cheetah"] = MakeDmControlType<CheetahEnv>();
  types["Dog"] = MakeDmControlType<DogEnv>();
  types["Finger"] = MakeDmControlType<FingerEnv>();
  types["Fish"] = MakeDmControlType<FishEnv>();
  types["Hopper"] = MakeDmControlType<HopperEnv>();
  types["Humanoid"] = MakeDmControlType<HumanoidEnv>();
  types["HumanoidCMU"] = MakeDmControlType<HumanoidCmuEnv>();
  types["Lqr"] = MakeDmControlType<LqrEnv>();
  types["Manipulator"] = MakeDmControlType<ManipulatorEnv>();
  types["Pendulum"] = MakeDmControlType<PendulumEnv>();
  types["PointMass"] = MakeDmControlType<PointMassEnv>();
  types["Quadruped"] = MakeDmControlType<QuadrupedEnv>();
  types["Reacher"] = MakeDmControlType<ReacherEnv>();
  types["Stacker"] = MakeDmControlType<StackerEnv>();
  types["Swimmer"] = MakeDmControlType<SwimmerEnv>();
  types["Walker"] = MakeDmControlType<WalkerEnv>();
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
  envfleet::bind::RegisterErrorTextTranslator();
}
