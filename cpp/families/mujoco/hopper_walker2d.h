// Hopper-v4/v5 and Walker2d-v4/v5: Gymnasium 1.4.0's gymnasium/envs/mujoco/hopper_v*.py and
// walker2d_v*.py. Both are planar walkers with the same reward (forward progress + a healthy
// bonus - a control cost), velocity clipping in the observation and uniform reset noise; they
// differ in the healthy check (Hopper also bounds every state entry but the first two) and in
// their defaults. v5 pays the healthy reward only while healthy, takes xml_file and
// frame_skip, and reports the reward terms and z_distance_from_origin; v4 reports only
// x_position and x_velocity, pays the healthy reward whenever terminate_when_unhealthy is set,
// and Walker2d-v4 uses walker2d.xml (v5: walker2d_v5.xml).
#ifndef ENVFLEET_FAMILIES_MUJOCO_HOPPER_WALKER2D_H_
#define ENVFLEET_FAMILIES_MUJOCO_HOPPER_WALKER2D_H_

#include <limits>
#include <utility>
#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

template <bool kHopper>
class PlanarWalkerEnv : public LocomotionEnv {
 public:
  static Config Defaults(int version) {
    Config config = TaskDefaults(kHopper        ? "hopper.xml"
                                 : version == 4 ? "walker2d.xml"
                                                : "walker2d_v5.xml",
                                 4,
                                 {{"forward_reward_weight", 1.0},
                                  {"ctrl_cost_weight", 1e-3},
                                  {"healthy_reward", 1.0},
                                  {"terminate_when_unhealthy", true},
                                  {"reset_noise_scale", 5e-3},
                                  {"exclude_current_positions_from_observation", true}});
    if (kHopper) {
      config.Set("healthy_state_range", std::vector<double>{-100.0, 100.0});
      config.Set("healthy_z_range",
                 std::vector<double>{0.7, std::numeric_limits<double>::infinity()});
      config.Set("healthy_angle_range", std::vector<double>{-0.2, 0.2});
    } else {
      config.Set("healthy_z_range", std::vector<double>{0.8, 2.0});
      config.Set("healthy_angle_range", std::vector<double>{-1.0, 1.0});
    }
    return config;
  }
  static std::vector<InfoKey> Info(int version) {
    if (version == 4) return {{"x_position"}, {"x_velocity"}};
    return {{"x_position"},  {"z_distance_from_origin"}, {"x_velocity"}, {"reward_forward"},
            {"reward_ctrl"}, {"reward_survive"}};
  }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    RequireModel(model, "Hopper and Walker2d", 3, 0);  // qpos[0:3]: x, z, angle
    return TaskSpec(model, model.nq + model.nv - ExcludedQpos(config, 1), Info(version));
  }

  PlanarWalkerEnv(const Config& config, uint64_t seed, int version)
      : LocomotionEnv(config, seed, version, Info(version), 1),
        healthy_angle_range_(RangeOption(config, "healthy_angle_range")) {
    if (kHopper) healthy_state_range_ = RangeOption(config, "healthy_state_range");
    // hopper_v4/v5.py and walker2d_v4/v5.py DEFAULT_CAMERA_CONFIG.
    default_camera_.trackbodyid = 2;
    default_camera_.distance = kHopper ? 3.0 : 4.0;
    default_camera_.lookat = {0.0, 0.0, 1.15};
    default_camera_.elevation = -20.0;
  }

  void Reset() override {
    ResetWithNoise(reset_noise_scale_, QvelNoise::kUniform);
    if (!v4_) {
      Put(slot_.x_position, data_->qpos[0]);
      Put(slot_.z_distance_from_origin, data_->qpos[1] - init_qpos_[1]);
    }
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    const Move move = SimulateTracking(action, data_->qpos);  // x: qpos[0]
    const double x_velocity = move.velocity[0];
    const bool healthy = IsHealthy();
    const double forward_reward = forward_reward_weight_ * x_velocity;
    const double healthy_reward = HealthyReward(healthy);
    const float ctrl_cost = ActionCost(ctrl_cost_weight_, action);
    reward_ = (forward_reward + healthy_reward) - ctrl_cost;
    terminated_ = Terminated(healthy);
    Put(slot_.x_position, move.position[0]);
    Put(slot_.z_distance_from_origin, data_->qpos[1] - init_qpos_[1]);
    Put(slot_.x_velocity, x_velocity);
    Put(slot_.reward_forward, forward_reward);
    Put(slot_.reward_ctrl, -ctrl_cost);
    Put(slot_.reward_survive, healthy_reward);
  }

  void Write(const OutputSlot& out) const override {
    double* obs = Append(out.Get<double>(0), data_->qpos + first_qpos_, nq_ - first_qpos_);
    for (int i = 0; i < nv_; ++i) *obs++ = NpClip(data_->qvel[i], -10.0, 10.0);
    WriteInfo(out);
  }

 private:
  bool IsHealthy() const {
    const double z = data_->qpos[1], angle = data_->qpos[2];
    const bool healthy_z = healthy_z_range_.first < z && z < healthy_z_range_.second;
    const bool healthy_angle =
        healthy_angle_range_.first < angle && angle < healthy_angle_range_.second;
    if (!kHopper) return healthy_z && healthy_angle;
    // np.all(min_state < state_vector()[2:] < max_state)
    bool healthy_state = true;
    const double low = healthy_state_range_.first, high = healthy_state_range_.second;
    for (int k = 2; k < nq_ + nv_; ++k) {
      const double x = k < nq_ ? data_->qpos[k] : data_->qvel[k - nq_];
      healthy_state = healthy_state && low < x && x < high;
    }
    return healthy_state && healthy_z && healthy_angle;
  }

  std::pair<double, double> healthy_angle_range_, healthy_state_range_;
};

using HopperEnv = PlanarWalkerEnv<true>;
using Walker2dEnv = PlanarWalkerEnv<false>;

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_HOPPER_WALKER2D_H_
