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
#include <string>
#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

class ReacherEnv : public MujocoEnv {
 public:
  static Config Defaults(int) {
    return {{"assets_dir", std::string()},
            {"xml_file", std::string("reacher.xml")},
            {"frame_skip", int64_t{2}},
            {"reward_dist_weight", 1.0},
            {"reward_control_weight", 1.0}};
  }
  static std::vector<std::string> Fixed(int version) {
    if (version == 4) {
      return {"xml_file", "frame_skip", "reward_dist_weight", "reward_control_weight"};
    }
    return {};
  }
  static std::vector<InfoKey> Info(int) { return {{"reward_dist"}, {"reward_ctrl"}}; }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    // cos, sin of qpos[:2]; qpos[2:]; qvel[:2]; fingertip - target (v5: [:2])
    const int64_t size = 4 + (model.nq - 2) + 2 + (version == 4 ? 3 : 2);
    EnvSpec spec;
    spec.obs = {ObsSpec(size)};
    spec.info = InfoSpecs(Info(version));
    spec.action = ActionSpec(model);
    return spec;
  }

  ReacherEnv(const Config& config, uint64_t seed, int version)
      : MujocoEnv(config, seed, static_cast<int>(config.Get<int64_t>("frame_skip"))),
        reward_dist_weight_(config.Get<double>("reward_dist_weight")),
        reward_control_weight_(config.Get<double>("reward_control_weight")),
        v4_(version == 4),
        fingertip_(BodyId(model_, "fingertip")),
        target_(BodyId(model_, "target")) {
    if (nq_ < 4 || nv_ < 2) throw std::invalid_argument("Reacher needs nq >= 4 and nv >= 2");
    DeclareInfo(Info(version));
    reward_dist_ = InfoSlot("reward_dist");
    reward_ctrl_ = InfoSlot("reward_ctrl");
  }

  void Reset() override {
    ResetData();
    // qpos = uniform(-0.1, 0.1, nq) + init_qpos
    UniformQpos(-0.1, 0.1);
    double goal[2];
    do {  // goal = uniform(-0.2, 0.2, size=2) until np.linalg.norm(goal) < 0.2
      goal[0] = rng().Uniform(-0.2, 0.2);
      goal[1] = rng().Uniform(-0.2, 0.2);
    } while (!(Norm(goal, 2) < 0.2));
    qpos_[nq_ - 2] = goal[0];
    qpos_[nq_ - 1] = goal[1];
    UniformQvel(-0.005, 0.005);
    qvel_[nv_ - 2] = 0;
    qvel_[nv_ - 1] = 0;
    SetState();
    ClearInfo();
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    if (v4_) Reward(action);
    DoSimulation(action);
    if (!v4_) Reward(action);
    terminated_ = false;
  }

  void Write(const OutputSlot& out) const override {
    double* obs = out.Get<double>(0);
    for (int i = 0; i < 2; ++i) *obs++ = std::cos(data_->qpos[i]);
    for (int i = 0; i < 2; ++i) *obs++ = std::sin(data_->qpos[i]);
    for (int i = 2; i < nq_; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < 2; ++i) *obs++ = data_->qvel[i];
    const double* tip = data_->xpos + 3 * fingertip_;
    const double* target = data_->xpos + 3 * target_;
    for (int i = 0; i < (v4_ ? 3 : 2); ++i) *obs++ = tip[i] - target[i];
    WriteInfo(out);
  }

 private:
  void Reward(const float* action) {
    const double* tip = data_->xpos + 3 * fingertip_;
    const double* target = data_->xpos + 3 * target_;
    const double vec[3] = {tip[0] - target[0], tip[1] - target[1], tip[2] - target[2]};
    // v5: -norm(vec) * w and -np.square(action).sum() * w (float32); v4: unweighted.
    const double reward_dist = -Norm(vec, 3) * reward_dist_weight_;
    const float reward_ctrl =
        -NumpySumOfSquares(action, nu_) * static_cast<float>(reward_control_weight_);
    reward_ = reward_dist + reward_ctrl;
    Put(reward_dist_, reward_dist);
    Put(reward_ctrl_, reward_ctrl);
  }

  double reward_dist_weight_, reward_control_weight_;
  bool v4_;
  int fingertip_, target_;
  int reward_dist_, reward_ctrl_;
};

