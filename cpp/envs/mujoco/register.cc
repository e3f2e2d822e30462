// The MuJoCo family (Gymnasium 1.4.0's MuJoCo v4 and v5 tasks): one env type per robot and
// version, e.g. "AntV5". Task ids and their defaults are in src/envfleet/envs/mujoco.py.
#include <memory>
#include <string>

#include "envs/mujoco/ant.h"
#include "envs/mujoco/half_cheetah.h"
#include "envs/mujoco/hopper_walker2d.h"
#include "envs/mujoco/humanoid.h"
#include "envs/mujoco/inverted_pendulum.h"
#include "envs/mujoco/mujoco_env.h"
#include "envs/mujoco/reacher_pusher.h"
#include "envs/mujoco/swimmer.h"
#include "envs/registry.h"

namespace envfleet {
namespace {

// A version of a robot: its published options (those the version's Gymnasium constructor
// takes) and the fixed values of the others, filled in before the env sees its config.
template <typename E>
EnvType MakeMujocoType(int version) {
  return {mujoco::PublishedDefaults<E>(version),
          [version](const Config& config) {
            return E::Spec(mujoco::FullConfig<E>(config, version), version);
          },
          [version](const Config& config, uint64_t seed) -> std::unique_ptr<Env> {
            return std::make_unique<E>(mujoco::FullConfig<E>(config, version), seed, version);
          }};
}

template <typename E>
void RegisterVersions(EnvTypeMap& types, const std::string& name) {
  types[name + "V4"] = MakeMujocoType<E>(4);
  types[name + "V5"] = MakeMujocoType<E>(5);
}

}  // namespace

void RegisterMujoco(EnvTypeMap& types) {
  mujoco::InstallMujocoHandlers();
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
}

}  // namespace envfleet
