// bin-picking-v3: move a cube from one bin to the other
// (metaworld/envs/sawyer_bin_picking_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_BIN_PICKING_H_
#define ENVFLEET_FAMILIES_METAWORLD_BIN_PICKING_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class BinPicking : public Task<BinPicking> {
 public:
  static inline const TaskConstants kTask = {
      "bin-picking-v3",
      "sawyer_xyz/sawyer_bin_picking.xml",
      {{-0.5, 0.40, 0.07}},                        // hand_low
      {{0.5, 1, 0.5}},                             // hand_high
      {{-0.5, 0.40, 0.07}},                        // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                             // mocap_high (hand_high)
      {{0, 0.6, 0.2}},                             // hand_init_pos
      {-0.21, 0.65, 0.02, 0.1199, 0.699, -0.001},  // random reset space: object, goal
      {-0.03, 0.75, 0.02, 0.1201, 0.701, +0.001},
      {{0.1199, 0.699, -0.001}},  // goal_space
      {{0.1201, 0.701, +0.001}},
  };

  BinPicking(const Config& config, uint64_t seed)
      : Task(config, seed), obj_body_(Body("obj")), bin_goal_body_(Body("bin_goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    const double obj_height = BodyPos(obj_body_)[2];
    const std::vector<double>& rand_vec = StateRandVec();
    obj_init_pos_ = Vec3{{rand_vec[0], rand_vec[1], obj_height}};
    SetObjXyz(obj_init_pos_);
    // _target_pos: a live view of the goal bin's position (a body without joints: it stays).
    target_pos_ = BodyPos(bin_goal_body_);
    target_to_obj_init_set_ = false;  // _target_to_obj_init = None: set at the first step
  }

  Vec3 GoalPos() override { return BodyPos(bin_goal_body_); }

  int Objects(double* pos, double* quat) override {
    const Vec3 obj = BodyPos(obj_body_);
    for (int k = 0; k < 3; ++k) pos[k] = obj[k];
    const double* xquat = BodyQuat(obj_body_);  // data.body("obj").xquat: (w, x, y, z)
    for (int k = 0; k < 4; ++k) quat[k] = xquat[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    constexpr double kTargetRadius = 0.05;  // self.TARGET_RADIUS
    const Vec3 hand = Vec3::Of(obs);
    const Vec3 obj = Vec3::Of(obs + 4);
    const Vec3 target = BodyPos(bin_goal_body_);
    const double target_to_obj = Norm(obj - target);
    if (!target_to_obj_init_set_) {
      target_to_obj_init_ = target_to_obj;
      target_to_obj_init_set_ = true;
    }
    const double in_place = Tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init_);
    constexpr double threshold = 0.03;
    // The floor is a pair of funnels, around the object's start and the goal; np.log is
    // NumPy's (SVML where it runs); min() keeps the first of equals.
    const double radii[2] = {Norm2(hand - obj_init_pos_), Norm2(hand - target)};
    double floor = 0;
    for (int i = 0; i < 2; ++i) {
      const double f =
          radii[i] > threshold ? 0.02 * numpy_math::NpLog(radii[i] - threshold) + 0.2 : 0.0;
      if (i == 0 || f < floor) floor = f;
    }
    double above_floor = 1.0;
    if (!(hand[2] >= floor)) {
      const double below = floor - hand[2];
      above_floor = Tolerance(0.0 > below ? 0.0 : below, 0.0, 0.01, 0.05);
    }
    // May be an np.float32 (the gripper effort): the reward follows it.
    const Np object_grasped =
        GripperCagingReward(action, obj, 0.015, 0.05, 0.01, 0.01, 0.7, /*high_density=*/true);
    Np reward = HamacherProduct(object_grasped, in_place);
    const bool near_object = Norm(obj - hand) < 0.04;
    const bool pinched_without_obj = obs[3] < 0.43;
    const bool lifted = obj[2] - 0.02 > obj_init_pos_[2];
    const bool grasp_success = near_object && lifted && !pinched_without_obj;
    if (grasp_success) {
      reward = reward + Np(1.0 + 5.0 * HamacherProduct(above_floor, in_place).v);
    }
    if (target_to_obj < kTargetRadius) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = target_to_obj <= 0.05;
    e.near_object = near_object;
    e.grasp_success = grasp_success;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  int obj_body_, bin_goal_body_;
  bool target_to_obj_init_set_ = false;
  double target_to_obj_init_ = 0;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_BIN_PICKING_H_
