// peg-insert-side-v3: insert a peg sideways into a hole
// (metaworld/envs/sawyer_peg_insertion_side_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_PEG_INSERT_SIDE_H_
#define ENVFLEET_FAMILIES_METAWORLD_PEG_INSERT_SIDE_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class PegInsertSide : public Task<PegInsertSide> {
 public:
  static inline const TaskConstants kTask = {
      "peg-insert-side-v3",
      "sawyer_xyz/sawyer_peg_insertion_side.xml",
      {{-0.5, 0.40, 0.05}},                  // hand_low
      {{0.5, 1, 0.5}},                       // hand_high
      {{-0.5, 0.40, 0.05}},                  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                       // mocap_high (hand_high)
      {{0, 0.6, 0.2}},                       // hand_init_pos
      {0.0, 0.5, 0.02, -0.35, 0.4, -0.001},  // random reset space: the peg, the box
      {0.2, 0.7, 0.02, -0.25, 0.7, 0.001},
      {{-0.35 + 0.03, 0.4 + 0.0, -0.001 + 0.13}},  // goal_space: goal_low/high + (0.03, 0, 0.13)
      {{-0.25 + 0.03, 0.7 + 0.0, 0.001 + 0.13}},
  };

  PegInsertSide(const Config& config, uint64_t seed)
      : Task(config, seed),
        box_body_(Body("box")),
        peg_head_site_(Site("pegHead")),
        peg_grasp_site_(Site("pegGrasp")),
        goal_site_(Site("goal")),
        box1_zero_(Site("bottom_right_corner_collision_box_1")),
        box1_one_(Site("top_left_corner_collision_box_1")),
        box2_zero_(Site("bottom_right_corner_collision_box_2")),
        box2_one_(Site("top_left_corner_collision_box_2")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // The peg and the box are redrawn until they are 0.1 apart in the plane.
    const std::vector<double>* rand_vec = &StateRandVec();
    while (Norm2(Vec3{{(*rand_vec)[0] - (*rand_vec)[3], (*rand_vec)[1] - (*rand_vec)[4], 0}}) <
           0.1) {
      CheckRedraw("the peg and the box are 0.1 apart");
      rand_vec = &StateRandVec();
    }
    obj_init_pos_ = Vec3{{(*rand_vec)[0], (*rand_vec)[1], (*rand_vec)[2]}};
    const Vec3 pos_box = {{(*rand_vec)[3], (*rand_vec)[4], (*rand_vec)[5]}};
    // Read before the peg is placed: where the last simulation step left it.
    peg_head_pos_init_ = SitePos(peg_head_site_);
    SetObjXyz(obj_init_pos_);
    SetBodyPos(box_body_, pos_box);
    target_pos_ = pos_box + Vec3{{0.03, 0.0, 0.13}};
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 grasp = SitePos(peg_grasp_site_);
    for (int k = 0; k < 3; ++k) pos[k] = grasp[k];
    QuatFromMatrix(SiteXmat(peg_grasp_site_), quat);
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = Vec3::Of(obs + 4);
    const Vec3 obj_head = SitePos(peg_head_site_);
    const double tcp_opened = obs[3];
    const Vec3 target = target_pos_;
    const double tcp_to_obj = Norm(obj - tcp);
    const Vec3 scale = {{1.0, 2.0, 2.0}};  // the agent must lift the peg, then insert it
    const double obj_to_target = Norm((obj_head - target) * scale);
    const double in_place_margin = Norm((peg_head_pos_init_ - target) * scale);
    const double in_place_raw = Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin);
    const Np collision_box_1 = RectPrism(obj_head, SitePos(box1_zero_), SitePos(box1_one_));
    const Np collision_box_2 = RectPrism(obj_head, SitePos(box2_zero_), SitePos(box2_one_));
    const Np collision_boxes = HamacherProduct(collision_box_2, collision_box_1);
    const Np in_place = HamacherProduct(in_place_raw, collision_boxes);
    Np object_grasped = GripperCagingReward(action, obj, 0.0075, 0.03, 0.01, 0.005, 1.0,
                                            /*high_density=*/true);
    const bool lifted = tcp_to_obj < 0.08 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2];
    if (lifted) object_grasped = Np(1.0);
    Np reward = HamacherProduct(object_grasped, in_place);
    if (lifted) reward = reward + (Np(1.0) + Np(5.0) * in_place);
    if (obj_to_target <= 0.07) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = tcp_to_obj < 0.02 && tcp_opened > 0 && obj[2] - 0.01 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place.v;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  static constexpr double kTargetRadius = 0.07;

  // rect_prism_tolerance with its type: an np.float64 (a product of array elements) inside the
  // prism, which promotes an np.float32 gripper reward it meets in hamacher_product to
  // float64; the Python float 1.0 outside.
  static Np RectPrism(const Vec3& curr, const Vec3& zero, const Vec3& one) {
    const auto in_range = [](double a, double b, double c) {
      return c >= b ? (b <= a && a <= c) : (c <= a && a <= b);
    };
    const bool in_prism = in_range(curr[0], zero[0], one[0]) &&
                          in_range(curr[1], zero[1], one[1]) && in_range(curr[2], zero[2], one[2]);
    const double value = RectPrismTolerance(curr, zero, one);
    return in_prism ? Np::F64(value) : Np(value);
  }

  int box_body_, peg_head_site_, peg_grasp_site_, goal_site_;
  int box1_zero_, box1_one_, box2_zero_, box2_one_;
  Vec3 peg_head_pos_init_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_PEG_INSERT_SIDE_H_
