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
#include <string>
#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

template <bool kHopper>
class PlanarWalkerEnv : public MujocoEnv {
 public:
  static Config Defaults(int version) {
    Config config = {
        {"assets_dir", std::string()},  {"frame_skip", int64_t{4}},
        {"forward_reward_weight", 1.0}, {"ctrl_cost_weight", 1e-3},
        {"healthy_reward", 1.0},        {"terminate_when_unhealthy", true},
        {"reset_noise_scale", 5e-3},    {"exclude_current_positions_from_observation", true}};
    if (kHopper) {
      config.Set("xml_file", std::string("hopper.xml"));
      config.Set("healthy_state_range", std::vector<double>{-100.0, 100.0});
      config.Set("healthy_z_range",
                 std::vector<double>{0.7, std::numeric_limits<double>::infinity()});
      config.Set("healthy_angle_range", std::vector<double>{-0.2, 0.2});
    } else {
      config.Set("xml_file", std::string(version == 4 ? "walker2d.xml" : "walker2d_v5.xml"));
      config.Set("healthy_z_range", std::vector<double>{0.8, 2.0});
      config.Set("healthy_angle_range", std::vector<double>{-1.0, 1.0});
    }
    return config;
  }
  static std::vector<std::string> Fixed(int version) {
    if (version == 4) return {"xml_file", "frame_skip"};
    return {};
  }
  static std::vector<InfoKey> Info(int version) {
    if (version == 4) return {{"x_position"}, {"x_velocity"}};
    return {{"x_position"},  {"z_distance_from_origin"}, {"x_velocity"}, {"reward_forward"},
            {"reward_ctrl"}, {"reward_survive"}};
  }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    const bool exclude = config.Get<bool>("exclude_current_positions_from_observation");
    EnvSpec spec;
    spec.obs = {ObsSpec(model.nq + model.nv - (exclude ? 1 : 0))};
    spec.info = InfoSpecs(Info(version));
    spec.action = ActionSpec(model);
    return spec;
  }

  PlanarWalkerEnv(const Config& config, uint64_t seed, int version)
      : MujocoEnv(config, seed, static_cast<int>(config.Get<int64_t>("frame_skip"))),
        forward_reward_weight_(config.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        healthy_reward_(config.Get<double>("healthy_reward")),
        terminate_when_unhealthy_(config.Get<bool>("terminate_when_unhealthy")),
        healthy_z_range_(RangeOption(config, "healthy_z_range")),
        healthy_angle_range_(RangeOption(config, "healthy_angle_range")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        exclude_(config.Get<bool>("exclude_current_positions_from_observation")),
        v4_(version == 4) {
    if (kHopper) healthy_state_range_ = RangeOption(config, "healthy_state_range");
    DeclareInfo(Info(version));
    x_position_ = InfoSlot("x_position");
    z_distance_ = InfoSlot("z_distance_from_origin");
    x_velocity_ = InfoSlot("x_velocity");
    reward_forward_ = InfoSlot("reward_forward");
    reward_ctrl_ = InfoSlot("reward_ctrl");
    reward_survive_ = InfoSlot("reward_survive");
  }

  void Reset() override {
    ResetData();
    UniformQpos(-reset_noise_scale_, reset_noise_scale_);
    UniformQvel(-reset_noise_scale_, reset_noise_scale_);
    SetState();
    ClearInfo();
    if (!v4_) {
      Put(x_position_, data_->qpos[0]);
      Put(z_distance_, data_->qpos[1] - init_qpos_[1]);
    }
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    const double x_before = data_->qpos[0];
    DoSimulation(action);
    const double x_after = data_->qpos[0];
    const double x_velocity = (x_after - x_before) / dt_;
    const bool healthy = IsHealthy();
    const double forward_reward = forward_reward_weight_ * x_velocity;
    // v5: is_healthy * healthy_reward; v4: float(is_healthy or terminate) * healthy_reward.
    const double healthy_reward =
        static_cast<double>(healthy || (v4_ && terminate_when_unhealthy_)) * healthy_reward_;
    const float ctrl_cost = ActionCost(ctrl_cost_weight_, action);
    reward_ = (forward_reward + healthy_reward) - ctrl_cost;
    terminated_ = !healthy && terminate_when_unhealthy_;
    Put(x_position_, x_after);
    Put(z_distance_, data_->qpos[1] - init_qpos_[1]);
    Put(x_velocity_, x_velocity);
    Put(reward_forward_, forward_reward);
    Put(reward_ctrl_, -ctrl_cost);
    Put(reward_survive_, healthy_reward);
  }

  void Write(const OutputSlot& out) const override {
    double* obs = out.Get<double>(0);
    for (int i = exclude_ ? 1 : 0; i < nq_; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < nv_; ++i) *obs++ = Clip(data_->qvel[i], -10.0, 10.0);
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

  double forward_reward_weight_, ctrl_cost_weight_, healthy_reward_;
  bool terminate_when_unhealthy_;
  std::pair<double, double> healthy_z_range_, healthy_angle_range_, healthy_state_range_;
  double reset_noise_scale_;
  bool exclude_, v4_;
  int x_position_, z_distance_, x_velocity_, reward_forward_, reward_ctrl_, reward_survive_;
};

using HopperEnv = PlanarWalkerEnv<true>;
using Walker2dEnv = PlanarWalkerEnv<false>;

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_HOPPER_WALKER2D_H_
