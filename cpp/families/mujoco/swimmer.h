// Swimmer-v4 / Swimmer-v5: Gymnasium 1.4.0's gymnasium/envs/mujoco/swimmer_v4.py and
// swimmer_v5.py. Forward progress of qpos[0:2] minus a control cost; never terminates. The
// versions differ only in options (v5 adds xml_file and frame_skip) and info names.
#ifndef ENVFLEET_FAMILIES_MUJOCO_SWIMMER_H_
#define ENVFLEET_FAMILIES_MUJOCO_SWIMMER_H_

#include <string>
#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

class SwimmerEnv : public MujocoEnv {
 public:
  static Config Defaults(int) {
    return {{"assets_dir", std::string()},
            {"xml_file", std::string("swimmer.xml")},
            {"frame_skip", int64_t{4}},
            {"forward_reward_weight", 1.0},
            {"ctrl_cost_weight", 1e-4},
            {"reset_noise_scale", 0.1},
            {"exclude_current_positions_from_observation", true}};
  }
  static std::vector<std::string> Fixed(int version) {
    if (version == 4) return {"xml_file", "frame_skip"};
    return {};
  }
  static std::vector<InfoKey> Info(int version) {
    if (version == 4) {
      return {{"reward_fwd"},           {"reward_ctrl"}, {"x_position"}, {"y_position"},
              {"distance_from_origin"}, {"x_velocity"},  {"y_velocity"}, {"forward_reward"}};
    }
    return {{"x_position"}, {"y_position"},     {"distance_from_origin"}, {"x_velocity"},
            {"y_velocity"}, {"reward_forward"}, {"reward_ctrl"}};
  }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    const bool exclude = config.Get<bool>("exclude_current_positions_from_observation");
    EnvSpec spec;
    spec.obs = {ObsSpec(model.nq + model.nv - (exclude ? 2 : 0))};
    spec.info = InfoSpecs(Info(version));
    spec.action = ActionSpec(model);
    return spec;
  }

  SwimmerEnv(const Config& config, uint64_t seed, int version)
      : MujocoEnv(config, seed, static_cast<int>(config.Get<int64_t>("frame_skip"))),
        forward_reward_weight_(config.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        exclude_(config.Get<bool>("exclude_current_positions_from_observation")),
        v4_(version == 4) {
    DeclareInfo(Info(version));
    reward_fwd_ = InfoSlot("reward_fwd");
    reward_forward_ = InfoSlot("reward_forward");
    forward_reward_ = InfoSlot("forward_reward");
    reward_ctrl_ = InfoSlot("reward_ctrl");
    x_position_ = InfoSlot("x_position");
    y_position_ = InfoSlot("y_position");
    distance_ = InfoSlot("distance_from_origin");
    x_velocity_ = InfoSlot("x_velocity");
    y_velocity_ = InfoSlot("y_velocity");
  }

  void Reset() override {
    ResetData();
    UniformQpos(-reset_noise_scale_, reset_noise_scale_);
    UniformQvel(-reset_noise_scale_, reset_noise_scale_);
    SetState();
    ClearInfo();
    if (!v4_) {
      Put(x_position_, data_->qpos[0]);
      Put(y_position_, data_->qpos[1]);
      Put(distance_, Norm(data_->qpos, 2));
    }
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    const double xy_before[2] = {data_->qpos[0], data_->qpos[1]};
    DoSimulation(action);
    const double xy_after[2] = {data_->qpos[0], data_->qpos[1]};
    const double x_velocity = (xy_after[0] - xy_before[0]) / dt_;
    const double y_velocity = (xy_after[1] - xy_before[1]) / dt_;
    const double forward_reward = forward_reward_weight_ * x_velocity;
    const float ctrl_cost = ActionCost(ctrl_cost_weight_, action);
    reward_ = forward_reward - ctrl_cost;
    terminated_ = false;
    Put(reward_fwd_, forward_reward);
    Put(reward_forward_, forward_reward);
    Put(forward_reward_, forward_reward);
    Put(reward_ctrl_, -ctrl_cost);
    Put(x_position_, xy_after[0]);
    Put(y_position_, xy_after[1]);
    Put(distance_, Norm(xy_after, 2));
    Put(x_velocity_, x_velocity);
    Put(y_velocity_, y_velocity);
  }

  void Write(const OutputSlot& out) const override {
    double* obs = out.Get<double>(0);
    for (int i = exclude_ ? 2 : 0; i < nq_; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < nv_; ++i) *obs++ = data_->qvel[i];
    WriteInfo(out);
  }

 private:
  double forward_reward_weight_, ctrl_cost_weight_, reset_noise_scale_;
  bool exclude_, v4_;
  int reward_fwd_, reward_forward_, forward_reward_, reward_ctrl_, x_position_, y_position_,
      distance_, x_velocity_, y_velocity_;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_SWIMMER_H_
