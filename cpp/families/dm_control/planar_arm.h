// The planar arm shared by manipulator.py and stacker.py (dm_control 1.0.50): the same arm,
// hand and touch sensors in manipulator.xml and stacker.xml, the same Physics helpers
// (bounded_joint_pos, joint_vel, body_2d_pose, touch, site_distance) and the same random arm
// pose at the start of each episode try.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_PLANAR_ARM_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_PLANAR_ARM_H_

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class PlanarArmEnv : public DmControlEnv {
 protected:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = .01;
  static constexpr int kNumArmJoints = 8;  // _ARM_JOINTS
  static constexpr int kNumTouch = 5;      // _TOUCH_SENSORS (all of stacker's sensors)

  // The observation entries both tasks start with: arm_pos (rows (sin q, cos q) of
  // np.vstack([sin, cos]).T), arm_vel and touch, then the task's `rest`.
  static EnvSpec ArmSpec(const mjModel* model, const std::vector<ObsKey>& rest) {
    std::vector<ObsKey> obs = {
        {"arm_pos", 2 * kNumArmJoints}, {"arm_vel", kNumArmJoints}, {"touch", kNumTouch}};
    obs.insert(obs.end(), rest.begin(), rest.end());
    EnvSpec spec = TaskSpec(model, obs, kControlTimestep);
    spec.obs[0].shape = {kNumArmJoints, 2};
    return spec;
  }

  PlanarArmEnv(const Config& config, uint64_t seed, const std::shared_ptr<const mjModel>& model)
      : DmControlEnv(config, seed, model, kControlTimestep),
        finger_(Qpos("finger")),
        thumb_(Qpos("thumb")),
        grasp_(Id(mjOBJ_SITE, "grasp")) {
    const char* arm[kNumArmJoints] = {"arm_root", "arm_shoulder", "arm_elbow", "arm_wrist",
                                      "finger",   "fingertip",    "thumb",     "thumbtip"};
    for (int j = 0; j < kNumArmJoints; ++j) arm_[j] = Id(mjOBJ_JOINT, arm[j]);
    const char* touch[kNumTouch] = {"palm_touch", "finger_touch", "thumb_touch", "fingertip_touch",
                                    "thumbtip_touch"};
    for (int k = 0; k < kNumTouch; ++k) touch_[k] = Sensor(touch[k]);
  }

  // arm_pos, arm_vel and touch into the first three observation entries.
  void WriteArm(const OutputSlot& out) const {
    double* arm_pos = out.Get<double>(0);
    double* arm_vel = out.Get<double>(1);
    for (int j = 0; j < kNumArmJoints; ++j) {
      const double q = d()->qpos[m()->jnt_qposadr[arm_[j]]];
      arm_pos[2 * j] = std::sin(q);
      arm_pos[2 * j + 1] = std::cos(q);
      arm_vel[j] = JointVel(arm_[j]);
    }
    double* touch = out.Get<double>(2);  // np.log1p(sensordata[_TOUCH_SENSORS])
    for (int k = 0; k < kNumTouch; ++k) touch[k] = std::log1p(d()->sensordata[touch_[k]]);
  }

  // The arm's angles uniform in their limits (in [-pi, pi] where unlimited), the finger's
  // copied from the thumb's.
  void RandomArmPose() {
    constexpr double kPi = 3.141592653589793;
    const mjModel* model = m();
    for (int j = 0; j < kNumArmJoints; ++j) {
      const bool limited = model->jnt_limited[arm_[j]] != 0;
      const double lower = limited ? model->jnt_range[2 * arm_[j]] : -kPi;
      const double upper = limited ? model->jnt_range[2 * arm_[j] + 1] : kPi;
      d()->qpos[model->jnt_qposadr[arm_[j]]] = random().Uniform(lower, upper);
    }
    d()->qpos[finger_] = d()->qpos[thumb_];
  }

  double JointVel(int joint) const { return d()->qvel[m()->jnt_dofadr[joint]]; }
  double& JointPos(int joint) const { return d()->qpos[m()->jnt_qposadr[joint]]; }

  // body_2d_pose: hstack([xpos[body, ['x', 'z']], xquat[body, ['qw', 'qy']]]); without the
  // orientation, the position only. Returns the end of what it wrote.
  double* Body2dPose(int body, double* out, bool orientation = true) const {
    *out++ = d()->xpos[3 * body];
    *out++ = d()->xpos[3 * body + 2];
    if (!orientation) return out;
    *out++ = d()->xquat[4 * body];
    *out++ = d()->xquat[4 * body + 2];
    return out;
  }

  // site_distance(site1, site2): np.linalg.norm(np.diff(site_xpos[[site2, site1]], axis=0)).
  double SiteDistance(int site1, int site2) const {
    double diff[3];
    for (int i = 0; i < 3; ++i)
      diff[i] = d()->site_xpos[3 * site1 + i] - d()->site_xpos[3 * site2 + i];
    return Norm(diff, 3);
  }

  // The model with the props of `all` that are not in `keep` removed (manipulator.make_model,
  // stacker.make_model), cached as `variant`.
  static std::shared_ptr<const mjModel> ModelWithout(const Config& config,
                                                     const std::string& xml_file,
                                                     const std::string& variant,
                                                     const std::vector<std::string>& remove) {
    return LoadEditedSuiteModel(config, xml_file, variant, [&remove](mjSpec* spec) {
      for (const std::string& prop : remove) {
        if (mjs_delete(spec, SpecElement(spec, mjOBJ_BODY, prop.c_str())) != 0) {
          throw std::runtime_error("could not remove the prop " + prop);
        }
      }
    });
  }

  int finger_, thumb_, grasp_;
  int arm_[kNumArmJoints], touch_[kNumTouch];
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_PLANAR_ARM_H_
