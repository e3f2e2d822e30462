// myosuite 3.0.0's PoseEnvV0 (myosuite/envs/myo/tasks/basic/arm/pose.py, with
// terms/base_reward.py's pose_reward and terms/base_obs.py's pose_error_obs): drive the
// joints to a target pose. The ids myo{,Sarc,Fati}{Finger,Elbow}Pose*-v0 (EnvPool's names).
//
//   options:  target_jnt_names / target_jnt_low / target_jnt_high (the reference's
//             target_jnt_range, in its order), viz_site_targets (tip sites; each has a
//             "<tip>_target" site moved to where the tip is at the target pose), target_type
//             ("generate": drawn in the range at every reset, a range of one value drawn
//             too; "fixed": the one value of each joint's range, nothing drawn), reset_type
//             ("init" or "random": every joint drawn in its range), pose_thd;
//             weight_bodyname / weight_range (a body whose mass is drawn in the range at every
//             reset, carried_weight.h; "": none);
//   reset:    the carried weight drawn and the model refreshed, the target drawn
//             ("generate"), the target sites placed by a forward pass at the target pose
//             (then the state restored), then the random start pose if asked, mj_forward;
//   obs:      qpos, qvel * dt, pose_err = target - qpos[:n], act (when the model has
//             activations);
//   reward:   pose = -|err|, bonus = [d < thd] + [d < 1.5 thd], penalty = -[d > 2 pi],
//             act_reg = -|act| / na, weighted by weighted_reward_keys (default pose 1,
//             bonus 4, act_reg 1, penalty 50); solved d < thd; done d > 2 pi.
#ifndef ENVFLEET_FAMILIES_MYOSUITE_POSE_H_
#define ENVFLEET_FAMILIES_MYOSUITE_POSE_H_

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "families/myosuite/carried_weight.h"
#include "families/myosuite/myo_env.h"

namespace envfleet {
namespace myosuite {

class PoseEnv : public MyoEnv {
 public:
  static Config DefaultConfig() {
    Config config;
    AddMyoDefaults(config, "");
    config.Set("target_jnt_names", std::vector<std::string>{});
    config.Set("target_jnt_low", std::vector<double>{});
    config.Set("target_jnt_high", std::vector<double>{});
    config.Set("viz_site_targets", std::vector<std::string>{});
    config.Set("target_type", std::string("generate"));
    config.Set("reset_type", std::string("init"));
    config.Set("pose_thd", 0.35);
    config.Set("weight_bodyname", std::string());
    config.Set("weight_range", std::vector<double>{});
    return config;
  }

  static EnvSpec Spec(const Config& config) {
    const ModelPtr model = LoadMyoModel(config);
    const int n_target = CheckTarget(config, model.get());
    const mjModel* m = model.get();
    return MyoSpec(config, m, m->nq + m->nv + n_target + m->na, PoseTerms());
  }

  PoseEnv(const Config& config, uint64_t seed)
      : MyoEnv(config, seed, LoadMyoModel(config), PoseTerms(),
               {{"pose", 1.0}, {"bonus", 4.0}, {"act_reg", 1.0}, {"penalty", 50}}),
        pose_thd_(config.Get<double>("pose_thd")),
        random_reset_(ReadRandomReset(config)),
        draw_target_(ReadTargetType(config)) {
    CheckTarget(config, model_);
    low_ = config.Get<std::vector<double>>("target_jnt_low");
    high_ = config.Get<std::vector<double>>("target_jnt_high");
    target_.assign(low_.size(), 0.0);
    // target_jnt_value = mean(range) until the first reset.
    for (size_t i = 0; i < low_.size(); ++i) target_[i] = (low_[i] + high_[i]) / 2.0;
    for (const std::string& tip : config.Get<std::vector<std::string>>("viz_site_targets")) {
      tips_.push_back(robotics::SiteId(model_, tip));
      targets_.push_back(robotics::SiteId(model_, tip + "_target"));
    }
    saved_qpos_.resize(model_->nq);
    saved_qvel_.resize(model_->nv);
    const std::string& weight_body = config.Get<std::string>("weight_bodyname");
    const auto& weight_range = config.Get<std::vector<double>>("weight_range");
    if (!weight_body.empty()) {
      if (weight_range.size() != 2) {
        throw std::invalid_argument("weight_range must be [low, high], got " +
                                    std::to_string(weight_range.size()) + " values");
      }
      weight_.emplace(robotics::ModelPath(config), model_, weight_body, weight_range[0],
                      weight_range[1]);
      OwnWholeModel();
    }
    ComputeInitialState();
  }

