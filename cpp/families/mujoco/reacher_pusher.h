// Reacher-v4/v5 and Pusher-v4/v5: Gymnasium 1.4.0's gymnasium/envs/mujoco/reacher_v*.py and
// pusher_v*.py, the two arm tasks. Both draw a goal (Reacher) or object position (Pusher) by
// rejection sampling at reset, pay negative distances minus a float32 control cost, and never
// terminate. v4 computes the reward from the state BEFORE the step's simulation, v5 after it;
// v5 takes weights, xml_file and frame_skip as options. Reacher-v5 observes the fingertip to
// target vector without its z (v4 with it); Pusher-v5 uses pusher_v5.xml (v4: pusher.xml).
//
// Gymnasium refuses Pusher-v4 under mujoco >= 3 (Gymnasium issue #950: pusher.xml simulates
// differently there than under the mujoco 2 its results were published with). We still offer
// it, as EnvPool does: it is exactly what Gymnasium's v4 code computes on libmujoco 4.0.0.
#ifndef ENVFLEET_FAMILIES_MUJOCO_REACHER_PUSHER_H_
#define ENVFLEET_FAMILIES_MUJOCO_REACHER_PUSHER_H_

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

// The arm tasks' shared step and reset: v4 computes the reward from the state before the
// step's simulation, v5 after it; neither terminates.
class ArmEnv : public MujocoEnv {
 public:
  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    if (v4_) Reward(action);
    DoSimulation(action);
    if (!v4_) Reward(action);
    terminated_ = false;
  }

 protected:
  using MujocoEnv::MujocoEnv;

  // Sets reward_ and the info entries.
  virtual void Reward(const float* action) = 0;

  // The end of reset_model(), once qpos_ is built: qvel = init_qvel + uniform(-0.005, 0.005,
  // nv) with its last `still` values zeroed (the goal's or object's), then set_state.
  void ResetArmState(int still) {
    UniformQvel(-0.005, 0.005);
    for (int i = nv_ - still; i < nv_; ++i) qvel_[i] = 0.0;
    SetState();
    ClearInfo();
  }

  // np.linalg.norm(get_body_com(a) - get_body_com(b)).
  double BodyDistance(int a, int b) const {
    const double* pa = data_->xpos + 3 * a;
    const double* pb = data_->xpos + 3 * b;
    const double vec[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
    return NpNorm(vec, 3);
  }

  // -np.square(action).sum() * weight on the float32 action (v4: weight 1).
  float ControlReward(double weight, const float* action) const {
    return -NpSumOfSquares(action, nu_) * static_cast<float>(weight);
  }
};

class ReacherEnv : public ArmEnv {
 public:
  static Config Defaults(int) {
    return TaskDefaults("reacher.xml", 2,
                        {{"reward_dist_weight", 1.0}, {"reward_control_weight", 1.0}});
  }
  static std::vector<std::string> Fixed(int version) {
    return version == 4 ? AllOptions(Defaults(version)) : std::vector<std::string>{};
  }
  static std::vector<InfoKey> Info(int) { return {{"reward_dist"}, {"reward_ctrl"}}; }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    RequireModel(model, "Reacher", 2, 2);  // the arm's two joints
    // cos, sin of qpos[:2]; qpos[2:]; qvel[:2]; fingertip - target (v5: [:2])
    return TaskSpec(model, 4 + (model.nq - 2) + 2 + (version == 4 ? 3 : 2), Info(version));
  }

  ReacherEnv(const Config& config, uint64_t seed, int version)
      : ArmEnv(config, seed, version, Info(version)),
        reward_dist_weight_(config.Get<double>("reward_dist_weight")),
        reward_control_weight_(config.Get<double>("reward_control_weight")),
        fingertip_(BodyId(model_, "fingertip")),
        target_(BodyId(model_, "target")),
        reward_dist_(InfoSlot("reward_dist")) {
    if (nq_ < 4 || nv_ < 2) throw std::invalid_argument("Reacher needs nq >= 4 and nv >= 2");
    default_camera_.trackbodyid = 0;  // reacher_v4/v5.py DEFAULT_CAMERA_CONFIG
  }

  void Reset() override {
    ResetData();
    // qpos = uniform(-0.1, 0.1, nq) + init_qpos
    UniformQpos(-0.1, 0.1);
    double goal[2];
    do {  // goal = uniform(-0.2, 0.2, size=2) until np.linalg.norm(goal) < 0.2
      goal[0] = rng().Uniform(-0.2, 0.2);
      goal[1] = rng().Uniform(-0.2, 0.2);
    } while (!(NpNorm(goal, 2) < 0.2));
    qpos_[nq_ - 2] = goal[0];
    qpos_[nq_ - 1] = goal[1];
    ResetArmState(2);
  }

  void Write(const OutputSlot& out) const override {
    double* obs = out.Get<double>(0);
    for (int i = 0; i < 2; ++i) *obs++ = std::cos(data_->qpos[i]);
    for (int i = 0; i < 2; ++i) *obs++ = std::sin(data_->qpos[i]);
    obs = Append(obs, data_->qpos + 2, nq_ - 2);
    obs = Append(obs, data_->qvel, 2);
    const double* tip = data_->xpos + 3 * fingertip_;
    const double* target = data_->xpos + 3 * target_;
    for (int i = 0; i < (v4_ ? 3 : 2); ++i) *obs++ = tip[i] - target[i];
    WriteInfo(out);
  }

 private:
  void Reward(const float* action) override {
    // v5: -norm(vec) * w and -np.square(action).sum() * w (float32); v4: unweighted.
    const double reward_dist = -BodyDistance(fingertip_, target_) * reward_dist_weight_;
    const float reward_ctrl = ControlReward(reward_control_weight_, action);
    reward_ = reward_dist + reward_ctrl;
    Put(reward_dist_, reward_dist);
    Put(slot_.reward_ctrl, reward_ctrl);
  }

  double reward_dist_weight_, reward_control_weight_;
  int fingertip_, target_;
  int reward_dist_;
};

