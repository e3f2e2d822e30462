// handle-pull-side-v3: pull a sideways handle up
// (metaworld/envs/sawyer_handle_pull_side_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_HANDLE_PULL_SIDE_H_
#define ENVFLEET_FAMILIES_METAWORLD_HANDLE_PULL_SIDE_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class HandlePullSide : public Task<HandlePullSide> {
 public:
  static inline const TaskConstants kTask = {
      "handle-pull-side-v3", "sawyer_xyz/sawyer_handle_press_sideways.xml",
      {{-0.5, 0.40, 0.05}},                         // hand_low
      {{0.5, 1.0, 0.5}},                            // hand_high
      {{-0.5, 0.40, 0.05}},                         // mocap_low (hand_low)
      {{0.5, 1.0, 0.5}},                            // mocap_high (hand_high)
      {{0, 0.6, 0.2}},                              // hand_init_pos
      {-0.35, 0.65, 0.0},                           // random reset space: the box
      {-0.25, 0.75, 0.0},    {{-0.5, 0.40, 0.05}},  // goal_space (hand_low, hand_high)
      {{0.5, 1.0, 0.5}},
  };

  HandlePullSide(const Config& config, uint64_t seed)
      : Task(config, seed),
        box_body_(Body("box")),
        handle_site_(Site("handleCenter")),
        goal_site_(Site("goalPull")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    SetBodyPos(box_body_, obj_init_pos_);
    // _set_obj_xyz(-0.1): the handle's joint only.
    data_->qpos[9] = -0.1;
    data_->qvel[9] = 0;
    Forward();
    target_pos_ = SitePos(goal_site_);
    obj_init_pos_ = SitePos(handle_site_);  // _get_pos_objects (a copy)
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 handle = SitePos(handle_site_);
    for (int k = 0; k < 3; ++k) pos[k] = handle[k];
    for (int k = 0; k < 4; ++k) quat[k] = 0.0;
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    constexpr double kTargetRadius = 0.05;  // SawyerXYZEnv.TARGET_RADIUS
    const Vec3 obj = Vec3::Of(obs + 4);
    const Vec3 target = target_pos_;
    const Vec3 scale = {{1.0, 1.0, 1.0}};
    const double target_to_obj = Norm((obj - target) * scale);
    const double target_to_obj_init = Norm((obj_init_pos_ - target) * scale);
    const double in_place = Tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init);
    // An np.float32 when the gripper effort reaches it (see GripperCagingReward; its
    // tolerances are reward_utils.h's, d * d where NumPy takes pow(d, 2)).
    const Np object_grasped = GripperCagingReward(action, obj, 0.032, 0.06, 0.01, 0.01, 1.0,
                                                  /*high_density=*/true);
    Np reward = HamacherProduct(object_grasped, in_place);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Norm(obj - TcpCenter());
    if (tcp_to_obj < 0.035 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2]) {
      reward = reward + Np(1.0 + 5.0 * in_place);
    }
    if (target_to_obj < kTargetRadius) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = target_to_obj <= 0.08;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = tcp_opened > 0 && obj[2] - 0.03 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  int box_body_, handle_site_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_HANDLE_PULL_SIDE_H_
