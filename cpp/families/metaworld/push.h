// push-v3: push a puck to a goal on the table (metaworld/envs/sawyer_push_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_PUSH_H_
#define ENVFLEET_FAMILIES_METAWORLD_PUSH_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class Push : public Task<Push> {
 public:
  static inline const TaskConstants kTask = {
      "push-v3",
      "sawyer_xyz/sawyer_push_v3.xml",
      {{-0.5, 0.40, 0.05}},                // hand_low
      {{0.5, 1, 0.5}},                     // hand_high
      {{-0.5, 0.40, 0.05}},                // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                     // mocap_high (hand_high)
      {{0.0, 0.6, 0.2}},                   // hand_init_pos
      {-0.1, 0.6, 0.02, -0.1, 0.8, 0.01},  // random reset space: object, goal
      {0.1, 0.7, 0.02, 0.1, 0.9, 0.02},
      {{-0.1, 0.8, 0.01}},  // goal_space
      {{0.1, 0.9, 0.02}},
  };

  Push(const Config& config, uint64_t seed)
      : Task(config, seed),
        obj_body_(Body("obj")),
        obj_geom_(Geom("objGeom")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // fix_extreme_obj_pos: only the height of the object's body (after the hand reset) is kept.
    const double obj_z = BodyPos(obj_body_)[2];
    // The object and the goal are redrawn until they are 0.15 apart in the plane.
    const std::vector<double>* rand_vec = &StateRandVec();
    while (Norm2(Vec3{{(*rand_vec)[0] - (*rand_vec)[3], (*rand_vec)[1] - (*rand_vec)[4], 0}}) <
           0.15) {
      CheckRedraw("the object and the goal are 0.15 apart");
      rand_vec = &StateRandVec();
    }
    target_pos_ = Vec3{{(*rand_vec)[3], (*rand_vec)[4], obj_z}};
    obj_init_pos_ = Vec3{{(*rand_vec)[0], (*rand_vec)[1], obj_z}};
    SetObjXyz(obj_init_pos_);
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 obj = BodyPos(obj_body_);
    for (int k = 0; k < 3; ++k) pos[k] = obj[k];
    QuatFromMatrix(GeomXmat(obj_geom_), quat);
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    constexpr double kTargetRadius = 0.05;
    const Vec3 obj = Vec3::Of(obs + 4);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Norm(obj - TcpCenter());
    const double target_to_obj = Norm(obj - target_pos_);
    const double target_to_obj_init = Norm(obj_init_pos_ - target_pos_);
    const double in_place = Tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init);
    // May be an np.float32 (the gripper effort): the reward follows it.
    const Np object_grasped = GripperCagingReward(action, obj, 0.015, 0.05, 0.01, 0.005, 1.0,
                                                  /*high_density=*/true);
    Np reward = Np(2.0) * object_grasped;
    if (tcp_to_obj < 0.02 && tcp_opened > 0) {
      // reward += 1.0 + reward + 5.0 * in_place
      reward = reward + ((Np(1.0) + reward) + Np(5.0 * in_place));
    }
    if (target_to_obj < kTargetRadius) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = target_to_obj <= kTargetRadius;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success =
        TouchingObject(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  int obj_body_, obj_geom_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_PUSH_H_
