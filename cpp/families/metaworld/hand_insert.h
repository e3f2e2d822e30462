// hand-insert-v3: push a block into a hole in the table (metaworld/envs/sawyer_hand_insert_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_HAND_INSERT_H_
#define ENVFLEET_FAMILIES_METAWORLD_HAND_INSERT_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class HandInsert : public Task<HandInsert> {
 public:
  static inline const TaskConstants kTask = {
      "hand-insert-v3",
      "sawyer_xyz/sawyer_table_with_hole.xml",
      {{-0.5, 0.40, -0.15}},  // hand_low
      {{0.5, 1, 0.5}},        // hand_high
      {{-0.5, 0.40, -0.15}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},        // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {-0.1, 0.6, 0.05, -0.04, 0.8, -0.0201},  // random reset space: the block, the goal
      {0.1, 0.7, 0.05, 0.04, 0.88, -0.0199},
      {{-0.04, 0.8, -0.0201}},  // goal_space
      {{0.04, 0.88, -0.0199}},
  };

  HandInsert(const Config& config, uint64_t seed)
      : Task(config, seed),
        obj_body_(Body("obj")),
        obj_geom_(Geom("objGeom")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // The block and the goal are redrawn until they are 0.15 apart in the plane.
    const std::vector<double>* rand_vec = &StateRandVec();
    while (Norm2(Vec3{{(*rand_vec)[0] - (*rand_vec)[3], (*rand_vec)[1] - (*rand_vec)[4], 0}}) <
           0.15) {
      CheckRedraw("the block and the goal are 0.15 apart");
      rand_vec = &StateRandVec();
    }
    // The height: init_config's 0.05, kept from reset to reset.
    obj_init_pos_ = Vec3{{(*rand_vec)[0], (*rand_vec)[1], 0.05}};
    target_pos_ = Vec3{{(*rand_vec)[3], (*rand_vec)[4], (*rand_vec)[5]}};
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
    const Vec3 obj = Vec3::Of(obs + 4);
    const double target_to_obj = Norm(obj - target_pos_);
    const double target_to_obj_init = Norm(obj_init_pos_ - target_pos_);
    const double in_place = Tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init);
    const Np object_grasped = GripperCagingReward(action, obj, 0.015, 0.05, 0.01, 0.005, 1.0,
                                                  /*high_density=*/true);
    Np reward = HamacherProduct(object_grasped, in_place);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Norm(obj - TcpCenter());
    if (tcp_to_obj < 0.02 && tcp_opened > 0) reward = reward + Np(1.0 + 7.0 * in_place);
    if (target_to_obj < kTargetRadius) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = target_to_obj <= 0.05;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success =
        TouchingObject(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  static constexpr double kTargetRadius = 0.05;
  int obj_body_, obj_geom_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_HAND_INSERT_H_
