// myosuite 3.0.0's TorsoEnvV0 (myosuite/envs/myo/tasks/basic/torso/pose.py): hold the spine
// (the lumbar joints, the abdomen) at a target pose. The ids myo{,Sarc,Fati}TorsoPoseFixed-v0
// and myo{,Sarc,Fati}TorsoExoPoseFixed-v0 (EnvPool's names), on myosuite's own torso models
// (the torso; the torso in an exosuit whose two parts are free bodies), built from myo-sim's
// files (recipes.py).
//
//   options:  target_jnt_names / target_jnt_low / target_jnt_high (the reference's
//             target_jnt_range: the target is each range's middle, fixed; the joints must be
//             the model's first, in order, as the reference's qpos[:18] assumes), reset_type
//             ("init" or "random": every joint drawn in its range), pose_thd;
//   reset:    mj_resetData, init_qpos (the model's, with joint-driven actuators' joints at the
//             middle of their range) and init_qvel, the random pose if asked, mj_forward;
//   obs:      qpos, qvel * dt, pose_err = target - qpos[:n], act;
//   reward:   with d = |pose_err| (along the last axis: a pairwise sum), pose = -d,
//             bonus = [d < thd] + [d < 1.5 thd], penalty = -[d > pi], act_reg = -|act| / na,
//             sparse = -d, weighted by weighted_reward_keys (default pose 1, bonus 4, act_reg 1,
//             penalty 50, done 0); solved d < thd; done d > pi.
//
// Unlike PoseEnvV0 it moves no target sites (the models have none), so a reset runs no forward
// pass at the target pose.
#ifndef ENVFLEET_FAMILIES_MYOSUITE_TORSO_H_
#define ENVFLEET_FAMILIES_MYOSUITE_TORSO_H_

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "families/myosuite/myo_env.h"

namespace envfleet {
namespace myosuite {

class TorsoEnv : public MyoEnv {
 public:
  static Config DefaultConfig() {
    Config config;
    AddMyoDefaults(config, "");
    config.Set("target_jnt_names", std::vector<std::string>{});
    config.Set("target_jnt_low", std::vector<double>{});
    config.Set("target_jnt_high", std::vector<double>{});
    config.Set("reset_type", std::string("init"));
    config.Set("pose_thd", 0.25);
    return config;
  }

  static EnvSpec Spec(const Config& config) {
    const ModelPtr model = LoadMyoModel(config);
    const int n = CheckTarget(config, model.get());
    CheckRandomReset(config, model.get());
    const mjModel* m = model.get();
    return MyoSpec(config, m, m->nq + m->nv + n + m->na, PoseTerms());
  }

  TorsoEnv(const Config& config, uint64_t seed)
      : MyoEnv(config, seed, LoadMyoModel(config), PoseTerms(),
               {{"pose", 1.0}, {"bonus", 4.0}, {"act_reg", 1.0}, {"penalty", 50}, {"done", 0}}),
        pose_thd_(config.Get<double>("pose_thd")),
        random_reset_(CheckRandomReset(config, model_)) {
    CheckTarget(config, model_);
    const auto& low = config.Get<std::vector<double>>("target_jnt_low");
    const auto& high = config.Get<std::vector<double>>("target_jnt_high");
    // np.mean(target_jnt_range, axis=1): (low + high) / 2.
    for (size_t i = 0; i < low.size(); ++i) target_.push_back((low[i] + high[i]) / 2.0);
    ComputeInitialState();
  }

  void Reset() override {
    ResetState();
    if (random_reset_) DrawRandomPose();
    mj_forward(model_, data_);
    Evaluate();
  }

  void Write(const OutputSlot& out) const override {
    WriteActAndInfo(WritePoseError(WriteJointState(out), target_), out);
  }

 private:
  // The target joints: the model's first joints, in order, each one qpos value.
  static int CheckTarget(const Config& config, const mjModel* m) {
    const std::vector<int> joints = ReadTargetJoints(config, m);
    for (size_t i = 0; i < joints.size(); ++i) {
      const int j = joints[i];
      if (m->jnt_qposadr[j] != static_cast<int>(i) ||
          (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE)) {
        throw std::invalid_argument("target_jnt_names: joint '" +
                                    std::string(mj_id2name(m, mjOBJ_JOINT, j)) +
                                    "' must be the model's hinge or slide joint number " +
                                    std::to_string(i) + " (the target is qpos[:n])");
      }
    }
    return static_cast<int>(joints.size());
  }

  // "random" draws every joint's qpos in its range: the model's joints must each be one qpos
  // value (the torso's; the exosuit's free bodies are not).
  static bool CheckRandomReset(const Config& config, const mjModel* m) {
    const bool random = ReadRandomReset(config);
    if (random && m->njnt != m->nq) {
      throw std::invalid_argument(
          "reset_type 'random' needs a model of hinge and slide joints only");
    }
    return random;
  }

  // get_reward_dict: pose_reward with the episode ending past pi.
  void Evaluate() override { SetPoseTerms(PoseDistance(target_), pose_thd_, M_PI); }

  double pose_thd_;
  bool random_reset_;
  std::vector<double> target_;
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_TORSO_H_
