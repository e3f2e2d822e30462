// plate-slide-back-side-v3: slide a puck sideways back out of a goal
// (metaworld/envs/sawyer_plate_slide_back_side_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_PLATE_SLIDE_BACK_SIDE_H_
#define ENVFLEET_FAMILIES_METAWORLD_PLATE_SLIDE_BACK_SIDE_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class PlateSlideBackSide : public Task<PlateSlideBackSide> {
 public:
  static inline const TaskConstants kTask = {
      "plate-slide-back-side-v3",
      "sawyer_xyz/sawyer_plate_slide_sideway.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {-0.25, 0.6, 0.0, -0.05, 0.6, 0.015},  // random reset space: puck, goal
      {-0.25, 0.6, 0.0, 0.15, 0.6, 0.015},
      {{-0.05, 0.6, 0.015}},  // goal_space
      {{0.15, 0.6, 0.015}},
  };

  PlateSlideBackSide(const Config& config, uint64_t seed)
      : Task(config, seed),
        puck_geom_(Geom("puck")),
        puck_goal_body_(Body("puck_goal")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    const std::vector<double>& rand_vec = StateRandVec();
    obj_init_pos_ = Vec3::Of(rand_vec.data());
    target_pos_ = Vec3::Of(rand_vec.data() + 3);
    // The reference moves the goal's body to the puck's start, not to the goal.
    SetBodyPos(puck_goal_body_, obj_init_pos_);
    // The task's own _set_obj_xyz: the puck's two slide joints, velocities kept.
    const double puck[2] = {-0.15, 0.0};
    data_->qpos[9] = puck[0];
    data_->qpos[10] = puck[1];
    Forward();
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 puck = GeomPos(puck_geom_);
    for (int k = 0; k < 3; ++k) pos[k] = puck[k];
    QuatFromMatrix(GeomXmat(puck_geom_), quat);
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = Vec3::Of(obs + 4);
    const double obj_to_target = Norm(obj - target_pos_);
    const double in_place_margin = Norm(obj_init_pos_ - target_pos_);
    const double in_place =
        Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin - kTargetRadius);
    const double tcp_to_obj = Norm(tcp - obj);
    const double obj_grasped_margin = Norm(init_tcp_ - obj_init_pos_);
    const double object_grasped =
        Tolerance(tcp_to_obj, 0, kTargetRadius, obj_grasped_margin - kTargetRadius);
    double reward = 1.5 * object_grasped;
    if (tcp[2] <= 0.03 && tcp_to_obj < 0.07) reward = 2.0 + (7.0 * in_place);
    if (obj_to_target < kTargetRadius) reward = 10.0;
    Evaluation e;
    e.reward = reward;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = 0.0;
    e.grasp_reward = object_grasped;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  static constexpr double kTargetRadius = 0.05;
  int puck_geom_, puck_goal_body_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_PLATE_SLIDE_BACK_SIDE_H_
