// pick-out-of-hole-v3: pick a peg out of a hole and lift it to a goal
// (metaworld/envs/sawyer_pick_out_of_hole_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_PICK_OUT_OF_HOLE_H_
#define ENVFLEET_FAMILIES_METAWORLD_PICK_OUT_OF_HOLE_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class PickOutOfHole : public Task<PickOutOfHole> {
 public:
  static inline const TaskConstants kTask = {
      "pick-out-of-hole-v3",
      "sawyer_xyz/sawyer_pick_out_of_hole.xml",
      {{-0.5, 0.40, -0.05}},             // hand_low
      {{0.5, 1, 0.5}},                   // hand_high
      {{-0.5, 0.40, -0.05}},             // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                   // mocap_high (hand_high)
      {{0.0, 0.6, 0.2}},                 // hand_init_pos
      {0, 0.75, 0.02, -0.1, 0.5, 0.15},  // random reset space: object, goal
      {0, 0.75, 0.02, 0.1, 0.6, 0.3},
      {{-0.1, 0.5, 0.15}},  // goal_space
      {{0.1, 0.6, 0.3}},
  };

  PickOutOfHole(const Config& config, uint64_t seed)
      : Task(config, seed), obj_body_(Body("obj")), goal_site_(Site("goal")) {}

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
    obj_init_pos_ = Vec3::Of(rand_vec->data());
    SetObjXyz(obj_init_pos_);
    target_pos_ = Vec3::Of(rand_vec->data() + 3);
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 obj = BodyPos(obj_body_);
    for (int k = 0; k < 3; ++k) pos[k] = obj[k];
    const double* xquat = BodyQuat(obj_body_);  // data.body("obj").xquat: (w, x, y, z)
    for (int k = 0; k < 4; ++k) quat[k] = xquat[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    const Vec3 obj = Vec3::Of(obs + 4);
    const Vec3 gripper = TcpCenter();
    const double obj_to_target = Norm(obj - target_pos_);
    const double tcp_to_obj = Norm(obj - gripper);
    const double in_place_margin = Norm(obj_init_pos_ - target_pos_);
    constexpr double threshold = 0.03;
    // The floor is a funnel around the object's start; np.log is NumPy's (SVML where it runs).
    const double radius = Norm2(gripper - obj_init_pos_);
    const double floor =
        radius <= threshold ? 0.0 : 0.015 * numpy_math::NpLog(radius - threshold) + 0.15;
    double above_floor = 1.0;
    if (!(gripper[2] >= floor)) {
      const double below = floor - gripper[2];
      above_floor = Tolerance(0.0 > below ? 0.0 : below, 0.0, 0.01, 0.02);
    }
    // May be an np.float32 (the gripper effort): the reward follows it.
    const Np object_grasped =
        GripperCagingReward(action, obj, 0.015, 0.02, 0.01, 0.03, 0.1, /*high_density=*/true);
    const double in_place = Tolerance(obj_to_target, 0, 0.02, in_place_margin);
    Np reward = HamacherProduct(object_grasped, in_place);
    const bool near_object = tcp_to_obj < 0.04;
    const bool pinched_without_obj = obs[3] < 0.33;
    const bool lifted = obj[2] - 0.02 > obj_init_pos_[2];
    const bool grasp_success = near_object && lifted && !pinched_without_obj;
    if (grasp_success) {
      reward = reward + Np(1.0 + 5.0 * HamacherProduct(in_place, above_floor).v);
    }
    // self.TARGET_RADIUS: the base's 0.05 (the class's own _TARGET_RADIUS is 0.02).
    if (obj_to_target < 0.05) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = grasp_success;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int obj_body_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_PICK_OUT_OF_HOLE_H_
