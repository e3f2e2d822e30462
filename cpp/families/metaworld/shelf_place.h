// shelf-place-v3: pick a block up and place it on a shelf
// (metaworld/envs/sawyer_shelf_place_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_SHELF_PLACE_H_
#define ENVFLEET_FAMILIES_METAWORLD_SHELF_PLACE_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class ShelfPlace : public Task<ShelfPlace> {
 public:
  static inline const TaskConstants kTask = {
      "shelf-place-v3",
      "sawyer_xyz/sawyer_shelf_placing.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {-0.1, 0.5, 0.019, -0.1, 0.8, 0.299},  // random reset space: object, shelf's goal
      {0.1, 0.6, 0.021, 0.1, 0.9, 0.301},
      {{-0.1, 0.8, 0.299}},  // goal_space
      {{0.1, 0.9, 0.301}},
  };

  ShelfPlace(const Config& config, uint64_t seed)
      : Task(config, seed),
        obj_body_(Body("obj")),
        obj_geom_(Geom("objGeom")),
        shelf_body_(Body("shelf")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // adjust_initObjPos: only the height of the object's body (after the hand reset) is kept.
    const double obj_z = BodyPos(obj_body_)[2];
    // The object and the goal are redrawn until they are 0.1 apart in the plane.
    const std::vector<double>* rand_vec = &StateRandVec();
    while (Norm2(Vec3{{(*rand_vec)[0] - (*rand_vec)[3], (*rand_vec)[1] - (*rand_vec)[4], 0}}) <
           0.1) {
      CheckRedraw("the object and the goal are 0.1 apart");
      rand_vec = &StateRandVec();
    }
    // base_shelf_pos = goal_pos - [0, 0, 0, 0, 0, 0.3]
    const std::vector<double>& r = *rand_vec;
    const Vec3 shelf_pos = {{r[3] - 0, r[4] - 0, r[5] - 0.3}};
    obj_init_pos_ = Vec3{{r[0] - 0, r[1] - 0, obj_z}};
    SetBodyPos(shelf_body_, shelf_pos);
    Forward();
    // The goal site's position in the shelf's frame (the model's, never edited) plus the shelf's.
    target_pos_ = Vec3::Of(model()->site_pos + 3 * goal_site_) +
                  Vec3::Of(model()->body_pos + 3 * shelf_body_);
    SetObjXyz(obj_init_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 obj = BodyPos(obj_body_);
    for (int k = 0; k < 3; ++k) pos[k] = obj[k];
    QuatFromMatrix(GeomXmat(obj_geom_), quat);
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    constexpr double kTargetRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = Vec3::Of(obs + 4);
    const double tcp_opened = obs[3];
    const Vec3& target = target_pos_;
    const double obj_to_target = Norm(obj - target);
    const double tcp_to_obj = Norm(obj - tcp);
    const double in_place_margin = Norm(obj_init_pos_ - target);
    // A Python float, or an np.float64 once clipped below (which then takes the reward to
    // float64 from an np.float32).
    Np in_place = Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin);
    // May be an np.float32 (the gripper effort): the reward follows it.
    const Np object_grasped = GripperCagingReward(action, obj, 0.02, 0.05, 0.01, 0.01);
    Np reward = HamacherProduct(object_grasped, in_place);
    const bool in_front_x = target[0] - 0.15 < obj[0] && obj[0] < target[0] + 0.15;
    const bool low = 0.0 < obj[2] && obj[2] < 0.24;
    if (low && in_front_x && (target[1] - 3 * kTargetRadius) < obj[1] && obj[1] < target[1]) {
      const double z_scaling = (0.24 - obj[2]) / 0.24;
      const double y_scaling = (obj[1] - (target[1] - 3 * kTargetRadius)) / (3 * kTargetRadius);
      const Np bound_loss = HamacherProduct(Np::F64(y_scaling), Np::F64(z_scaling));
      const Np diff = in_place - bound_loss;
      in_place = Np::F64(numpy_math::NpClip(diff.v, 0.0, 1.0));
    }
    if (low && in_front_x && obj[1] > target[1]) in_place = Np(0.0);
    if (tcp_to_obj < 0.025 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2]) {
      reward = reward + (Np(1.0) + Np(5.0) * in_place);
    }
    if (obj_to_target < kTargetRadius) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success =
        TouchingObject(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place.v;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int obj_body_, obj_geom_, shelf_body_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_SHELF_PLACE_H_
