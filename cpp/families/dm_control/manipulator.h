// Manipulator (bring_ball, bring_peg, insert_ball, insert_peg; fully observable):
// dm_control 1.0.50's dm_control/suite/manipulator.py (Bring) on its manipulator.xml, 10
// physics steps of 1 ms per control step. The model keeps only the task's props, as
// manipulator.make_model removes the others; each episode places the target (and the
// receptacle) in this env's model.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_MANIPULATOR_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_MANIPULATOR_H_

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "families/dm_control/planar_arm.h"

namespace envfleet {
namespace dm_control {

class ManipulatorEnv : public PlanarArmEnv {
 public:
  static Config DefaultConfig() { return DomainDefaults("bring_ball"); }
  static EnvSpec Spec(const Config& config) {
    return ArmSpec(Model(config).get(),
                   {{"hand_pos", 4}, {"object_pos", 4}, {"object_vel", 3}, {"target_pos", 4}});
  }

  ManipulatorEnv(const Config& config, uint64_t seed)
      : PlanarArmEnv(config, seed, Model(config)),
        use_peg_(Task(config) % 2 == 1),
        insert_(Task(config) >= 2),
        hand_(Id(mjOBJ_BODY, "hand")),
        object_(Id(mjOBJ_BODY, use_peg_ ? "peg" : "ball")),
        target_(Id(mjOBJ_BODY, use_peg_ ? "target_peg" : "target_ball")),
        receptacle_(insert_ ? Id(mjOBJ_BODY, use_peg_ ? "slot" : "cup") : -1) {
    OwnModelField(&mjModel::body_pos, 3 * m()->nbody);  // target and receptacle, per episode
    OwnModelField(&mjModel::body_quat, 4 * m()->nbody);
    const std::string object = use_peg_ ? "peg" : "ball";
    for (int k = 0; k < 3; ++k) {  // object_joints: x, z, y
      object_joints_[k] = Id(mjOBJ_JOINT, (object + "_" + "xzy"[k]).c_str());
    }
    // The site pairs of the reward: (site1, site2) of each site_distance, in order.
    const std::vector<const char*> sites =
        use_peg_ ? std::vector<const char*>{"peg_grasp", "grasp",      "peg_pinch",      "pinch",
                                            "peg",       "target_peg", "target_peg_tip", "peg_tip"}
                 : std::vector<const char*>{"ball", "target_ball"};
    for (size_t k = 0; k < sites.size(); ++k) reward_sites_[k] = Id(mjOBJ_SITE, sites[k]);
  }

  void Write(const OutputSlot& out) const override {
    WriteArm(out);
    Body2dPose(hand_, out.Get<double>(3));
    Body2dPose(object_, out.Get<double>(4));
    double* object_vel = out.Get<double>(5);
    for (int k = 0; k < 3; ++k) object_vel[k] = JointVel(object_joints_[k]);
    Body2dPose(target_, out.Get<double>(6));
  }

 protected:
  void InitializeEpisode() override {
    constexpr double kPi = 3.141592653589793;
    // [_P_IN_HAND, _P_IN_TARGET, 1 - _P_IN_HAND - _P_IN_TARGET]: in_hand, in_target, uniform.
    const double init_probs[3] = {.1, .1, 1 - .1 - .1};
    bool penetrating = true;
    while (penetrating) {
      RandomArmPose();
      const double target_x = random().Uniform(-.4, .4);
      const double target_z = random().Uniform(.1, .4);
      double target_angle;
      if (insert_) {
        target_angle = random().Uniform(-kPi / 3, kPi / 3);
        PlaceBody(receptacle_, target_x, target_z, target_angle);
      } else {
        target_angle = random().Uniform(-kPi, kPi);
      }
      PlaceBody(target_, target_x, target_z, target_angle);
      const int64_t init_type = random().ChoiceIndex(init_probs, 3);
      double object_x, object_z, object_angle;
      if (init_type == 1) {  // in_target
        object_x = target_x;
        object_z = target_z;
        object_angle = target_angle;
      } else if (init_type == 0) {  // in_hand
        AfterReset();
        object_x = d()->site_xpos[3 * grasp_];
        object_z = d()->site_xpos[3 * grasp_ + 2];
        const double* grasp_frame = d()->site_xmat + 9 * grasp_;  // ['xx', 'zx']: 0, 6
        object_angle = kPi - std::atan2(grasp_frame[6], grasp_frame[0]);
      } else {  // uniform
        object_x = random().Uniform(-.5, .5);
        object_z = random().Uniform(0, .7);
        object_angle = random().Uniform(0, 2 * kPi);
        d()->qvel[m()->jnt_dofadr[object_joints_[0]]] = random().Uniform(-5, 5);
      }
      JointPos(object_joints_[0]) = object_x;
      JointPos(object_joints_[1]) = object_z;
      JointPos(object_joints_[2]) = object_angle;
      AfterReset();
      penetrating = ncon() > 0;
    }
  }

  double GetReward() override {
    if (!use_peg_) return IsClose(Distance(0));                                 // ball, target_ball
    const double grasping = (IsClose(Distance(0)) + IsClose(Distance(1))) / 2;  // grasp, pinch
    const double bringing = (IsClose(Distance(2)) + IsClose(Distance(3))) / 2;  // bring, tip
    return std::max(bringing, grasping / 3);
  }

 private:
  static int Task(const Config& config) {
    return TaskIndex(config, "manipulator",
                     {"bring_ball", "bring_peg", "insert_ball", "insert_peg"});
  }

  // manipulator.make_model(use_peg, insert): the props the task does not use are removed.
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const int task = Task(config);
    const bool use_peg = task % 2 == 1, insert = task >= 2;
    std::vector<std::string> remove;
    if (use_peg) {
      remove = {"ball", "target_ball", "cup"};
      if (!insert) remove.push_back("slot");
    } else {
      remove = {"peg", "target_peg", "slot"};
      if (!insert) remove.push_back("cup");
    }
    return ModelWithout(config, "manipulator.xml", "task_" + std::to_string(task), remove);
  }

  // body_pos[body, ['x', 'z']] = x, z; body_quat[body, ['qw', 'qy']] = cos(a/2), sin(a/2).
  void PlaceBody(int body, double x, double z, double angle) {
    mjModel* model = mutable_model();
    model->body_pos[3 * body] = x;
    model->body_pos[3 * body + 2] = z;
    model->body_quat[4 * body] = std::cos(angle / 2);
    model->body_quat[4 * body + 2] = std::sin(angle / 2);
  }

  // The k-th site_distance of the reward.
  double Distance(int k) const {
    return SiteDistance(reward_sites_[2 * k], reward_sites_[2 * k + 1]);
  }

  // _is_close: tolerance(distance, (0, _CLOSE), _CLOSE * 2).
  static double IsClose(double distance) {
    constexpr double kClose = .01;
    return Tolerance(distance, 0, kClose, kClose * 2);
  }

  bool use_peg_, insert_;
  int hand_, object_, target_, receptacle_;
  int object_joints_[3];
  int reward_sites_[8] = {};
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_MANIPULATOR_H_
