// pick-place-v3: pick a puck up and place it at a goal (metaworld/envs/sawyer_pick_place_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_PICK_PLACE_H_
#define ENVFLEET_FAMILIES_METAWORLD_PICK_PLACE_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class PickPlace : public Task<PickPlace> {
 public:
  static inline const TaskConstants kTask = {
      "pick-place-v3",
      "sawyer_xyz/sawyer_pick_place_v3.xml",
      {{-0.5, 0.40, 0.05}},                // hand_low
      {{0.5, 1, 0.5}},                     // hand_high
      {{-0.5, 0.40, 0.05}},                // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                     // mocap_high (hand_high)
      {{0, 0.6, 0.2}},                     // hand_init_pos
      {-0.1, 0.6, 0.02, -0.1, 0.8, 0.05},  // random reset space: object, goal
      {0.1, 0.7, 0.02, 0.1, 0.9, 0.3},
      {{-0.1, 0.8, 0.05}},  // goal_space
      {{0.1, 0.9, 0.3}},
  };

  PickPlace(const Config& config, uint64_t seed)
      : Task(config, seed),
        obj_body_(Body("obj")),
        obj_geom_(Geom("objGeom")),
        goal_site_(Site("goal")) {}

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
    init_tcp_ = TcpCenter();  // the reference takes it again (unchanged since the hand reset)
    // init_left_pad / init_right_pad: live views of the pads (LeftPad() / RightPad()).
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
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = Vec3::Of(obs + 4);
    const double tcp_opened = obs[3];
    const double obj_to_target = Norm(obj - target_pos_);
    const double tcp_to_obj = Norm(obj - tcp);
    const double in_place_margin = Norm(obj_init_pos_ - target_pos_);
    const double in_place = Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin);
    // May be an np.float32 (the gripper effort): the reward follows it.
    const Np object_grasped = CagingReward(action, obj);
    Np reward = HamacherProduct(object_grasped, in_place);
    if (tcp_to_obj < 0.02 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2]) {
      reward = reward + Np(1.0 + 5.0 * in_place);
    }
    if (obj_to_target < kTargetRadius) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success =
        TouchingObject(obj_geom_) && tcp_opened > 0 && obj[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  // The task's own _gripper_caging_reward. init_left_pad / init_right_pad are live views of
  // the pads, so they read the pads' current positions.
  Np CagingReward(const float* action, const Vec3& obj_pos) const {
    constexpr double pad_success_margin = 0.05;
    constexpr double x_z_success_margin = 0.005;
    constexpr double obj_radius = 0.015;
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
    const Np y_caging = HamacherProduct(left_caging, right_caging);
    // x-z distances: the y coordinate zeroed by adding its negation, as the reference does.
    const Vec3 tcp_xz = tcp + Vec3{{0.0, -tcp[1], 0.0}};
    const Vec3 obj_xz = obj_pos + Vec3{{0.0, -obj_pos[1], 0.0}};
    const double tcp_obj_norm_x_z = Norm(tcp_xz - obj_xz);
    const Vec3 init_obj_x_z = obj_init_pos_ + Vec3{{0.0, -obj_init_pos_[1], 0.0}};
    const Vec3 init_tcp_x_z = init_tcp_ + Vec3{{0.0, -init_tcp_[1], 0.0}};
    const double tcp_obj_x_z_margin = Norm(init_obj_x_z - init_tcp_x_z) - x_z_success_margin;
    const Np x_z_caging = Tolerance(tcp_obj_norm_x_z, 0, x_z_success_margin, tcp_obj_x_z_margin);
    // min(max(0, action[-1]), 1): the effort as an np.float32, or the int 0 or 1.
    const Np gripper_closed = GripperClosed(action, 1.0);
    const Np caging = HamacherProduct(y_caging, x_z_caging);
    const Np gripping = caging.v > 0.97 ? gripper_closed : Np(0.0);
    const Np caging_and_gripping = HamacherProduct(caging, gripping);
    return (caging_and_gripping + caging) / Np(2.0);
  }

  int obj_body_, obj_geom_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_PICK_PLACE_H_