  void Reset() override {
    if (weight_) weight_->Apply(own_model(), rng().Uniform(weight_->low(), weight_->high()));
    ResetState();
    UpdateTarget();
    if (random_reset_) DrawRandomPose();
    mj_forward(model_, data_);
    Evaluate();
  }

  void Write(const OutputSlot& out) const override {
    WriteActAndInfo(WritePoseError(WriteJointState(out), target_), out);
  }

 private:
  // "generate" (true: a target drawn at every reset) or "fixed" (false: the range's one value).
  static bool ReadTargetType(const Config& config) {
    const std::string& type = config.Get<std::string>("target_type");
    if (type != "generate" && type != "fixed") {
      throw std::invalid_argument("target_type must be 'generate' or 'fixed', got '" + type + "'");
    }
    if (type == "fixed" && config.Get<std::vector<double>>("target_jnt_low") !=
                               config.Get<std::vector<double>>("target_jnt_high")) {
      throw std::invalid_argument(
          "target_type 'fixed' takes one target: target_jnt_low must equal target_jnt_high");
    }
    return type == "generate";
  }

  // The target joints must be the model's first joints, one value per joint position, as the
  // reference's qpos[:] = target and qpos[:n] slices assume (a single value is broadcast).
  static int CheckTarget(const Config& config, const mjModel* m) {
    const int n = static_cast<int>(ReadTargetJoints(config, m).size());
    if (n > m->nq || (n != m->nq && n != 1)) {
      throw std::invalid_argument("the pose target has " + std::to_string(n) +
                                  " values; the model has " + std::to_string(m->nq) +
                                  " joint positions (the target sets them all)");
    }
    if (m->njnt != m->nq) {
      throw std::invalid_argument("PoseEnv needs a model of hinge and slide joints only");
    }
    return n;
  }

  // _update_target(restore_sim=True): a new target, the target sites moved to where the tips
  // are at it, the state restored.
  void UpdateTarget() {
    for (int i = 0; i < model_->nq; ++i) saved_qpos_[i] = data_->qpos[i];
    for (int i = 0; i < model_->nv; ++i) saved_qvel_[i] = data_->qvel[i];
    if (draw_target_) {
      for (size_t i = 0; i < target_.size(); ++i) target_[i] = rng().Uniform(low_[i], high_[i]);
    }
    for (int i = 0; i < model_->nq; ++i) data_->qpos[i] = target_[target_.size() == 1 ? 0 : i];
    mj_forward(model_, data_);
    double* site_pos = own_model()->site_pos;
    for (size_t k = 0; k < tips_.size(); ++k) {
      for (int a = 0; a < 3; ++a)
        site_pos[3 * targets_[k] + a] = data_->site_xpos[3 * tips_[k] + a];
    }
    for (int i = 0; i < model_->nq; ++i) data_->qpos[i] = saved_qpos_[i];
    for (int i = 0; i < model_->nv; ++i) data_->qvel[i] = saved_qvel_[i];
    mj_forward(model_, data_);
  }

  // get_reward_dict: the terms, solved and done of the current state.
  void Evaluate() override { SetPoseTerms(PoseDistance(target_), pose_thd_, 2 * M_PI); }

  double pose_thd_;
  bool random_reset_;
  bool draw_target_;
  std::vector<double> low_, high_, target_;
  std::vector<int> tips_, targets_;
  std::vector<double> saved_qpos_, saved_qvel_;
  std::optional<CarriedWeight> weight_;
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_POSE_H_
