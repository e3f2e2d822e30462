// myosuite 3.0.0's KeyTurnEnvV0 (myosuite/envs/myo/tasks/basic/arm/key_turn.py): grasp a key
// with the index finger and the thumb and turn it. The ids myo{,Sarc,Fati,Reaf}HandKeyTurn*-v0
// (EnvPool's names), on the model of the reference's hand_keyturn recipe (the legacy hand and a
// key, recipes.py; its names have no side suffix, the key's hinge is the last joint).
//
//   options:  key_init_range (the key's starting angle is uniform in it; a range of more than
//             one value also moves the key by up to 0.01 along each axis), goal_th;
//   reset:    mj_resetData, the hand's joints at 0 and the key at the model's qpos0 (the
//             reference's init_qpos[:-1] = 0), the key's angle drawn (a range of one value
//             still takes its draw), its position drawn and its body moved there (a range of
//             more than one value), mj_forward;
//   obs:      hand_qpos, hand_qvel * dt, key_qpos, key_qvel * dt, IFtip_approach and
//             THtip_approach (keyhead minus the fingertip), act;
//   reward:   with a_IF = | |IFtip_approach| - 0.03 | (and a_TH the same for the thumb),
//             key_turn = the key's angle, IFtip_approach = -a_IF, THtip_approach = -a_TH,
//             act_reg = -|act| / na, bonus = [angle > pi/2] + [angle > pi],
//             penalty = -[a_IF > 0.05] - [a_TH > 0.05], weighted by weighted_reward_keys
//             (default key_turn 1, IFtip_approach 10, THtip_approach 10, act_reg 1, bonus 4,
//             penalty 25); solved angle > goal_th; done a_IF > 0.1 or a_TH > 0.1.
//
// The norms are np.linalg.norm of whole vectors (no axis), which NumPy computes as a dot
// product through its BLAS: NumpyNorm (common/numpy/ufunc_loops.h) calls that function, where
// the other tasks' norms (with an axis) are pairwise sums.
#ifndef ENVFLEET_FAMILIES_MYOSUITE_KEY_TURN_H_
#define ENVFLEET_FAMILIES_MYOSUITE_KEY_TURN_H_

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "families/myosuite/myo_env.h"

namespace envfleet {
namespace myosuite {

class KeyTurnEnv : public MyoEnv {
 public:
  static Config DefaultConfig() {
    Config config;
    AddMyoDefaults(config, "");
    config.Set("key_init_range", std::vector<double>{0.0, 0.0});
    config.Set("goal_th", 3.14);
    return config;
  }

  static EnvSpec Spec(const Config& config) {
    const ModelPtr model = LoadMyoModel(config);
    CheckModel(model.get());
    ReadRange(config);
    const mjModel* m = model.get();
    // hand_qpos, hand_qvel, key_qpos, key_qvel: nq + nv values; the two approaches: 6.
    return MyoSpec(config, m, m->nq + m->nv + 6 + m->na, Terms());
  }

  KeyTurnEnv(const Config& config, uint64_t seed)
      : MyoEnv(config, seed, LoadMyoModel(config), Terms(),
               {{"key_turn", 1.0},
                {"IFtip_approach", 10.0},
                {"THtip_approach", 10.0},
                {"act_reg", 1.0},
                {"bonus", 4.0},
                {"penalty", 25.0}}),
        range_(ReadRange(config)),
        goal_th_(config.Get<double>("goal_th")),
        move_key_(range_[0] != range_[1]) {
    CheckModel(model_);
    keyhead_ = robotics::SiteId(model_, "keyhead");
    if_tip_ = robotics::SiteId(model_, "IFtip");
    th_tip_ = robotics::SiteId(model_, "THtip");
    key_body_ = model_->nbody - 1;  // the reference's model.body_pos[-1]
    if (move_key_) OwnBodyPos();
    mj_forward(model_, data_);
    for (int a = 0; a < 3; ++a) key_init_pos_[a] = data_->site_xpos[3 * keyhead_ + a];
    initial_qpos_.assign(data_->qpos, data_->qpos + model_->nq);
    for (int i = 0; i + 1 < model_->nq; ++i) initial_qpos_[i] = 0.0;
    initial_qvel_.assign(data_->qvel, data_->qvel + model_->nv);
  }

