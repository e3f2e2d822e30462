// peg-unplug-side-v3: pull a plug sideways out of a wall
// (metaworld/envs/sawyer_peg_unplug_side_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_PEG_UNPLUG_SIDE_H_
#define ENVFLEET_FAMILIES_METAWORLD_PEG_UNPLUG_SIDE_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class PegUnplugSide : public Task<PegUnplugSide> {
 public:
  static inline const TaskConstants kTask = {
      "peg-unplug-side-v3",
      "sawyer_xyz/sawyer_peg_unplug_side.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      {{0, 0.6, 0.2}},       // hand_init_pos
      {-0.25, 0.6, -0.001},  // random reset space: the wall
      {-0.15, 0.8, 0.001},
      {{-0.25 + 0.194, 0.6 + 0.0, -0.001 + 0.131}},  // goal_space: obj_low/high + (0.194, 0, 0.131)
      {{-0.15 + 0.194, 0.8 + 0.0, 0.001 + 0.131}},
  };

  PegUnplugSide(const Config& config, uint64_t seed)
      : Task(config, seed),
        box_body_(Body("box")),
        plug_body_(Body("plug1")),
        peg_end_site_(Site("pegEnd")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    const Vec3 pos_box = Vec3::Of(StateRandVec().data());
    SetBodyPos(box_body_, pos_box);
    const Vec3 pos_plug = pos_box + Vec3{{0.044, 0.0, 0.131}};
    // The task's _set_obj_xyz: the plug's position, an upright quaternion, and only its
    // linear velocity zeroed.
    for (int k = 0; k < 3; ++k) data_->qpos[9 + k] = pos_plug[k];
    const double upright[4] = {1.0, 0.0, 0.0, 0.0};
    for (int k = 0; k < 4; ++k) data_->qpos[12 + k] = upright[k];
    for (int k = 0; k < 3; ++k) data_->qvel[9 + k] = 0;
    Forward();
    obj_init_pos_ = SitePos(peg_end_site_);
    target_pos_ = pos_plug + Vec3{{0.15, 0.0, 0.0}};
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 end = SitePos(peg_end_site_);
    for (int k = 0; k < 3; ++k) pos[k] = end[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(plug_body_)[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = Vec3::Of(obs + 4);
    const double tcp_opened = obs[3];
    const Vec3 target = target_pos_;
    const double tcp_to_obj = Norm(obj - tcp);
    const double obj_to_target = Norm(obj - target);
    const Np object_grasped = GripperCagingReward(action, obj, 0.025, 0.05, 0.01, 0.005, 0.8,
                                                  /*high_density=*/true);
    const double in_place_margin = Norm(obj_init_pos_ - target);
    const double in_place = Tolerance(obj_to_target, 0, 0.05, in_place_margin);
    const bool grasp_success = tcp_opened > 0.5 && obj[0] - obj_init_pos_[0] > 0.015;
    // object_grasped may be an np.float32 (the gripper effort): the reward is then float32.
    Np reward = Np(2.0) * object_grasped;
    if (grasp_success && tcp_to_obj < 0.035) {
      reward = Np(1.0) + Np(2.0) * object_grasped + Np(5.0) * Np(in_place);
    }
    if (obj_to_target <= 0.05) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = grasp_success;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int box_body_, plug_body_, peg_end_site_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_PEG_UNPLUG_SIDE_H_
