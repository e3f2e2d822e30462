// hammer-v3: hammer a nail in (metaworld/envs/sawyer_hammer_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_HAMMER_H_
#define ENVFLEET_FAMILIES_METAWORLD_HAMMER_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class Hammer : public Task<Hammer> {
 public:
  static inline const TaskConstants kTask = {
      "hammer-v3",
      "sawyer_xyz/sawyer_hammer.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      {{0, 0.4, 0.2}},       // hand_init_pos
      {-0.1, 0.4, 0.0},      // random reset space: the hammer
      {0.1, 0.5, 0.0},
      {{0.2399, 0.7399, 0.109}},  // goal_space
      {{0.2401, 0.7401, 0.111}},
  };

  Hammer(const Config& config, uint64_t seed)
      : Task(config, seed),
        hammer_body_(Body("hammer")),
        nail_body_(Body("nail_link")),
        box_body_(Body("box")),
        goal_site_(Site("goal")),
        nail_qpos_(model()->jnt_qposadr[Joint("NailSlideJoint")]) {}

 protected:
  void ResetModel() override {
    ResetHand();
    SetBodyPos(box_body_, Vec3{{0.24, 0.85, 0.0}});
    // Read before any mj_forward: the goal where the last simulation step left it.
    target_pos_ = SitePos(goal_site_);
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    SetObjXyz(obj_init_pos_);  // _set_hammer_xyz
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 hammer = BodyPos(hammer_body_), nail = BodyPos(nail_body_);
    for (int k = 0; k < 3; ++k) pos[k] = hammer[k], pos[3 + k] = nail[k];
    for (int k = 0; k < 4; ++k) {
      quat[k] = BodyQuat(hammer_body_)[k];
      quat[4 + k] = BodyQuat(nail_body_)[k];
    }
    return 2;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    const Vec3 hand = Vec3::Of(obs);
    const Vec3 hammer = Vec3::Of(obs + 4);
    const Vec3 hammer_head = hammer + Vec3{{0.16, 0.06, 0.0}};
    // The caging reward's object: the hammer with the hand's x along the handle.
    Vec3 hammer_threshed = hammer;
    constexpr double kThreshold = kHammerHandleLength / 2.0;
    if (std::abs(hammer[0] - hand[0]) < kThreshold) hammer_threshed[0] = hand[0];
    const double reward_quat = RewardQuat(obs);
    const Np reward_grab = GripperCagingReward(action, hammer_threshed, 0.015, 0.02, 0.01, 0.01,
                                               1.0, /*high_density=*/true);
    // _reward_pos: the head at the nail.
    const bool lifted = hammer_head[2] > 0.02;
    const double reward_in_place =
        0.1 * (lifted ? 1.0 : 0.0) + 0.9 * Tolerance(Norm(target_pos_ - hammer_head), 0, 0.02, 0.2);
    // reward_grab may be an np.float32 (the gripper effort): the reward is then float32.
    Np reward = (Np(2.0) * reward_grab + Np(6.0) * Np(reward_in_place)) * Np(reward_quat);
    const bool success = data_->qpos[nail_qpos_] > 0.09;
    if (success && reward.v > 5.0) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = success;
    e.near_object = reward_quat;
    e.grasp_success = reward_grab.v >= 0.5;
    e.grasp_reward = reward_grab.v;
    e.in_place_reward = reward_in_place;
    e.obj_to_target = 0.0;
    return e;
  }

 private:
  static constexpr double kHammerHandleLength = 0.14;

  // _reward_quat: how near the hammer's quaternion is to lying flat.
  static double RewardQuat(const double* obs) {
    const double ideal[4] = {1.0, 0.0, 0.0, 0.0};
    double diff[4];
    for (int k = 0; k < 4; ++k) diff[k] = obs[7 + k] - ideal[k];
    const double error = Norm(diff, 4);
    const double value = 1.0 - error / 0.4;
    return 0.0 > value ? 0.0 : value;  // max(value, 0.0)
  }

  int hammer_body_, nail_body_, box_body_, goal_site_, nail_qpos_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_HAMMER_H_
