// Fish (upright, swim): dm_control 1.0.50's dm_control/suite/fish.py on its fish.xml, 10
// physics steps of 4 ms per control step. Swim places the target (its geom) in this env's model
// each episode. The observation is dm_control's for the task (upright has no `target`, which
// EnvPool adds to both).
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_FISH_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_FISH_H_

#include <vector>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class FishEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = .04;
  static Config DefaultConfig() { return DomainDefaults("swim"); }
  static EnvSpec Spec(const Config& config) {
    const auto model = LoadSuiteModel(config, "fish.xml");
    std::vector<ObsKey> obs = {{"joint_angles", kNumJoints}, {"upright", -1}};
    if (Task(config) == 1) obs.push_back({"target", 3});
    obs.push_back({"velocity", model->nv});
    return TaskSpec(model.get(), obs, kControlTimestep);
  }

  FishEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, "fish.xml", kControlTimestep),
        swim_(Task(config) == 1),
        torso_(Id(mjOBJ_BODY, "torso")),
        root_(Qpos("root")),
        target_(Id(mjOBJ_GEOM, "target")),
        mouth_(Id(mjOBJ_GEOM, "mouth")) {
    for (int j = 0; j < kNumJoints; ++j) joints_[j] = Qpos(kJoints[j]);
    OwnModelField(&mjModel::geom_rgba, 4 * m()->ngeom);  // the target's, per episode
    OwnModelField(&mjModel::geom_pos, 3 * m()->ngeom);
  }

  void Write(const OutputSlot& out) const override {
    double* joint_angles = out.Get<double>(0);
    for (int j = 0; j < kNumJoints; ++j) joint_angles[j] = d()->qpos[joints_[j]];
    out.Get<double>(1)[0] = Xmat(torso_, 2, 2);
    if (swim_) MouthToTarget(out.Get<double>(2));
    Put(out.Get<double>(swim_ ? 3 : 2), d()->qvel, m()->nv);
  }

 protected:
  void InitializeEpisode() override {
    double quat[4];  // quat = randn(4); qpos['root'][3:7] = quat / np.linalg.norm(quat)
    for (double& q : quat) q = random().StandardNormal();
    const double norm = Norm(quat, 4);
    for (int i = 0; i < 4; ++i) d()->qpos[root_ + 3 + i] = quat[i] / norm;
    for (int j = 0; j < kNumJoints; ++j) d()->qpos[joints_[j]] = random().Uniform(-.2, .2);
    mjModel* model = mutable_model();
    if (!swim_) {
      model->geom_rgba[4 * target_ + 3] = 0;
      return;
    }
    model->geom_pos[3 * target_] = random().Uniform(-.4, .4);
    model->geom_pos[3 * target_ + 1] = random().Uniform(-.4, .4);
    model->geom_pos[3 * target_ + 2] = random().Uniform(.1, .3);
  }

  double GetReward() override {
    const double upright = Xmat(torso_, 2, 2);
    if (!swim_) return Tolerance(upright, 1, 1, /*margin=*/1);
    const double radii = m()->geom_size[3 * mouth_] + m()->geom_size[3 * target_];
    double to_target[3];
    MouthToTarget(to_target);
    const double in_target = Tolerance(Norm(to_target, 3), 0, radii, 2 * radii);
    const double is_upright = 0.5 * (upright + 1);
    return (7 * in_target + is_upright) / 8;
  }

 private:
  static constexpr int kNumJoints = 7;
  static constexpr const char* kJoints[kNumJoints] = {
      "tail1",          "tail_twist",   "tail2",        "finright_roll",
      "finright_pitch", "finleft_roll", "finleft_pitch"};
  static int Task(const Config& config) { return TaskIndex(config, "fish", {"upright", "swim"}); }

  // (geom_xpos['target'] - geom_xpos['mouth']).dot(geom_xmat['mouth'].reshape(3, 3)).
  void MouthToTarget(double* out) const {
    double global[3];
    for (int i = 0; i < 3; ++i) {
      global[i] = d()->geom_xpos[3 * target_ + i] - d()->geom_xpos[3 * mouth_ + i];
    }
    VectorTimesFrame(global, d()->geom_xmat + 9 * mouth_, out);
  }

  bool swim_;
  int torso_, root_, target_, mouth_;
  int joints_[kNumJoints];
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_FISH_H_