class PusherEnv : public ArmEnv {
 public:
  static Config Defaults(int version) {
    return TaskDefaults(
        version == 4 ? "pusher.xml" : "pusher_v5.xml", 5,
        {{"reward_near_weight", 0.5}, {"reward_dist_weight", 1.0}, {"reward_control_weight", 0.1}});
  }
  static std::vector<std::string> Fixed(int version) {
    return version == 4 ? AllOptions(Defaults(version)) : std::vector<std::string>{};
  }
  static std::vector<InfoKey> Info(int version) {
    if (version == 4) return {{"reward_dist"}, {"reward_ctrl"}};
    return {{"reward_dist"}, {"reward_ctrl"}, {"reward_near"}};
  }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    RequireModel(model, "Pusher", 7, 7);  // qpos[:7], qvel[:7]
    return TaskSpec(model, 7 + 7 + 3 + 3 + 3, Info(version));
  }

  PusherEnv(const Config& config, uint64_t seed, int version)
      : ArmEnv(config, seed, version, Info(version)),
        reward_near_weight_(config.Get<double>("reward_near_weight")),
        reward_dist_weight_(config.Get<double>("reward_dist_weight")),
        reward_control_weight_(config.Get<double>("reward_control_weight")),
        tips_arm_(BodyId(model_, "tips_arm")),
        object_(BodyId(model_, "object")),
        goal_(BodyId(model_, "goal")),
        reward_dist_(InfoSlot("reward_dist")),
        reward_near_(InfoSlot("reward_near")) {
    if (nq_ < 7 || nv_ < 7) throw std::invalid_argument("Pusher needs nq >= 7 and nv >= 7");
    // pusher_v4/v5.py DEFAULT_CAMERA_CONFIG.
    default_camera_.trackbodyid = -1;
    default_camera_.distance = 4.0;
  }

  void Reset() override {
    ResetData();
    // qpos = init_qpos (no noise on the arm)
    for (int i = 0; i < nq_; ++i) qpos_[i] = init_qpos_[i];
    double cylinder[2];
    do {  // until np.linalg.norm(cylinder_pos - goal_pos) > 0.17, goal_pos = [0, 0]
      cylinder[0] = rng().Uniform(-0.3, 0.0);
      cylinder[1] = rng().Uniform(-0.2, 0.2);
    } while (!(NpNorm(cylinder, 2) > 0.17));
    qpos_[nq_ - 4] = cylinder[0];
    qpos_[nq_ - 3] = cylinder[1];
    qpos_[nq_ - 2] = 0.0;
    qpos_[nq_ - 1] = 0.0;
    ResetArmState(4);
  }

  void Write(const OutputSlot& out) const override {
    double* obs = out.Get<double>(0);
    obs = Append(obs, data_->qpos, 7);
    obs = Append(obs, data_->qvel, 7);
    for (int body : {tips_arm_, object_, goal_}) obs = Append(obs, data_->xpos + 3 * body, 3);
    WriteInfo(out);
  }

 private:
  void Reward(const float* action) override {
    const double near = BodyDistance(object_, tips_arm_);
    const double dist = BodyDistance(object_, goal_);
    if (v4_) {
      const double reward_near = -near;
      const double reward_dist = -dist;
      const float reward_ctrl = ControlReward(1.0, action);
      // reward_dist + 0.1 * reward_ctrl (float32) + 0.5 * reward_near
      reward_ = (reward_dist + static_cast<float>(0.1f * reward_ctrl)) + 0.5 * reward_near;
      Put(reward_dist_, reward_dist);
      Put(slot_.reward_ctrl, reward_ctrl);
      return;
    }
    const double reward_near = -near * reward_near_weight_;
    const double reward_dist = -dist * reward_dist_weight_;
    const float reward_ctrl = ControlReward(reward_control_weight_, action);
    reward_ = (reward_dist + reward_ctrl) + reward_near;
    Put(reward_dist_, reward_dist);
    Put(slot_.reward_ctrl, reward_ctrl);
    Put(reward_near_, reward_near);
  }

  double reward_near_weight_, reward_dist_weight_, reward_control_weight_;
  int tips_arm_, object_, goal_;
  int reward_dist_, reward_near_;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_REACHER_PUSHER_H_
