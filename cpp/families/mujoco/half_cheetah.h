// HalfCheetah-v4 / HalfCheetah-v5: Gymnasium 1.4.0's gymnasium/envs/mujoco/half_cheetah_v4.py
// and half_cheetah_v5.py. The versions share the dynamics and reward; v5 takes xml_file and
// frame_skip as options, names the forward term reward_forward (v4: reward_run) and reports
// x_position at reset.
#ifndef ENVFLEET_FAMILIES_MUJOCO_HALF_CHEETAH_H_
#define ENVFLEET_FAMILIES_MUJOCO_HALF_CHEETAH_H_

#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

class HalfCheetahEnv : public LocomotionEnv {
 public:
  static Config Defaults(int) {
    return TaskDefaults("half_cheetah.xml", 5,
                        {{"forward_reward_weight", 1.0},
                         {"ctrl_cost_weight", 0.1},
                         {"reset_noise_scale", 0.1},
                         {"exclude_current_positions_from_observation", true}});
  }
  static std::vector<InfoKey> Info(int version) {
    if (version == 4) return {{"x_position"}, {"x_velocity"}, {"reward_run"}, {"reward_ctrl"}};
    return {{"x_position"}, {"x_velocity"}, {"reward_forward"}, {"reward_ctrl"}};
  }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    return TaskSpec(model, model.nq + model.nv - ExcludedQpos(config, 1), Info(version));
  }

  HalfCheetahEnv(const Config& config, uint64_t seed, int version)
      : LocomotionEnv(config, seed, version, Info(version), 1) {
    if (v4_) slot_.reward_forward = InfoSlot("reward_run");
  }

  void Reset() override {
    ResetWithNoise(reset_noise_scale_, QvelNoise::kNormal);
    if (!v4_) Put(slot_.x_position, data_->qpos[0]);
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    const Move move = SimulateTracking(action, data_->qpos);  // x: qpos[0]
    const double x_velocity = move.velocity[0];
    const double forward_reward = forward_reward_weight_ * x_velocity;
    const float ctrl_cost = ActionCost(ctrl_cost_weight_, action);
    reward_ = forward_reward - ctrl_cost;
    terminated_ = false;
    Put(slot_.x_position, move.position[0]);
    Put(slot_.x_velocity, x_velocity);
    Put(slot_.reward_forward, forward_reward);
    Put(slot_.reward_ctrl, -ctrl_cost);
  }

  void Write(const OutputSlot& out) const override {
    AppendState(out.Get<double>(0), first_qpos_);
    WriteInfo(out);
  }
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_HALF_CHEETAH_H_
