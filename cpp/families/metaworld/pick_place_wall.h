// pick-place-wall-v3: pick a puck up and place it behind a wall
// (metaworld/envs/sawyer_pick_place_wall_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_PICK_PLACE_WALL_H_
#define ENVFLEET_FAMILIES_METAWORLD_PICK_PLACE_WALL_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class PickPlaceWall : public Task<PickPlaceWall> {
 public:
  static inline const TaskConstants kTask = {
      "pick-place-wall-v3",
      "sawyer_xyz/sawyer_pick_place_wall_v3.xml",
      {{-0.5, 0.40, 0.05}},                    // hand_low
      {{0.5, 1, 0.5}},                         // hand_high
      {{-0.5, 0.40, 0.05}},                    // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                         // mocap_high (hand_high)
      {{0, 0.6, 0.2}},                         // hand_init_pos
      {-0.05, 0.6, 0.015, -0.05, 0.85, 0.05},  // random reset space: object, goal
      {0.05, 0.65, 0.015, 0.05, 0.9, 0.3},
      {{-0.05, 0.85, 0.05}},  // goal_space
      {{0.05, 0.9, 0.3}},
  };

  PickPlaceWall(const Config& config, uint64_t seed)
      : Task(config, seed), obj_geom_(Geom("objGeom")), goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // The object and the goal are redrawn until they are 0.15 apart in the plane.
    const std::vector<double>* rand_vec = &StateRandVec();
    while (Norm2(Vec3{{(*rand_vec)[0] - (*rand_vec)[3], (*rand_vec)[1] - (*rand_vec)[4], 0}}) <
           0.15) {
      CheckRedraw("the object and the goal are 0.15 apart");
      rand_vec = &StateRandVec();
    }
    target_pos_ = Vec3::Of(rand_vec->data() + 3);
    obj_init_pos_ = Vec3::Of(rand_vec->data());
    SetObjXyz(obj_init_pos_);
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 obj = GeomPos(obj_geom_);
    for (int k = 0; k < 3; ++k) pos[k] = obj[k];
    QuatFromMatrix(GeomXmat(obj_geom_), quat);
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    constexpr double kTargetRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = Vec3::Of(obs + 4);
    const double tcp_opened = obs[3];
    const Vec3 midpoint = {{target_pos_[0], 0.77, 0.25}};
    const Vec3 in_place_scaling = {{1.0, 1.0, 3.0}};
    const double tcp_to_obj = Norm(obj - tcp);
    const double obj_to_midpoint = Norm((obj - midpoint) * in_place_scaling);
    const double obj_to_midpoint_init = Norm((obj_init_pos_ - midpoint) * in_place_scaling);
    const double obj_to_target = Norm(obj - target_pos_);
    const double obj_to_target_init = Norm(obj_init_pos_ - target_pos_);
    const double in_place_part1 =
        Tolerance(obj_to_midpoint, 0, kTargetRadius, obj_to_midpoint_init);
    const double in_place_part2 = Tolerance(obj_to_target, 0, kTargetRadius, obj_to_target_init);
    // May be an np.float32 (the gripper effort): the reward follows it.
    const Np object_grasped = GripperCagingReward(action, obj, 0.015, 0.05, 0.01, 0.005);
    const Np in_place_and_object_grasped = HamacherProduct(object_grasped, in_place_part1);
    Np reward = in_place_and_object_grasped;
    if (tcp_to_obj < 0.02 && tcp_opened > 0 && obj[2] - 0.015 > obj_init_pos_[2]) {
      reward = in_place_and_object_grasped + Np(1.0) + Np(4.0 * in_place_part1);
      if (obj[1] > 0.75) {
        reward = in_place_and_object_grasped + Np(1.0) + Np(4.0) + Np(3.0 * in_place_part2);
      }
    }
    if (obj_to_target < kTargetRadius) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success =
        TouchingObject(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place_part2;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int obj_geom_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_PICK_PLACE_WALL_H_
