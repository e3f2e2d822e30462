// HalfCheetah-v4/v5 and Swimmer-v4/v5: Gymnasium 1.4.0's gymnasium/envs/mujoco/half_cheetah_v*.py
// and swimmer_v*.py. Both are paid their forward progress along x minus a control cost and
// never terminate; they differ in their defaults, the reset noise of qvel (HalfCheetah:
// normal, Swimmer: uniform), how much of the position the observation leaves out (x; x and y)
// and the info they report (Swimmer: the y coordinate too). v5 takes xml_file and frame_skip
// as options and reports the position at reset; v4 names the forward term reward_run
// (HalfCheetah) or reward_fwd and forward_reward (Swimmer).
#ifndef ENVFLEET_FAMILIES_MUJOCO_HALF_CHEETAH_SWIMMER_H_
#define ENVFLEET_FAMILIES_MUJOCO_HALF_CHEETAH_SWIMMER_H_

#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

template <bool kSwimmer>
class ForwardProgressEnv : public LocomotionEnv {
 public:
  static Config Defaults(int) {
    return TaskDefaults(kSwimmer ? "swimmer.xml" : "half_cheetah.xml", kSwimmer ? 4 : 5,
                        {{"forward_reward_weight", 1.0},
                         {"ctrl_cost_weight", kSwimmer ? 1e-4 : 0.1},
                         {"reset_noise_scale", 0.1},
                         {"exclude_current_positions_from_observation", true}});
  }
  static std::vector<InfoKey> Info(int version) {
    if (!kSwimmer) {
      if (version == 4) return {{"x_position"}, {"x_velocity"}, {"reward_run"}, {"reward_ctrl"}};
      return {{"x_position"}, {"x_velocity"}, {"reward_forward"}, {"reward_ctrl"}};
    }
    if (version == 4) {
      return {{"reward_fwd"},           {"reward_ctrl"}, {"x_position"}, {"y_position"},
              {"distance_from_origin"}, {"x_velocity"},  {"y_velocity"}, {"forward_reward"}};
    }
    return {{"x_position"}, {"y_position"},     {"distance_from_origin"}, {"x_velocity"},
            {"y_velocity"}, {"reward_forward"}, {"reward_ctrl"}};
  }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    RequireModel(model, kSwimmer ? "Swimmer" : "HalfCheetah", kPositionSize, 0);  // x (and y)
    return TaskSpec(model, model.nq + model.nv - ExcludedQpos(config, kPositionSize),
                    Info(version));
  }

  ForwardProgressEnv(const Config& config, uint64_t seed, int version)
      : LocomotionEnv(config, seed, version, Info(version), kPositionSize) {
    if (v4_) slot_.reward_forward = InfoSlot(kSwimmer ? "reward_fwd" : "reward_run");
    // half_cheetah_v4/v5.py DEFAULT_CAMERA_CONFIG; Swimmer has none (default_camera_config
    // None in both versions).
    if (!kSwimmer) default_camera_.distance = 4.0;
  }

  void Reset() override {
    ResetWithNoise(reset_noise_scale_, kSwimmer ? QvelNoise::kUniform : QvelNoise::kNormal);
    if (!v4_) PutPosition(data_->qpos);
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    const Move move = SimulateTracking(action, data_->qpos);  // x (and y): qpos[0] (and [1])
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

 private:
  // The position the reward tracks and the observation may leave out: x; Swimmer x and y.
  static constexpr int kPositionSize = kSwimmer ? 2 : 1;
};

using HalfCheetahEnv = ForwardProgressEnv<false>;
using SwimmerEnv = ForwardProgressEnv<true>;

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_HALF_CHEETAH_SWIMMER_H_
