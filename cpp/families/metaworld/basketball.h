// basketball-v3: dunk a ball into a hoop (metaworld/envs/sawyer_basketball_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_BASKETBALL_H_
#define ENVFLEET_FAMILIES_METAWORLD_BASKETBALL_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class Basketball : public Task<Basketball> {
 public:
  static inline const TaskConstants kTask = {
      "basketball-v3",
      "sawyer_xyz/sawyer_basketball.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {-0.1, 0.6, 0.0299, -0.1, 0.85, 0.0},  // random reset space: the ball, the hoop
      {0.1, 0.7, 0.0301, 0.1, 0.9 + 1e-7, 0.0},
      // goal_space: goal_low/high + (0, -0.083, 0.2499 / 0.2501)
      {{-0.1 + 0, 0.85 + -0.083, 0.0 + 0.2499}},
      {{0.1 + 0, 0.9 + 1e-7 + -0.083, 0.0 + 0.2501}},
  };

  Basketball(const Config& config, uint64_t seed)
      : Task(config, seed),
        ball_body_(Body("bsktball")),
        hoop_body_(Body("basket_goal")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // The ball and the hoop are redrawn until they are 0.15 apart in the plane.
    const std::vector<double>* rand_vec = &StateRandVec();
    while (Norm2(Vec3{{(*rand_vec)[0] - (*rand_vec)[3], (*rand_vec)[1] - (*rand_vec)[4], 0}}) <
           0.15) {
      CheckRedraw("the ball and the hoop are 0.15 apart");
      rand_vec = &StateRandVec();
    }
    // The height: init_config's np.float32 0.03, kept from reset to reset.
    obj_init_pos_ = Vec3{{(*rand_vec)[0], (*rand_vec)[1], static_cast<double>(0.03f)}};
    SetBodyPos(hoop_body_, Vec3{{(*rand_vec)[3], (*rand_vec)[4], (*rand_vec)[5]}});
    SetObjXyz(obj_init_pos_);
    // _target_pos is a live view of the goal site's position (data.site("goal").xpos); the
    // site's model position (relative to the hoop) is set to its world position here, so the
    // goal moves with each reset and after the next mj_forward.
    SetSitePos(goal_site_, SitePos(goal_site_));
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 ball = BodyPos(ball_body_);
    for (int k = 0; k < 3; ++k) pos[k] = ball[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(ball_body_)[k];
    return 1;
  }

  Vec3 GoalPos() override { return SitePos(goal_site_); }  // _target_pos: the live view

  Evaluation Evaluate(const double* obs, const float* action) override {
    const Vec3 obj = Vec3::Of(obs + 4);
    Vec3 target = SitePos(goal_site_);
    target[2] = 0.3;                       // slightly above the hoop
    const Vec3 scale = {{1.0, 1.0, 2.0}};  // emphasizes the z error
    const double target_to_obj = Norm((obj - target) * scale);
    const double target_to_obj_init = Norm((obj_init_pos_ - target) * scale);
    const double in_place = Tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Norm(obj - TcpCenter());
    Np object_grasped = GripperCagingReward(action, obj, 0.025, 0.06, 0.01, 0.005, 1.0,
                                            /*high_density=*/true);
    const bool lifted = tcp_to_obj < 0.035 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2];
    if (lifted) object_grasped = Np(1.0);
    Np reward = HamacherProduct(object_grasped, in_place);
    if (lifted) reward = reward + Np(1.0 + 5.0 * in_place);
    if (target_to_obj < kTargetRadius) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = target_to_obj <= kTargetRadius;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = tcp_opened > 0 && obj[2] - 0.03 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  static constexpr double kTargetRadius = 0.08;
  int ball_body_, hoop_body_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_BASKETBALL_H_
