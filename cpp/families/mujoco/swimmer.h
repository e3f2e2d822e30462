// Swimmer-v4 / Swimmer-v5: Gymnasium 1.4.0's gymnasium/envs/mujoco/swimmer_v4.py and
// swimmer_v5.py. Forward progress of qpos[0:2] minus a control cost; never terminates. The
// versions differ only in options (v5 adds xml_file and frame_skip) and info names.
#ifndef ENVFLEET_FAMILIES_MUJOCO_SWIMMER_H_
#define ENVFLEET_FAMILIES_MUJOCO_SWIMMER_H_

#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

class SwimmerEnv : public LocomotionEnv {
 public:
  static Config Defaults(int) {
    return TaskDefaults("swimmer.xml", 4,
                        {{"forward_reward_weight", 1.0},
                         {"ctrl_cost_weight", 1e-4},
                         {"reset_noise_scale", 0.1},
                         {"exclude_current_positions_from_observation", true}});
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
    return TaskSpec(model, model.nq + model.nv - ExcludedQpos(config, 2), Info(version));
  }

  SwimmerEnv(const Config& config, uint64_t seed, int version)
      : LocomotionEnv(config, seed, version, Info(version), 2) {
    if (v4_) slot_.reward_forward = InfoSlot("reward_fwd");
  }

  void Reset() override {
    ResetWithNoise(reset_noise_scale_, QvelNoise::kUniform);
    if (!v4_) PutPosition(data_->qpos);
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    const Move move = SimulateTracking(action, data_->qpos);
    const double forward_reward = forward_reward_weight_ * move.velocity[0];
    const float ctrl_cost = ActionCost(ctrl_cost_weight_, action);
    reward_ = forward_reward - ctrl_cost;
    terminated_ = false;
    Put(slot_.reward_forward, forward_reward);
    Put(slot_.forward_reward, forward_reward);
    Put(slot_.reward_ctrl, -ctrl_cost);
    PutPosition(move.position);
    PutVelocity(move);
  }

  void Write(const OutputSlot& out) const override {
    AppendState(out.Get<double>(0), first_qpos_);
    WriteInfo(out);
  }
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_SWIMMER_H_
