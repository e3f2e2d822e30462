// push-back-v3: push a block back toward the robot (metaworld/envs/sawyer_push_back_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_PUSH_BACK_H_
#define ENVFLEET_FAMILIES_METAWORLD_PUSH_BACK_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class PushBack : public Task<PushBack> {
 public:
  static inline const TaskConstants kTask = {
      "push-back-v3",
      "sawyer_xyz/sawyer_push_back_v3.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {-0.1, 0.8, 0.02, -0.1, 0.6, 0.0199},  // random reset space: object, goal
      {0.1, 0.85, 0.02, 0.1, 0.7, 0.0201},
      {{-0.1, 0.6, 0.0199}},  // goal_space
      {{0.1, 0.7, 0.0201}},
  };

  PushBack(const Config& config, uint64_t seed)
      : Task(config, seed), obj_geom_(Geom("objGeom")), goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // adjust_initObjPos: only the height of the object's geom (after the hand reset) is kept.
    const double obj_z = GeomPos(obj_geom_)[2];
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
    const Vec3 obj = GeomPos(obj_geom_);
    for (int k = 0; k < 3; ++k) pos[k] = obj[k];
    QuatFromMatrix(GeomXmat(obj_geom_), quat);
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;  // the task's caging reward takes the gripper effort but does not use it
    const Vec3 obj = Vec3::Of(obs + 4);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Norm(obj - TcpCenter());
    const double target_to_obj = Norm(obj - target_pos_);
    const double target_to_obj_init = Norm(obj_init_pos_ - target_pos_);
    const double in_place = Tolerance(target_to_obj, 0, kTargetRadius, target_to_obj_init);
    const double object_grasped = CagingReward(obj, kObjRadius);
    double reward = HamacherProduct(object_grasped, in_place).v;
    if (tcp_to_obj < 0.01 && 0 < tcp_opened && tcp_opened < 0.55 &&
        target_to_obj_init - target_to_obj > 0.01) {
      reward += 1.0 + 5.0 * in_place;
    }
    if (target_to_obj < kTargetRadius) reward = 10.0;
    Evaluation e;
    e.reward = reward;
    e.success = target_to_obj <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success =
        TouchingObject(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  static constexpr double kObjRadius = 0.007;
  static constexpr double kTargetRadius = 0.05;

  // The task's own _gripper_caging_reward: all Python floats (the gripper effort is unused).
  // init_left_pad / init_right_pad are the base's live views of the pads.
  double CagingReward(const Vec3& obj_pos, double obj_radius) const {
    constexpr double pad_success_margin = 0.05;
    const double grip_success_margin = obj_radius + 0.003;
    constexpr double x_z_success_margin = 0.01;
    const Vec3 tcp = TcpCenter();
    const Vec3 left_pad = LeftPad(), right_pad = RightPad();
    const double delta_object_y_left_pad = left_pad[1] - obj_pos[1];
    const double delta_object_y_right_pad = obj_pos[1] - right_pad[1];
    const double right_caging_margin =
        std::abs(std::abs(obj_pos[1] - right_pad[1]) - pad_success_margin);
    const double left_caging_margin =
        std::abs(std::abs(obj_pos[1] - left_pad[1]) - pad_success_margin);
    const double right_caging =
        Tolerance(delta_object_y_right_pad, obj_radius, pad_success_margin, right_caging_margin);
    const double left_caging =
        Tolerance(delta_object_y_left_pad, obj_radius, pad_success_margin, left_caging_margin);
    const double right_gripping =
        Tolerance(delta_object_y_right_pad, obj_radius, grip_success_margin, right_caging_margin);
    const double left_gripping =
        Tolerance(delta_object_y_left_pad, obj_radius, grip_success_margin, left_caging_margin);
    const Np y_caging = HamacherProduct(right_caging, left_caging);
    const Np y_gripping = HamacherProduct(right_gripping, left_gripping);
    // x-z distances: the y coordinate zeroed by adding its negation, as the reference does.
    const Vec3 tcp_xz = tcp + Vec3{{0.0, -tcp[1], 0.0}};
    const Vec3 obj_xz = obj_pos + Vec3{{0.0, -obj_pos[1], 0.0}};
    const double tcp_obj_norm_x_z = Norm(tcp_xz - obj_xz);
    const Vec3 init_obj_x_z = obj_init_pos_ + Vec3{{0.0, -obj_init_pos_[1], 0.0}};
    const Vec3 init_tcp_x_z = init_tcp_ + Vec3{{0.0, -init_tcp_[1], 0.0}};
    const double tcp_obj_x_z_margin = Norm(init_obj_x_z - init_tcp_x_z) - x_z_success_margin;
    const Np x_z_caging = Tolerance(tcp_obj_norm_x_z, 0, x_z_success_margin, tcp_obj_x_z_margin);
    const Np caging = HamacherProduct(y_caging, x_z_caging);
    const Np gripping = caging.v > 0.95 ? y_gripping : Np(0.0);
    return ((caging + gripping) / Np(2.0)).v;
  }

  int obj_geom_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_PUSH_BACK_H_
