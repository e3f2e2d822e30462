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
    return MyoSpec(config, m, m->nq + m->nv + n_target + m->na, Terms());
  }

  PoseEnv(const Config& config, uint64_t seed)
      : MyoEnv(config, seed, LoadMyoModel(config), Terms(),
               {{"pose", 1.0}, {"bonus", 4.0}, {"act_reg", 1.0}, {"penalty", 50}}),
        pose_thd_(config.Get<double>("pose_thd")),
        random_reset_(ReadResetType(config)),
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
    if (random_reset_) {
      for (int j = 0; j < model_->njnt; ++j) {
        const double* range = model_->jnt_range + 2 * j;
        data_->qpos[j] = rng().Uniform(range[0], range[1]);
      }
    }
    mj_forward(model_, data_);
    Evaluate();
  }

  void Write(const OutputSlot& out) const override {
    double* obs = WriteJointState(out);
    for (size_t i = 0; i < target_.size(); ++i) *obs++ = target_[i] - data_->qpos[i];
    WriteActAndInfo(obs, out);
  }

 private:
  static std::vector<const char*> Terms() {
    return {"pose", "bonus", "penalty", "act_reg", "sparse"};
  }

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

  static bool ReadResetType(const Config& config) {
    const std::string& type = config.Get<std::string>("reset_type");
    if (type != "init" && type != "random") {
      throw std::invalid_argument("reset_type must be 'init' or 'random', got '" + type + "'");
    }
    return type == "random";
  }

  // The target joints must be the model's first joints, one value per joint position, as the
  // reference's qpos[:] = target and qpos[:n] slices assume (a single value is broadcast).
  static int CheckTarget(const Config& config, const mjModel* m) {
    const auto& names = config.Get<std::vector<std::string>>("target_jnt_names");
    const auto& low = config.Get<std::vector<double>>("target_jnt_low");
    const auto& high = config.Get<std::vector<double>>("target_jnt_high");
    if (names.empty() || low.size() != names.size() || high.size() != names.size()) {
      throw std::invalid_argument(
          "target_jnt_names, target_jnt_low and target_jnt_high must be of one length >= 1, "
          "got " +
          std::to_string(names.size()) + ", " + std::to_string(low.size()) + " and " +
          std::to_string(high.size()));
    }
    for (size_t i = 0; i < names.size(); ++i) {
      robotics::NameId(m, mjOBJ_JOINT, "joint", names[i]);
      if (!(low[i] <= high[i])) {
        throw std::invalid_argument("target_jnt_low must not exceed target_jnt_high (joint '" +
                                    names[i] + "')");
      }
    }
    const int n = static_cast<int>(names.size());
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
  void Evaluate() override {
    const int n = static_cast<int>(target_.size());
    const double sq = numpy_math::PairwiseSum<double>(
        [this](int64_t i) {
          const double err = target_[i] - data_->qpos[i];
          return err * err;
        },
        0, n);
    const double dist = std::sqrt(sq);
    const double bonus = 1.0 * (dist < pose_thd_) + 1.0 * (dist < 1.5 * pose_thd_);
    const double far = 2 * M_PI;
    const double penalty = -1.0 * (dist > far);
    const double act_reg = -1.0 * ActMagnitude();
    SetTerms({-dist, bonus, penalty, act_reg, -dist}, dist<pose_thd_, dist> far);
  }

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
