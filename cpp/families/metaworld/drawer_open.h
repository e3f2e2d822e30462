// drawer-open-v3: pull a drawer open by its handle (metaworld/envs/sawyer_drawer_open_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_DRAWER_OPEN_H_
#define ENVFLEET_FAMILIES_METAWORLD_DRAWER_OPEN_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class DrawerOpen : public Task<DrawerOpen> {
 public:
  static inline const TaskConstants kTask = {
      "drawer-open-v3",
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

  DrawerOpen(const Config& config, uint64_t seed)
      : Task(config, seed),
        drawer_body_(Body("drawer")),
        drawer_link_(Body("drawer_link")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    SetBodyPos(drawer_body_, obj_init_pos_);
    // The closed drawer's handle, pulled out by maxDist.
    target_pos_ = obj_init_pos_ + Vec3{{0.0, -0.16 - kMaxDist, 0.09}};
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 handle = BodyPos(drawer_link_) + Vec3{{0.0, -0.16, 0.0}};
    for (int k = 0; k < 3; ++k) pos[k] = handle[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(drawer_link_)[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    const Vec3 gripper = Vec3::Of(obs);
    const Vec3 handle = Vec3::Of(obs + 4);
    const double handle_error = Norm(handle - target_pos_);
    const double reward_for_opening = Tolerance(handle_error, 0, 0.02, kMaxDist);
    const Vec3 handle_pos_init = target_pos_ + Vec3{{0.0, kMaxDist, 0.0}};
    // XY error emphasized, so that the gripper drops down and cages the handle.
    const Vec3 scale = {{3.0, 3.0, 1.0}};
    const Vec3 gripper_error = (handle - gripper) * scale;
    const Vec3 gripper_error_init = (handle_pos_init - init_tcp_) * scale;
    const double reward_for_caging =
        Tolerance(Norm(gripper_error), 0, 0.01, Norm(gripper_error_init));
    double reward = reward_for_caging + reward_for_opening;
    reward *= 5.0;
    Evaluation e;
    e.reward = reward;
    e.success = handle_error <= 0.03;
    e.near_object = Norm(handle - gripper) <= 0.03;
    e.grasp_success = obs[3] > 0;
    e.grasp_reward = reward_for_caging;
    e.in_place_reward = reward_for_opening;
    e.obj_to_target = handle_error;
    return e;
  }

 private:
  static constexpr double kMaxDist = 0.2;  // maxDist
  int drawer_body_, drawer_link_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_DRAWER_OPEN_H_
