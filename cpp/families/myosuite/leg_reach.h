// myosuite 3.0.0's LegReachEnvV0 (myosuite/envs/myo/tasks/basic/leg/reach.py): stand, bringing
// sites of the body (the pelvis) to targets near where they start. The ids
// myo{,Sarc,Fati}LegStandRandom-v0 (EnvPool's names), on myosuite's own legs-with-torso model
// (recipes.py: leg_reach).
//
//   options:  target_sites / target_low / target_high (the reference's target_reach_range: each
//             site's target is the site's position after the reset's forward pass plus a draw
//             in its box, 3 values per site), joint_random_range ([low, high]: each joint's
//             first qpos value gets a draw in it, clipped to the joint's range), far_th;
//   reset:    mj_resetData; qpos the model's first keyframe (plus the joint draws when the
//             range is wider than one value; every qpos value is drawn, those of a joint's
//             first kept), qvel the keyframe's; mj_forward; the targets drawn and placed;
//             mj_forward twice;
//   obs:      qpos, qvel * dt, tip_pos, reach_err = target_pos - tip_pos, act;
//   reward:   with k sites, d = |reach_err| and v = |qvel * dt| (whole-vector norms: NumPy's
//             dot, NumpyNorm), near = 0.05 k and far = far_th k once the time exceeds two
//             control steps (else infinite): reach = 10 - d - 10 v, bonus = [d < 2 near] +
//             [d < near], act_reg = -100 |act| / na, penalty = -[d > far], sparse = -d,
//             weighted by weighted_reward_keys (default reach 1, bonus 4, penalty 50,
//             act_reg 1); solved d < near; done d > far.
//
// Its actions are mapped in float64 (the clipped action cast, the sigmoid through NumPy's
// float64 exp, the stages on float64 controls): MyoEnv::UseFloat64Controls.
#ifndef ENVFLEET_FAMILIES_MYOSUITE_LEG_REACH_H_
#define ENVFLEET_FAMILIES_MYOSUITE_LEG_REACH_H_

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "families/myosuite/myo_env.h"

namespace envfleet {
namespace myosuite {

class LegReachEnv : public MyoEnv {
 public:
  static Config DefaultConfig() {
    Config config;
    AddMyoDefaults(config, "");
    config.Set("target_sites", std::vector<std::string>{});
    config.Set("target_low", std::vector<double>{});
    config.Set("target_high", std::vector<double>{});
    config.Set("joint_random_range", std::vector<double>{0.0, 0.0});
    config.Set("far_th", 0.35);
    return config;
  }

  static EnvSpec Spec(const Config& config) {
    const ModelPtr model = LoadMyoModel(config);
    const int k = CheckOptions(config, model.get());
    const mjModel* m = model.get();
    return MyoSpec(config, m, m->nq + m->nv + 6 * k + m->na, ReachTerms());
  }

  LegReachEnv(const Config& config, uint64_t seed)
      : MyoEnv(config, seed, LoadMyoModel(config), ReachTerms(),
               {{"reach", 1.0}, {"bonus", 4.0}, {"penalty", 50}, {"act_reg", 1}}),
        far_th_(config.Get<double>("far_th")) {
    CheckOptions(config, model_);
    UseFloat64Controls();
    low_ = config.Get<std::vector<double>>("target_low");
    high_ = config.Get<std::vector<double>>("target_high");
    joint_range_ = config.Get<std::vector<double>>("joint_random_range");
    sites_ = ReadReachSites(config, model_);
    initial_qpos_.assign(model_->key_qpos, model_->key_qpos + model_->nq);
    initial_qvel_.assign(model_->key_qvel, model_->key_qvel + model_->nv);
    draws_.resize(model_->nq);
    reach_err_.resize(3 * sites_.tips.size());
    scaled_qvel_.resize(model_->nv);
  }

  void Reset() override {
    ResetState();                                 // the keyframe's qpos and qvel
    if (joint_range_[1] - joint_range_[0] > 0) {  // np.ptp(joint_random_range) > 0
      for (double& draw : draws_) draw = rng().Uniform(joint_range_[0], joint_range_[1]);
      for (int j = 0; j < model_->njnt; ++j) {
        const int adr = model_->jnt_qposadr[j];
        const double* range = model_->jnt_range + 2 * j;
        data_->qpos[adr] = numpy_math::NpClip(initial_qpos_[adr] + draws_[adr], range[0], range[1]);
      }
    }
    mj_forward(model_, data_);
    double* site_pos = own_model()->site_pos;
    for (size_t s = 0; s < sites_.tips.size(); ++s) {
      double* target = site_pos + 3 * sites_.targets[s];
      for (int a = 0; a < 3; ++a) target[a] = data_->site_xpos[3 * sites_.tips[s] + a];
      for (int a = 0; a < 3; ++a) target[a] += rng().Uniform(low_[3 * s + a], high_[3 * s + a]);
    }
    mj_forward(model_, data_);  // _generate_targets'
    mj_forward(model_, data_);  // reset's (no effect on the state; the reference runs both)
    Evaluate();
  }

  void Write(const OutputSlot& out) const override {
    WriteActAndInfo(WriteTipsAndErrors(WriteJointState(out), sites_), out);
  }

 private:
  static int CheckOptions(const Config& config, const mjModel* m) {
    const int k = static_cast<int>(ReadReachSites(config, m).tips.size());
    const auto& range = config.Get<std::vector<double>>("joint_random_range");
    if (range.size() != 2 || !(range[0] <= range[1]) || !std::isfinite(range[0]) ||
        !std::isfinite(range[1])) {
      throw std::invalid_argument(
          "joint_random_range must be [low, high] with finite low <= high, got " +
          std::to_string(range.size()) + " values");
    }
    if (m->nkey < 1) {
      throw std::invalid_argument(
          "xml_file: LegReach starts from the model's first keyframe; "
          "the model has none");
    }
    return k;
  }

  // get_reward_dict.
  void Evaluate() override {
    const int k = static_cast<int>(sites_.tips.size());
    for (int s = 0; s < k; ++s) {
      for (int a = 0; a < 3; ++a) {
        reach_err_[3 * s + a] =
            data_->site_xpos[3 * sites_.targets[s] + a] - data_->site_xpos[3 * sites_.tips[s] + a];
      }
    }
    const double dist = numpy_math::NumpyNorm(reach_err_.data(), 3 * k);
    for (int i = 0; i < model_->nv; ++i) scaled_qvel_[i] = data_->qvel[i] * dt();
    const double vel = numpy_math::NumpyNorm(scaled_qvel_.data(), model_->nv);
    const int na = model_->na;
    const double act_mag = na != 0 ? numpy_math::NumpyNorm(data_->act, na) / na : 0.0;
    const double far =
        data_->time > 2.0 * dt() ? far_th_ * k : std::numeric_limits<double>::infinity();
    const double near = k * 0.050;
    const double bonus = 1.0 * (dist < 2 * near) + 1.0 * (dist < near);
    SetTerms(
        {10.0 - 1.0 * dist - 10.0 * vel, bonus, -100.0 * act_mag, -1.0 * (dist > far), -1.0 * dist},
        dist<near, dist> far);
  }

  double far_th_;
  std::vector<double> low_, high_, joint_range_;
  ReachSites sites_;
  std::vector<double> draws_, reach_err_, scaled_qvel_;  // scratch, sized at construction
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_LEG_REACH_H_
