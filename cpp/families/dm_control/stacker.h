// Stacker (stack_2, stack_4; fully observable): dm_control 1.0.50's dm_control/suite/stacker.py
// (Stack) on its stacker.xml, 10 physics steps of 1 ms per control step. The model keeps the
// task's boxes, as stacker.make_model removes the others; each episode moves the target.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_STACKER_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_STACKER_H_

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "families/dm_control/planar_arm.h"

namespace envfleet {
namespace dm_control {

class StackerEnv : public PlanarArmEnv {
 public:
  static Config DefaultConfig() { return DomainDefaults("stack_2"); }
  static EnvSpec Spec(const Config& config) {
    const int n = NumBoxes(config);
    EnvSpec spec =
        ArmSpec(Model(config).get(),
                {{"hand_pos", 4}, {"box_pos", 4 * n}, {"box_vel", 3 * n}, {"target_pos", 2}});
    spec.obs[4].shape = {n, 4};  // body_2d_pose of a list of bodies: one row each
    return spec;
  }

  StackerEnv(const Config& config, uint64_t seed)
      : PlanarArmEnv(config, seed, Model(config)),
        num_boxes_(NumBoxes(config)),
        hand_(Id(mjOBJ_BODY, "hand")),
        target_body_(Id(mjOBJ_BODY, "target")),
        target_geom_(Id(mjOBJ_GEOM, "target")),
        target_site_(Id(mjOBJ_SITE, "target")) {
    OwnModelField(&mjModel::body_pos, 3 * m()->nbody);  // the target's, per episode
    for (int b = 0; b < num_boxes_; ++b) {
      const std::string name = "box" + std::to_string(b);
      boxes_[b] = Id(mjOBJ_BODY, name.c_str());
      box_sites_[b] = Id(mjOBJ_SITE, name.c_str());
      for (int k = 0; k < 3; ++k) {  // box_joint_names: x, y, z
        box_joints_[3 * b + k] = Id(mjOBJ_JOINT, (name + "_" + "xyz"[k]).c_str());
      }
    }
  }

  void Write(const OutputSlot& out) const override {
    WriteArm(out);
    Body2dPose(hand_, out.Get<double>(3));
    double* box_pos = out.Get<double>(4);
    for (int b = 0; b < num_boxes_; ++b) box_pos = Body2dPose(boxes_[b], box_pos);
    double* box_vel = out.Get<double>(5);
    for (int k = 0; k < 3 * num_boxes_; ++k) box_vel[k] = JointVel(box_joints_[k]);
    Body2dPose(target_body_, out.Get<double>(6), /*orientation=*/false);
  }

 protected:
  void InitializeEpisode() override {
    constexpr double kPi = 3.141592653589793;
    mjModel* model = mutable_model();
    bool penetrating = true;
    while (penetrating) {
      RandomArmPose();
      const int64_t target_height = 2 * random().RandInt(0, num_boxes_) + 1;
      const double box_size = model->geom_size[3 * target_geom_];
      model->body_pos[3 * target_body_ + 2] = box_size * target_height;
      model->body_pos[3 * target_body_] = random().Uniform(-.37, .37);
      for (int b = 0; b < num_boxes_; ++b) {  // qpos of box_x, box_z, box_y
        JointPos(box_joints_[3 * b]) = random().Uniform(.1, .3);
        JointPos(box_joints_[3 * b + 2]) = random().Uniform(0, .7);
        JointPos(box_joints_[3 * b + 1]) = random().Uniform(0, 2 * kPi);
      }
      AfterReset();
      penetrating = ncon() > 0;
    }
  }

  double GetReward() override {
    constexpr double kClose = .01;
    const double box_size = m()->geom_size[3 * target_geom_];
    double min_box_to_target = SiteDistance(box_sites_[0], target_site_);
    for (int b = 1; b < num_boxes_; ++b) {
      min_box_to_target = std::min(min_box_to_target, SiteDistance(box_sites_[b], target_site_));
    }
    const double box_is_close = Tolerance(min_box_to_target, 0, 0, 2 * box_size);
    const double hand_is_far = Tolerance(SiteDistance(grasp_, target_site_), .1,
                                         std::numeric_limits<double>::infinity(), kClose);
    return box_is_close * hand_is_far;
  }

 private:
  static constexpr int kMaxBoxes = 4;

  static int NumBoxes(const Config& config) {
    return TaskIndex(config, "stacker", {"stack_2", "stack_4"}) == 0 ? 2 : 4;
  }

  // stacker.make_model(n_boxes): boxes n .. 3 are removed.
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const int n = NumBoxes(config);
    std::vector<std::string> remove;
    for (int b = n; b < kMaxBoxes; ++b) remove.push_back("box" + std::to_string(b));
    return ModelWithout(config, "stacker.xml", std::to_string(n) + "_boxes", remove);
  }

  int num_boxes_;
  int hand_, target_body_, target_geom_, target_site_;
  int boxes_[kMaxBoxes], box_sites_[kMaxBoxes], box_joints_[3 * kMaxBoxes];
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_STACKER_H_