class PusherEnv : public MujocoEnv {
 public:
  static Config Defaults(int version) {
    return {{"assets_dir", std::string()},
            {"xml_file", std::string(version == 4 ? "pusher.xml" : "pusher_v5.xml")},
            {"frame_skip", int64_t{5}},
            {"reward_near_weight", 0.5},
            {"reward_dist_weight", 1.0},
            {"reward_control_weight", 0.1}};
  }
  static std::vector<std::string> Fixed(int version) {
    if (version == 4) {
      return {"xml_file", "frame_skip", "reward_near_weight", "reward_dist_weight",
              "reward_control_weight"};
    }
    return {};
  }
  static std::vector<InfoKey> Info(int version) {
    if (version == 4) return {{"reward_dist"}, {"reward_ctrl"}};
    return {{"reward_dist"}, {"reward_ctrl"}, {"reward_near"}};
  }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    EnvSpec spec;
    spec.obs = {ObsSpec(7 + 7 + 3 + 3 + 3)};
    spec.info = InfoSpecs(Info(version));
    spec.action = ActionSpec(model);
    return spec;
  }

  PusherEnv(const Config& config, uint64_t seed, int version)
      : MujocoEnv(config, seed, static_cast<int>(config.Get<int64_t>("frame_skip"))),
        reward_near_weight_(config.Get<double>("reward_near_weight")),
        reward_dist_weight_(config.Get<double>("reward_dist_weight")),
        reward_control_weight_(config.Get<double>("reward_control_weight")),
        v4_(version == 4),
        tips_arm_(BodyId(model_, "tips_arm")),
        object_(BodyId(model_, "object")),
        goal_(BodyId(model_, "goal")) {
    if (nq_ < 7 || nv_ < 7) throw std::invalid_argument("Pusher needs nq >= 7 and nv >= 7");
    DeclareInfo(Info(version));
    reward_dist_ = InfoSlot("reward_dist");
    reward_ctrl_ = InfoSlot("reward_ctrl");
    reward_near_ = InfoSlot("reward_near");
  }

  void Reset() override {
    ResetData();
    // qpos = init_qpos (no noise on the arm)
    for (int i = 0; i < nq_; ++i) qpos_[i] = init_qpos_[i];
    double cylinder[2];
    do {  // until np.linalg.norm(cylinder_pos - goal_pos) > 0.17, goal_pos = [0, 0]
      cylinder[0] = rng().Uniform(-0.3, 0.0);
      cylinder[1] = rng().Uniform(-0.2, 0.2);
    } while (!(Norm(cylinder, 2) > 0.17));
    qpos_[nq_ - 4] = cylinder[0];
    qpos_[nq_ - 3] = cylinder[1];
    qpos_[nq_ - 2] = 0.0;
    qpos_[nq_ - 1] = 0.0;
    UniformQvel(-0.005, 0.005);
    for (int i = nv_ - 4; i < nv_; ++i) qvel_[i] = 0.0;
    SetState();
    ClearInfo();
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    if (v4_) Reward(action);
    DoSimulation(action);
    if (!v4_) Reward(action);
    terminated_ = false;
  }

  void Write(const OutputSlot& out) const override {
    double* obs = out.Get<double>(0);
    for (int i = 0; i < 7; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < 7; ++i) *obs++ = data_->qvel[i];
    for (int body : {tips_arm_, object_, goal_}) {
      for (int i = 0; i < 3; ++i) *obs++ = data_->xpos[3 * body + i];
    }
    WriteInfo(out);
  }

 private:
  void Reward(const float* action) {
    const double* object = data_->xpos + 3 * object_;
    const double* tips = data_->xpos + 3 * tips_arm_;
    const double* goal = data_->xpos + 3 * goal_;
    const double vec_1[3] = {object[0] - tips[0], object[1] - tips[1], object[2] - tips[2]};
    const double vec_2[3] = {object[0] - goal[0], object[1] - goal[1], object[2] - goal[2]};
    if (v4_) {
      const double reward_near = -Norm(vec_1, 3);
      const double reward_dist = -Norm(vec_2, 3);
      const float reward_ctrl = -NumpySumOfSquares(action, nu_);
      // reward_dist + 0.1 * reward_ctrl (float32) + 0.5 * reward_near
      reward_ = (reward_dist + static_cast<float>(0.1f * reward_ctrl)) + 0.5 * reward_near;
      Put(reward_dist_, reward_dist);
      Put(reward_ctrl_, reward_ctrl);
      return;
    }
    const double reward_near = -Norm(vec_1, 3) * reward_near_weight_;
    const double reward_dist = -Norm(vec_2, 3) * reward_dist_weight_;
    const float reward_ctrl =
        -NumpySumOfSquares(action, nu_) * static_cast<float>(reward_control_weight_);
    reward_ = (reward_dist + reward_ctrl) + reward_near;
    Put(reward_dist_, reward_dist);
    Put(reward_ctrl_, reward_ctrl);
    Put(reward_near_, reward_near);
  }

  double reward_near_weight_, reward_dist_weight_, reward_control_weight_;
  bool v4_;
  int tips_arm_, object_, goal_;
  int reward_dist_, reward_ctrl_, reward_near_;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_REACHER_PUSHER_H_