  void Reset() override {
    ResetState();
    data_->qpos[model_->nq - 1] = rng().Uniform(range_[0], range_[1]);
    if (move_key_) {
      double* body_pos = own_model()->body_pos + 3 * key_body_;
      for (int a = 0; a < 3; ++a) body_pos[a] = key_init_pos_[a] + rng().Uniform(-0.01, 0.01);
    }
    mj_forward(model_, data_);
    Evaluate();
  }

  void Write(const OutputSlot& out) const override {
    // hand_qpos, hand_qvel * dt, key_qpos, key_qvel * dt: the key's values are the last.
    const int nq = model_->nq, nv = model_->nv;
    double* obs = Put(out.Get<double>(0), data_->qpos, nq - 1);
    for (int i = 0; i + 1 < nv; ++i) *obs++ = data_->qvel[i] * dt();
    *obs++ = data_->qpos[nq - 1];
    *obs++ = data_->qvel[nv - 1] * dt();
    for (int tip : {if_tip_, th_tip_}) {
      for (int a = 0; a < 3; ++a) {
        *obs++ = data_->site_xpos[3 * keyhead_ + a] - data_->site_xpos[3 * tip + a];
      }
    }
    WriteActAndInfo(obs, out);
  }

 private:
  static std::vector<const char*> Terms() {
    return {"key_turn", "IFtip_approach", "THtip_approach", "act_reg",
            "bonus",    "penalty",        "sparse"};
  }

  // The model's last joint is the key's hinge (its qpos and qvel the last values).
  static void CheckModel(const mjModel* m) {
    if (m->njnt < 1 || m->jnt_type[m->njnt - 1] != mjJNT_HINGE ||
        m->jnt_qposadr[m->njnt - 1] != m->nq - 1 || m->jnt_bodyid[m->njnt - 1] != m->nbody - 1) {
      throw std::invalid_argument(
          "xml_file: KeyTurn needs a model whose last joint is the key's hinge, on its last "
          "body (the hand_keyturn recipe's)");
    }
    for (const char* site : {"keyhead", "IFtip", "THtip"}) robotics::SiteId(m, site);
  }

  static std::vector<double> ReadRange(const Config& config) {
    const auto& range = config.Get<std::vector<double>>("key_init_range");
    if (range.size() != 2 || !std::isfinite(range[0]) || !std::isfinite(range[1]) ||
        range[0] > range[1]) {
      throw std::invalid_argument(
          "key_init_range must be [low, high] with finite low <= high, got " +
          std::to_string(range.size()) + " values");
    }
    return range;
  }

  // get_reward_dict.
  void Evaluate() override {
    double approach[2][3];
    int k = 0;
    for (int tip : {if_tip_, th_tip_}) {
      for (int a = 0; a < 3; ++a) {
        approach[k][a] = data_->site_xpos[3 * keyhead_ + a] - data_->site_xpos[3 * tip + a];
      }
      ++k;
    }
    const double if_dist = std::fabs(numpy_math::NumpyNorm(approach[0], 3) - 0.030);
    const double th_dist = std::fabs(numpy_math::NumpyNorm(approach[1], 3) - 0.030);
    const double angle = data_->qpos[model_->nq - 1];
    const int na = model_->na;
    const double act_mag = na != 0 ? numpy_math::NumpyNorm(data_->act, na) / na : 0.0;
    constexpr double kFar = 0.1;
    const double bonus = 1.0 * (angle > M_PI / 2) + 1.0 * (angle > M_PI);
    const double penalty = -1.0 * (if_dist > kFar / 2) - 1.0 * (th_dist > kFar / 2);
    SetTerms({angle, -1.0 * if_dist, -1.0 * th_dist, -1.0 * act_mag, bonus, penalty, angle},
             angle > goal_th_, if_dist > kFar || th_dist > kFar);
  }

  std::vector<double> range_;
  double goal_th_;
  bool move_key_;
  int keyhead_ = -1, if_tip_ = -1, th_tip_ = -1, key_body_ = -1;
  double key_init_pos_[3] = {0, 0, 0};
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_KEY_TURN_H_
