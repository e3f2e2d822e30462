// HalfCheetah-v4 / HalfCheetah-v5: Gymnasium 1.4.0's gymnasium/envs/mujoco/half_cheetah_v4.py
// and half_cheetah_v5.py. The versions share the dynamics and reward; v5 takes xml_file and
// frame_skip as options, names the forward term reward_forward (v4: reward_run) and reports
// x_position at reset.
#ifndef ENVFLEET_FAMILIES_MUJOCO_HALF_CHEETAH_H_
#define ENVFLEET_FAMILIES_MUJOCO_HALF_CHEETAH_H_

#include <string>
#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

class HalfCheetahEnv : public MujocoEnv {
 public:
  static Config Defaults(int) {
    return {{"assets_dir", std::string()},
            {"xml_file", std::string("half_cheetah.xml")},
            {"frame_skip", int64_t{5}},
            {"forward_reward_weight", 1.0},
            {"ctrl_cost_weight", 0.1},
            {"reset_noise_scale", 0.1},
            {"exclude_current_positions_from_observation", true}};
  }
  static std::vector<std::string> Fixed(int version) {
    if (version == 4) return {"xml_file", "frame_skip"};
    return {};
  }
  static std::vector<InfoKey> Info(int version) {
    if (version == 4) return {{"x_position"}, {"x_velocity"}, {"reward_run"}, {"reward_ctrl"}};
    return {{"x_position"}, {"x_velocity"}, {"reward_forward"}, {"reward_ctrl"}};
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

  HalfCheetahEnv(const Config& config, uint64_t seed, int version)
      : MujocoEnv(config, seed, static_cast<int>(config.Get<int64_t>("frame_skip"))),
        forward_reward_weight_(config.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        exclude_(config.Get<bool>("exclude_current_positions_from_observation")),
        v4_(version == 4) {
    DeclareInfo(Info(version));
    x_position_ = InfoSlot("x_position");
    x_velocity_ = InfoSlot("x_velocity");
    reward_forward_ = InfoSlot(v4_ ? "reward_run" : "reward_forward");
    reward_ctrl_ = InfoSlot("reward_ctrl");
  }

  void Reset() override {
    ResetData();
    UniformQpos(-reset_noise_scale_, reset_noise_scale_);
    NormalQvel(reset_noise_scale_);
    SetState();
    ClearInfo();
    if (!v4_) Put(x_position_, data_->qpos[0]);
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    const double x_before = data_->qpos[0];
    DoSimulation(action);
    const double x_after = data_->qpos[0];
    const double x_velocity = (x_after - x_before) / dt_;
    const double forward_reward = forward_reward_weight_ * x_velocity;
    const float ctrl_cost = ActionCost(ctrl_cost_weight_, action);
    reward_ = forward_reward - ctrl_cost;
    terminated_ = false;
    Put(x_position_, x_after);
    Put(x_velocity_, x_velocity);
    Put(reward_forward_, forward_reward);
    Put(reward_ctrl_, -ctrl_cost);
  }

  void Write(const OutputSlot& out) const override {
    double* obs = out.Get<double>(0);
    for (int i = exclude_ ? 1 : 0; i < nq_; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < nv_; ++i) *obs++ = data_->qvel[i];
    WriteInfo(out);
  }

 private:
  double forward_reward_weight_, ctrl_cost_weight_, reset_noise_scale_;
  bool exclude_, v4_;
  int x_position_, x_velocity_, reward_forward_, reward_ctrl_;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_HALF_CHEETAH_H_
