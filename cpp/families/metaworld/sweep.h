// sweep-v3: sweep a block off the table's edge (metaworld/envs/sawyer_sweep_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_SWEEP_H_
#define ENVFLEET_FAMILIES_METAWORLD_SWEEP_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class Sweep : public Task<Sweep> {
 public:
  static inline const TaskConstants kTask = {
      "sweep-v3",           "sawyer_xyz/sawyer_sweep_v3.xml",
      {{-0.5, 0.40, 0.05}},                       // hand_low
      {{0.5, 1.0, 0.5}},                          // hand_high
      {{-0.5, 0.40, 0.05}},                       // mocap_low (hand_low)
      {{0.5, 1.0, 0.5}},                          // mocap_high (hand_high)
      {{0.0, 0.6, 0.2}},                          // hand_init_pos
      {-0.1, 0.6, 0.02},                          // random reset space: the block
      {0.1, 0.7, 0.02},     {{0.49, 0.6, 0.00}},  // goal_space
      {{0.51, 0.7, 0.02}},
  };

  Sweep(const Config& config, uint64_t seed)
      : Task(config, seed),
        obj_body_(Body("obj")),
        obj_geom_(Geom("objGeom")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    target_pos_ = Vec3{{0.5, 0.65, 0.01}};  // self.goal
    const std::vector<double>& obj_pos = StateRandVec();
    // The block's height is init_config's obj_init_pos[-1].
    obj_init_pos_ = Vec3{{obj_pos[0], obj_pos[1], 0.02}};
    target_pos_[1] = obj_pos[1];
    SetObjXyz(obj_init_pos_);
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 obj = BodyPos(obj_body_);
    for (int k = 0; k < 3; ++k) pos[k] = obj[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(obj_body_)[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    constexpr double kTargetRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = Vec3::Of(obs + 4);
    const double tcp_opened = obs[3];
    const Vec3 target = target_pos_;
    const double obj_to_target = Norm(obj - target);
    const double tcp_to_obj = Norm(obj - tcp);
    const double in_place_margin = Norm(obj_init_pos_ - target);
    const double in_place = Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin);
    const double object_grasped = CagingReward(obj, kObjRadius);
    const double in_place_and_object_grasped = HamacherProduct(object_grasped, in_place).v;
    double reward = (2 * object_grasped) + (6 * in_place_and_object_grasped);
    if (obj_to_target < kTargetRadius) reward = 10.0;
    Evaluation e;
    e.reward = reward;
    e.success = obj_to_target <= 0.05;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = TouchingObject(obj_geom_) && tcp_opened > 0;
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  static constexpr double kObjRadius = 0.02;

  // The task's own _gripper_caging_reward (the action unused): Python floats throughout.
  // init_left_pad / init_right_pad are live views, so they are the pads' current positions.
  double CagingReward(const Vec3& obj_pos, double obj_radius) const {
    constexpr double kPadSuccessMargin = 0.05;
    const double grip_success_margin = obj_radius + 0.01;
    constexpr double kXzSuccessMargin = 0.005;
    const Vec3 tcp = TcpCenter();
    const Vec3 left_pad = LeftPad(), right_pad = RightPad();
    const double delta_left = left_pad[1] - obj_pos[1];
    const double delta_right = obj_pos[1] - right_pad[1];
    const double right_margin = std::abs(std::abs(obj_pos[1] - right_pad[1]) - kPadSuccessMargin);
    const double left_margin = std::abs(std::abs(obj_pos[1] - left_pad[1]) - kPadSuccessMargin);
    const double right_caging = Tolerance(delta_right, obj_radius, kPadSuccessMargin, right_margin);
    const double left_caging = Tolerance(delta_left, obj_radius, kPadSuccessMargin, left_margin);
    const double right_gripping =
        Tolerance(delta_right, obj_radius, grip_success_margin, right_margin);
    const double left_gripping =
        Tolerance(delta_left, obj_radius, grip_success_margin, left_margin);
    const double y_caging = HamacherProduct(right_caging, left_caging).v;
    const double y_gripping = HamacherProduct(right_gripping, left_gripping).v;
    // x + [0, -x[1], 0]: the y coordinate x[1] + -x[1].
    const Vec3 tcp_xz{{tcp[0], tcp[1] + -tcp[1], tcp[2]}};
    const Vec3 obj_xz{{obj_pos[0], obj_pos[1] + -obj_pos[1], obj_pos[2]}};
    const double tcp_obj_norm_xz = Norm(tcp_xz - obj_xz);
    const Vec3 init_obj_xz{
        {obj_init_pos_[0], obj_init_pos_[1] + -obj_init_pos_[1], obj_init_pos_[2]}};
    const Vec3 init_tcp_xz{{init_tcp_[0], init_tcp_[1] + -init_tcp_[1], init_tcp_[2]}};
    const double xz_margin = Norm(init_obj_xz - init_tcp_xz) - kXzSuccessMargin;
    const double xz_caging = Tolerance(tcp_obj_norm_xz, 0, kXzSuccessMargin, xz_margin);
    const double caging = HamacherProduct(y_caging, xz_caging).v;
    const double gripping = caging > 0.95 ? y_gripping : 0.0;
    return (caging + gripping) / 2;
  }

  int obj_body_, obj_geom_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_SWEEP_H_
