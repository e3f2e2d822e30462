// InvertedPendulum-v4/v5 and InvertedDoublePendulum-v4/v5: Gymnasium 1.4.0's
// gymnasium/envs/mujoco/inverted_pendulum_v*.py and inverted_double_pendulum_v*.py.
//
// InvertedPendulum observes qpos and qvel and terminates once the pole leans past 0.2 rad (or
// the state is not finite); v5 pays 1 only while not terminated and reports reward_survive,
// v4 always pays 1. InvertedDoublePendulum observes the cart position, sin and cos of the
// hinge angles, clipped velocities and clipped constraint forces (v5: the first one only),
// terminates when the tip's height y <= 1, and pays an alive bonus (v5: only while alive)
// minus distance and velocity penalties, with NumPy's scalar `** 2` (libm pow).
#ifndef ENVFLEET_FAMILIES_MUJOCO_INVERTED_PENDULUM_H_
#define ENVFLEET_FAMILIES_MUJOCO_INVERTED_PENDULUM_H_

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/numpy/math.h"
#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

class InvertedPendulumEnv : public MujocoEnv {
 public:
  static Config Defaults(int) {
    return TaskDefaults("inverted_pendulum.xml", 2, {{"reset_noise_scale", 0.01}});
  }
  static std::vector<std::string> Fixed(int version) {
    return version == 4 ? AllOptions(Defaults(version)) : std::vector<std::string>{};
  }
  static std::vector<InfoKey> Info(int version) {
    if (version == 4) return {};
    return {{"reward_survive"}};
  }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    RequireModel(model, "InvertedPendulum", 2, 0);  // qpos[1], the pole's angle
    return TaskSpec(model, model.nq + model.nv, Info(version));
  }

  InvertedPendulumEnv(const Config& config, uint64_t seed, int version)
      : MujocoEnv(config, seed, version, Info(version)),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")) {
    if (nq_ < 2) throw std::invalid_argument("InvertedPendulum needs a model with nq >= 2");
    // inverted_pendulum_v4/v5.py DEFAULT_CAMERA_CONFIG.
    default_camera_.trackbodyid = 0;
    default_camera_.distance = 2.04;
  }

  void Reset() override { ResetWithNoise(reset_noise_scale_, QvelNoise::kUniform); }

  void Step(const void* action_ptr) override {
    DoSimulation(static_cast<const float*>(action_ptr));
    // not np.isfinite(observation).all() or np.abs(observation[1]) > 0.2
    terminated_ = !StateFinite() || std::fabs(data_->qpos[1]) > 0.2;
    reward_ = v4_ ? 1.0 : static_cast<double>(!terminated_);
    Put(slot_.reward_survive, reward_);
  }

  void Write(const OutputSlot& out) const override {
    AppendState(out.Get<double>(0), 0);
    WriteInfo(out);
  }

 private:
  double reset_noise_scale_;
};

class InvertedDoublePendulumEnv : public MujocoEnv {
 public:
  static Config Defaults(int) {
    return TaskDefaults("inverted_double_pendulum.xml", 5,
                        {{"healthy_reward", 10.0}, {"reset_noise_scale", 0.1}});
  }
  static std::vector<std::string> Fixed(int version) {
    return version == 4 ? AllOptions(Defaults(version)) : std::vector<std::string>{};
  }
  static std::vector<InfoKey> Info(int version) {
    if (version == 4) return {};
    return {{"reward_survive"}, {"distance_penalty"}, {"velocity_penalty"}};
  }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    RequireModel(model, "InvertedDoublePendulum", 1, 3);  // qpos[0], qvel[1:3]
    // qpos[:1], sin and cos of qpos[1:], qvel, qfrc_constraint (v5: [:1])
    const int64_t size = 1 + 2 * (model.nq - 1) + model.nv + (version == 4 ? model.nv : 1);
    return TaskSpec(model, size, Info(version));
  }

  InvertedDoublePendulumEnv(const Config& config, uint64_t seed, int version)
      : MujocoEnv(config, seed, version, Info(version)),
        healthy_reward_(config.Get<double>("healthy_reward")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        distance_penalty_(InfoSlot("distance_penalty")),
        velocity_penalty_(InfoSlot("velocity_penalty")) {
    if (nv_ < 3 || model_->nsite < 1) {
      throw std::invalid_argument("InvertedDoublePendulum needs nv >= 3 and a site");
    }
    // inverted_double_pendulum_v4.py DEFAULT_CAMERA_CONFIG. v5 defines the same dict but its
    // constructor's default_camera_config defaults to None: its view is the initial one.
    if (v4_) {
      default_camera_.trackbodyid = 0;
      default_camera_.distance = 4.1225;
      default_camera_.lookat = {0.0, 0.0, 0.12250000000000005};
    }
  }

  // set_state(init_qpos + uniform(-s, s, nq), init_qvel + standard_normal(nv) * s)
  void Reset() override { ResetWithNoise(reset_noise_scale_, QvelNoise::kNormal); }

  void Step(const void* action_ptr) override {
    using numpy_math::NpPow;
    DoSimulation(static_cast<const float*>(action_ptr));
    const double x = data_->site_xpos[0], y = data_->site_xpos[2];
    terminated_ = y <= 1;
    const double dist_penalty = 0.01 * NpPow(x, 2) + NpPow(y - 2, 2);
    const double v1 = data_->qvel[1], v2 = data_->qvel[2];
    const double vel_penalty = 1e-3 * NpPow(v1, 2) + 5e-3 * NpPow(v2, 2);
    // v5: healthy_reward * int(not terminated); v4: alive_bonus = 10 always.
    const double alive_bonus =
        v4_ ? healthy_reward_ : healthy_reward_ * static_cast<double>(!terminated_);
    reward_ = (alive_bonus - dist_penalty) - vel_penalty;
    Put(slot_.reward_survive, alive_bonus);
    Put(distance_penalty_, -dist_penalty);
    Put(velocity_penalty_, -vel_penalty);
  }

  void Write(const OutputSlot& out) const override {
    double* obs = out.Get<double>(0);
    *obs++ = data_->qpos[0];
    for (int i = 1; i < nq_; ++i) *obs++ = std::sin(data_->qpos[i]);
    for (int i = 1; i < nq_; ++i) *obs++ = std::cos(data_->qpos[i]);
    for (int i = 0; i < nv_; ++i) *obs++ = NpClip(data_->qvel[i], -10.0, 10.0);
    const int constraints = v4_ ? nv_ : 1;
    for (int i = 0; i < constraints; ++i) *obs++ = NpClip(data_->qfrc_constraint[i], -10.0, 10.0);
    WriteInfo(out);
  }

 private:
  double healthy_reward_, reset_noise_scale_;
  int distance_penalty_, velocity_penalty_;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_INVERTED_PENDULUM_H_
