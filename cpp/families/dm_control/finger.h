// Finger (spin, turn_easy, turn_hard): dm_control 1.0.50's dm_control/suite/finger.py on its
// finger.xml, 2 physics steps of 10 ms per control step. Every observation is a function of the
// model's sensors. Spin lowers the hinge's damping; turn places the target site (its position
// and radius) in this env's model each episode.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_FINGER_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_FINGER_H_

#include <cmath>
#include <vector>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class FingerEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = .02;
  static Config DefaultConfig() { return DomainDefaults("spin"); }
  static EnvSpec Spec(const Config& config) {
    std::vector<ObsKey> obs = {{"position", 4}, {"velocity", 3}, {"touch", 2}};
    if (Task(config) != 0) obs.insert(obs.end(), {{"target_position", 2}, {"dist_to_target", -1}});
    return TaskSpec(LoadSuiteModel(config, "finger.xml").get(), obs, kControlTimestep);
  }

  FingerEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, "finger.xml", kControlTimestep),
        task_(Task(config)),
        target_site_(Id(mjOBJ_SITE, "target")),
        tip_site_(Id(mjOBJ_SITE, "tip")),
        hinge_(Id(mjOBJ_JOINT, "hinge")),
        cap1_(Id(mjOBJ_GEOM, "cap1")),
        proximal_(Sensor("proximal")),
        distal_(Sensor("distal")),
        proximal_velocity_(Sensor("proximal_velocity")),
        distal_velocity_(Sensor("distal_velocity")),
        hinge_velocity_(Sensor("hinge_velocity")),
        tip_(Sensor("tip")),
        target_(Sensor("target")),
        spinner_(Sensor("spinner")),
        touchtop_(Sensor("touchtop")),
        touchbottom_(Sensor("touchbottom")) {
    // Edited per episode: spin hides the target and tip and lowers the hinge's damping, turn
    // places the target.
    OwnModelField(&mjModel::site_rgba, 4 * m()->nsite);
    OwnModelField(&mjModel::dof_damping, m()->nv);
    OwnModelField(&mjModel::site_pos, 3 * m()->nsite);
    OwnModelField(&mjModel::site_size, 3 * m()->nsite);
  }

  void Write(const OutputSlot& out) const override {
    const double* s = d()->sensordata;
    double* position = out.Get<double>(0);  // hstack(sensordata[['proximal', 'distal']], tip)
    position[0] = s[proximal_];
    position[1] = s[distal_];
    TipPosition(position + 2);
    double* velocity = out.Get<double>(1);
    velocity[0] = s[proximal_velocity_];
    velocity[1] = s[distal_velocity_];
    velocity[2] = s[hinge_velocity_];
    double* touch = out.Get<double>(2);  // np.log1p(sensordata[['touchtop', 'touchbottom']])
    touch[0] = std::log1p(s[touchtop_]);
    touch[1] = std::log1p(s[touchbottom_]);
    if (task_ == 0) return;
    TargetPosition(out.Get<double>(3));
    out.Get<double>(4)[0] = DistToTarget();
  }

 protected:
  void InitializeEpisode() override {
    constexpr double kPi = 3.141592653589793;
    mjModel* model = mutable_model();
    if (task_ == 0) {  // Spin
      model->site_rgba[4 * target_site_ + 3] = 0;
      model->site_rgba[4 * tip_site_ + 3] = 0;
      model->dof_damping[model->jnt_dofadr[hinge_]] = .03;
    } else {  // Turn
      const double target_angle = random().Uniform(-kPi, kPi);
      const double hinge_x = d()->xanchor[3 * hinge_], hinge_z = d()->xanchor[3 * hinge_ + 2];
      const double radius = Sum(model->geom_size + 3 * cap1_, 3);
      model->site_pos[3 * target_site_] = hinge_x + radius * std::sin(target_angle);
      model->site_pos[3 * target_site_ + 2] = hinge_z + radius * std::cos(target_angle);
      model->site_size[3 * target_site_] = task_ == 1 ? kEasyTargetSize : kHardTargetSize;
    }
    RandomizeJointsWithoutContact();  // _set_random_joint_angles
  }

  double GetReward() override {
    if (task_ == 0) {  // float(hinge_velocity <= -_SPIN_VELOCITY)
      return d()->sensordata[hinge_velocity_] <= -15.0 ? 1.0 : 0.0;
    }
    return DistToTarget() <= 0 ? 1.0 : 0.0;
  }

 private:
  static constexpr double kEasyTargetSize = 0.07, kHardTargetSize = 0.03;
  static int Task(const Config& config) {
    return TaskIndex(config, "finger", {"spin", "turn_easy", "turn_hard"});
  }

  // sensordata[name][[0, 2]] - sensordata['spinner'][[0, 2]] for tip and target.
  void RelativeToSpinner(int sensor, double* out) const {
    const double* s = d()->sensordata;
    out[0] = s[sensor] - s[spinner_];
    out[1] = s[sensor + 2] - s[spinner_ + 2];
  }
  void TipPosition(double* out) const { RelativeToSpinner(tip_, out); }
  void TargetPosition(double* out) const { RelativeToSpinner(target_, out); }

  // np.linalg.norm(target_position - tip_position) - site_size['target', 0].
  double DistToTarget() const {
    double tip[2], target[2], to_target[2];
    TipPosition(tip);
    TargetPosition(target);
    for (int i = 0; i < 2; ++i) to_target[i] = target[i] - tip[i];
    return Norm(to_target, 2) - m()->site_size[3 * target_site_];
  }

  int task_;  // 0 spin, 1 turn_easy, 2 turn_hard
  int target_site_, tip_site_, hinge_, cap1_;
  int proximal_, distal_, proximal_velocity_, distal_velocity_, hinge_velocity_, tip_, target_,
      spinner_, touchtop_, touchbottom_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_FINGER_H_
