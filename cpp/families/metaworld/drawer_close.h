// drawer-close-v3: push an open drawer shut (metaworld/envs/sawyer_drawer_close_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_DRAWER_CLOSE_H_
#define ENVFLEET_FAMILIES_METAWORLD_DRAWER_CLOSE_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class DrawerClose : public Task<DrawerClose> {
 public:
  static inline const TaskConstants kTask = {
      "drawer-close-v3",
      "sawyer_xyz/sawyer_drawer.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {-0.1, 0.9, 0.0},  // random reset space: the drawer
      {0.1, 0.9, 0.0},
      {{-0.5, 0.40, 0.05}},  // goal_space (hand_low, hand_high)
      {{0.5, 1, 0.5}},
  };

  DrawerClose(const Config& config, uint64_t seed)
      : Task(config, seed),
        drawer_body_(Body("drawer")),
        drawer_link_(Body("drawer_link")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    SetBodyPos(drawer_body_, obj_init_pos_);
    target_pos_ = obj_init_pos_ + Vec3{{0.0, -0.16, 0.09}};
    // _set_obj_xyz(-maxDist): the drawer pulled out all the way (its velocity left as is).
    data_->qpos[9] = -kMaxDist;
    Forward();
    obj_init_pos_ = HandlePos();
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 handle = HandlePos();
    for (int k = 0; k < 3; ++k) pos[k] = handle[k];
    for (int k = 0; k < 4; ++k) quat[k] = 0.0;
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    // The reference reads SawyerXYZEnv.TARGET_RADIUS (0.05), not its own _TARGET_RADIUS.
    constexpr double kTargetRadius = 0.05;
    const Vec3 obj = Vec3::Of(obs + 4);
    const Vec3 tcp = TcpCenter();
    const Vec3 target = target_pos_;
    const double target_to_obj = Norm(obj - target);
    const double target_to_obj_init = Norm(obj_init_pos_ - target);
    const double in_place =
        Tolerance(target_to_obj, 0, kTargetRadius, std::abs(target_to_obj_init - kTargetRadius));
    constexpr double kHandleReachRadius = 0.005;
    const double tcp_to_obj = Norm(obj - tcp);
    const double tcp_to_obj_init = Norm(obj_init_pos_ - init_tcp_);
    const double reach_tolerance =
        Tolerance(tcp_to_obj, 0, kHandleReachRadius, std::abs(tcp_to_obj_init - kHandleReachRadius),
                  Sigmoid::kGaussian);
    // min(max(0, action[-1]), 1): the np.float32 effort when in (0, 1], which makes the reach
    // and the reward float32.
    const Np gripper_closed = PyMin(PyMax(Np(0.0), Np::F32(action[3])), Np(1.0));
    const Np reach = HamacherProduct(reach_tolerance, gripper_closed);
    Np reward = HamacherProduct(reach, in_place);
    if (target_to_obj <= kTargetRadius + 0.015) reward = Np(1.0);
    reward = reward * Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = target_to_obj <= kTargetRadius + 0.015;
    e.near_object = tcp_to_obj <= 0.01;
    e.grasp_success = 1.0;
    e.grasp_reward = reach.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  static constexpr double kMaxDist = 0.15;  // maxDist
  // _get_pos_objects: the handle, off drawer_link's position.
  Vec3 HandlePos() const { return BodyPos(drawer_link_) + Vec3{{0.0, -0.16, 0.05}}; }
  int drawer_body_, drawer_link_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_DRAWER_CLOSE_H_
