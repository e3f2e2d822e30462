// lever-pull-v3: lift a lever to point straight up (metaworld/envs/sawyer_lever_pull_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_LEVER_PULL_H_
#define ENVFLEET_FAMILIES_METAWORLD_LEVER_PULL_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class LeverPull : public Task<LeverPull> {
 public:
  static inline const TaskConstants kTask = {
      "lever-pull-v3",
      "sawyer_xyz/sawyer_lever_pull.xml",
      {{-0.5, 0.40, -0.15}},  // hand_low
      {{0.5, 1, 0.5}},        // hand_high
      {{-0.5, 0.40, -0.15}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},        // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.4f), static_cast<double>(0.2f)}},
      {-0.1, 0.7, 0.0},  // random reset space: the lever
      {0.1, 0.8, 0.0},
      {{-0.5, 0.40, -0.15}},  // goal_space (hand_low, hand_high)
      {{0.5, 1, 0.5}},
  };

  LeverPull(const Config& config, uint64_t seed)
      : Task(config, seed),
        lever_body_(Body("lever")),
        lever_site_(Site("leverStart")),
        obj_geom_(Geom("objGeom")),
        goal_site_(Site("goal")),
        lever_qpos_(model()->jnt_qposadr[Joint("LeverAxis")]) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    SetBodyPos(lever_body_, obj_init_pos_);
    lever_pos_init_ = obj_init_pos_ + Vec3{{0.12, -kLeverRadius, 0.25}};
    target_pos_ = obj_init_pos_ + Vec3{{0.12, 0.0, 0.25 + kLeverRadius}};
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 lever = SitePos(lever_site_);
    for (int k = 0; k < 3; ++k) pos[k] = lever[k];
    QuatFromMatrix(GeomXmat(obj_geom_), quat);
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    const Vec3 gripper = Vec3::Of(obs);
    const Vec3 lever = Vec3::Of(obs + 4);
    // De-emphasized y error; the offset puts the Sawyer's shoulder under the lever.
    const Vec3 scale = {{4.0, 1.0, 4.0}};
    const Vec3 offset = {{0.0, 0.055, 0.07}};
    const Vec3 shoulder_to_lever = (gripper + offset - lever) * scale;
    const Vec3 shoulder_to_lever_init = (init_tcp_ + offset - lever_pos_init_) * scale;
    const double shoulder_to_lever_norm = Norm(shoulder_to_lever);
    const double ready_to_lift =
        Tolerance(shoulder_to_lever_norm, 0, 0.02, Norm(shoulder_to_lever_init));
    const double lever_angle = -data_->qpos[lever_qpos_];
    const double lever_angle_desired = M_PI / 2.0;
    const double lever_error = std::abs(lever_angle - lever_angle_desired);
    const double lever_engagement =
        Tolerance(lever_error, 0, M_PI / 48.0, (M_PI / 2.0) - (M_PI / 12.0));
    const Vec3 target = target_pos_;
    const double obj_to_target = Norm(lever - target);
    const double in_place_margin = Norm(lever_pos_init_ - target);
    const double in_place = Tolerance(obj_to_target, 0, 0.04, in_place_margin);
    Evaluation e;
    e.reward = 10.0 * HamacherProduct(ready_to_lift, in_place).v;
    e.success = lever_error <= M_PI / 24;
    e.near_object = shoulder_to_lever_norm < 0.03;
    e.grasp_success = ready_to_lift > 0.9;
    e.grasp_reward = ready_to_lift;
    e.in_place_reward = lever_engagement;
    e.obj_to_target = shoulder_to_lever_norm;
    return e;
  }

 private:
  static constexpr double kLeverRadius = 0.2;  // LEVER_RADIUS
  int lever_body_, lever_site_, obj_geom_, goal_site_, lever_qpos_;
  Vec3 lever_pos_init_;  // _lever_pos_init
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_LEVER_PULL_H_
