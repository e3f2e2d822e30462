// reach-v3: move the gripper to a goal in the air (metaworld/envs/sawyer_reach_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_REACH_H_
#define ENVFLEET_FAMILIES_METAWORLD_REACH_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class Reach : public Task<Reach> {
 public:
  static inline const TaskConstants kTask = {
      "reach-v3",
      "sawyer_xyz/sawyer_reach_v3.xml",
      {{-0.5, 0.40, 0.05}},                // hand_low
      {{0.5, 1, 0.5}},                     // hand_high
      {{-0.5, 0.40, 0.05}},                // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                     // mocap_high (hand_high)
      {{0.0, 0.6, 0.2}},                   // hand_init_pos
      {-0.1, 0.6, 0.02, -0.1, 0.8, 0.05},  // random reset space: object, goal
      {0.1, 0.7, 0.02, 0.1, 0.9, 0.3},
      {{-0.1, 0.8, 0.05}},  // goal_space
      {{0.1, 0.9, 0.3}},
  };

  Reach(const Config& config, uint64_t seed)
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
    target_pos_ = Vec3{{(*rand_vec)[3], (*rand_vec)[4], (*rand_vec)[5]}};
    obj_init_pos_ = Vec3{{(*rand_vec)[0], (*rand_vec)[1], (*rand_vec)[2]}};
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
    (void)obs, (void)action;
    constexpr double kTargetRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const double tcp_to_target = Norm(tcp - target_pos_);
    const double in_place_margin = Norm(hand_init_pos_ - target_pos_);
    const double in_place = Tolerance(tcp_to_target, 0, kTargetRadius, in_place_margin);
    Evaluation e;
    e.reward = 10 * in_place;
    e.success = tcp_to_target <= 0.05;
    e.near_object = tcp_to_target;
    e.grasp_success = 1.0;
    e.grasp_reward = tcp_to_target;
    e.in_place_reward = in_place;
    e.obj_to_target = tcp_to_target;
    return e;
  }

 private:
  int obj_body_, obj_geom_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_REACH_H_
