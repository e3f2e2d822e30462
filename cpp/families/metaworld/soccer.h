// soccer-v3: push a ball into a goal (metaworld/envs/sawyer_soccer_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_SOCCER_H_
#define ENVFLEET_FAMILIES_METAWORLD_SOCCER_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class Soccer : public Task<Soccer> {
 public:
  static inline const TaskConstants kTask = {
      "soccer-v3",
      "sawyer_xyz/sawyer_soccer.xml",
      {{-0.5, 0.40, 0.05}},               // hand_low
      {{0.5, 1, 0.5}},                    // hand_high
      {{-0.5, 0.40, 0.05}},               // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                    // mocap_high (hand_high)
      {{0.0, 0.6, 0.2}},                  // hand_init_pos
      {-0.1, 0.6, 0.03, -0.1, 0.8, 0.0},  // random reset space: ball, goal
      {0.1, 0.7, 0.03, 0.1, 0.9, 0.0},
      {{-0.1, 0.8, 0.0}},  // goal_space
      {{0.1, 0.9, 0.0}},
  };

  Soccer(const Config& config, uint64_t seed)
      : Task(config, seed),
        ball_body_(Body("soccer_ball")),
        goal_body_(Body("goal_whole")),
        goal_site_(Site("goal")),
        obj_geom_(Geom("objGeom")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // The ball and the goal are redrawn until they are 0.15 apart in the plane.
    const std::vector<double>* goal_pos = &StateRandVec();
    target_pos_ = Vec3::Of(goal_pos->data() + 3);
    while (Norm2(Vec3{{(*goal_pos)[0] - target_pos_[0], (*goal_pos)[1] - target_pos_[1], 0}}) <
           0.15) {
      CheckRedraw("the ball and the goal are 0.15 apart");
      goal_pos = &StateRandVec();
      target_pos_ = Vec3::Of(goal_pos->data() + 3);
    }
    // The height is the previous obj_init_pos's: init_config's 0.03 at first, and 0.03 kept.
    obj_init_pos_ = Vec3{{(*goal_pos)[0], (*goal_pos)[1], 0.03}};
    SetBodyPos(goal_body_, target_pos_);
    SetObjXyz(obj_init_pos_);
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 ball = BodyPos(ball_body_);
    for (int k = 0; k < 3; ++k) pos[k] = ball[k];
    QuatFromMatrix(BodyXmat(ball_body_), quat);
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    const Vec3 obj = Vec3::Of(obs + 4);
    const double tcp_opened = obs[3];
    const Vec3 x_scaling{{3.0, 1.0, 1.0}};
    const double tcp_to_obj = Norm(obj - TcpCenter());
    const double target_to_obj = Norm((obj - target_pos_) * x_scaling);
    const double target_to_obj_init = Norm((obj - obj_init_pos_) * x_scaling);
    double in_place = Tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init);
    const double goal_line = target_pos_[1] - 0.1;
    if (obj[1] > goal_line && std::abs(obj[0] - target_pos_[0]) > 0.10) {
      in_place =
          numpy_math::NpClip(in_place - 2 * ((obj[1] - goal_line) / (1 - goal_line)), 0.0, 1.0);
    }
    const double object_grasped = CagingReward(obj, kObjRadius);
    double reward = (3 * object_grasped) + (6.5 * in_place);
    if (target_to_obj < kTargetRadius) reward = 10.0;
    Evaluation e;
    e.reward = reward;
    e.success = Norm(obj - target_pos_) <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success =
        TouchingObject(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = Norm(obj - target_pos_);
    return e;
  }

 private:
  static constexpr double kObjRadius = 0.013;
  static constexpr double kTargetRadius = 0.07;

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

  int ball_body_, goal_body_, goal_site_, obj_geom_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_SOCCER_H_
