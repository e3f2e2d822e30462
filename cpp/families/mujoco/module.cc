// envfleet._mujoco: the MuJoCo family (Gymnasium 1.4.0's MuJoCo v4 and v5 tasks, and gym's v3 of
// Ant and Humanoid), linked with libmujoco from the mujoco-core wheel. One env type per robot and
// version, e.g. "AntV5"; task ids and time limits are in src/envfleet/families/mujoco.py.
#include <nanobind/nanobind.h>

#include <memory>
#include <string>
#include <utility>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "common/mujoco/pixels.h"
#include "common/mujoco/state_stack.h"
#include "core/registry.h"
#include "families/mujoco/ant.h"
#include "families/mujoco/half_cheetah_swimmer.h"
#include "families/mujoco/hopper_walker2d.h"
#include "families/mujoco/humanoid.h"
#include "families/mujoco/inverted_pendulum.h"
#include "families/mujoco/mujoco_env.h"
#include "families/mujoco/reacher_pusher.h"

namespace envfleet {
namespace {

// A version of a robot: its published options (those the version's Gymnasium constructor
// takes, and envfleet's own) and the fixed values of the others, filled in before the env sees
// its config. from_pixels=True wraps the task in PixelEnv (pixels.h); otherwise frame_stack > 1
// wraps it in StateStackEnv (state_stack.h).
template <typename E>
EnvType MakeMujocoType(int version) {
  return MakeCheckedType(
      mujoco::PublishedDefaults<E>(version),
      [version](const Config& config) {
        const Config full = mujoco::FullConfig<E>(config, version);
        EnvSpec spec = E::Spec(full, version);
        if (full.Get<bool>("from_pixels")) return mujoco::PixelSpec(std::move(spec), full);
        const int frame_stack = mujoco::ReadFrameStack(full);
        if (frame_stack > 1) spec = mujoco::StateStackSpec(std::move(spec), frame_stack);
        return spec;
      },
      [version](const Config& config, uint64_t seed) -> std::unique_ptr<Env> {
        const Config full = mujoco::FullConfig<E>(config, version);
        if (full.Get<bool>("from_pixels")) {
          return std::make_unique<mujoco::PixelEnv<E>>(full, seed, version);
        }
        const int frame_stack = mujoco::ReadFrameStack(full);
        if (frame_stack > 1) {
          return std::make_unique<mujoco::StateStackEnv<E>>(E::Spec(full, version), frame_stack,
                                                            full, seed, version);
        }
        return std::make_unique<E>(full, seed, version);
      });
}

template <typename E>
void RegisterVersions(EnvTypeMap& types, const std::string& name) {
  types[name + "V4"] = MakeMujocoType<E>(4);
  types[name + "V5"] = MakeMujocoType<E>(5);
}

EnvTypeMap MujocoTypes() {
  EnvTypeMap types;
  // gym 0.23.1's v3 of the two robots whose v3 Gymnasium's v4 changed (EnvPool's ids); its
  // other v2/v3 ids are v4's under other names (src/envfleet/families/mujoco.py).
  types["AntV3"] = MakeMujocoType<mujoco::AntEnv>(3);
  types["HumanoidV3"] = MakeMujocoType<mujoco::HumanoidEnv>(3);
  RegisterVersions<mujoco::AntEnv>(types, "Ant");
  RegisterVersions<mujoco::HalfCheetahEnv>(types, "HalfCheetah");
  RegisterVersions<mujoco::HopperEnv>(types, "Hopper");
  RegisterVersions<mujoco::Walker2dEnv>(types, "Walker2d");
  RegisterVersions<mujoco::SwimmerEnv>(types, "Swimmer");
  RegisterVersions<mujoco::HumanoidEnv>(types, "Humanoid");
  RegisterVersions<mujoco::HumanoidStandupEnv>(types, "HumanoidStandup");
  RegisterVersions<mujoco::InvertedPendulumEnv>(types, "InvertedPendulum");
  RegisterVersions<mujoco::InvertedDoublePendulumEnv>(types, "InvertedDoublePendulum");
  RegisterVersions<mujoco::ReacherEnv>(types, "Reacher");
  RegisterVersions<mujoco::PusherEnv>(types, "Pusher");
  return types;
}

struct MujocoModule {};  // tags this module's Pool type (cpp/bind/env_module.h)

}  // namespace
}  // namespace envfleet

NB_MODULE(_mujoco, m) {
  m.doc() = "envfleet's MuJoCo family: Gymnasium's MuJoCo tasks stepped by the pool.";
  envfleet::InstallMujocoHandlers();
  static envfleet::EnvTypeMap types = envfleet::MujocoTypes();
  envfleet::bind::BindEnvModule<envfleet::MujocoModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
}
