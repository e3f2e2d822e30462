// coffee-push-v3: push a mug under a coffee machine (metaworld/envs/sawyer_coffee_push_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_COFFEE_PUSH_H_
#define ENVFLEET_FAMILIES_METAWORLD_COFFEE_PUSH_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class CoffeePush : public Task<CoffeePush> {
 public:
  static inline const TaskConstants kTask = {
      "coffee-push-v3",
      "sawyer_xyz/sawyer_coffee.xml",
      {{-0.5, 0.40, 0.05}},                      // hand_low
      {{0.5, 1, 0.5}},                           // hand_high
      {{-0.5, 0.40, 0.05}},                      // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                           // mocap_high (hand_high)
      {{0.0, 0.4, 0.2}},                         // hand_init_pos
      {-0.1, 0.55, -0.001, -0.05, 0.7, -0.001},  // random reset space: mug, goal
      {0.1, 0.65, +0.001, 0.05, 0.75, +0.001},
      {{-0.05, 0.7, -0.001}},  // goal_space
      {{0.05, 0.75, +0.001}},
  };

  CoffeePush(const Config& config, uint64_t seed)
      : Task(config, seed),
        machine_body_(Body("coffee_machine")),
        obj_body_(Body("obj")),
        mug_geom_(Geom("mug")),
        mug_goal_site_(Site("mug_goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // The mug and its goal are redrawn until they are 0.15 apart in the plane.
    const std::vector<double>* rand_vec = &StateRandVec();
    Vec3 pos_mug_init = Vec3::Of(rand_vec->data()), pos_mug_goal = Vec3::Of(rand_vec->data() + 3);
    while (Norm2(pos_mug_init - pos_mug_goal) < 0.15) {
      CheckRedraw("the mug and its goal are 0.15 apart");
      rand_vec = &StateRandVec();
      pos_mug_init = Vec3::Of(rand_vec->data());
      pos_mug_goal = Vec3::Of(rand_vec->data() + 3);
    }
    // _set_obj_xyz: this task's version writes qpos[0:3] (the mug's free joint comes first in
    // sawyer_coffee.xml) and zeroes qvel[9:15].
    for (int k = 0; k < 3; ++k) data_->qpos[k] = pos_mug_init[k];
    for (int k = 9; k < 15; ++k) data_->qvel[k] = 0;
    Forward();
    obj_init_pos_ = pos_mug_init;
    SetBodyPos(machine_body_, pos_mug_goal + Vec3{{0.0, 0.22, 0.0}});
    target_pos_ = pos_mug_goal;
    SetSitePos(mug_goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 obj = BodyPos(obj_body_);
    for (int k = 0; k < 3; ++k) pos[k] = obj[k];
    QuatFromMatrix(GeomXmat(mug_geom_), quat);
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    const Vec3 obj = Vec3::Of(obs + 4);
    const Vec3 target = target_pos_;
    // Emphasize X and Y errors.
    const Vec3 scale = {{2.0, 2.0, 1.0}};
    const double target_to_obj = Norm((obj - target) * scale);
    const double target_to_obj_init = Norm((obj_init_pos_ - target) * scale);
    const double in_place = Tolerance(target_to_obj, 0, 0.05, target_to_obj_init);
    const double tcp_opened = obs[3];
    const double tcp_to_obj = Norm(obj - TcpCenter());
    const Np object_grasped = GripperCagingReward(action, obj, /*obj_radius=*/0.02,
                                                  /*pad_success_thresh=*/0.05,
                                                  /*object_reach_radius=*/0.04,
                                                  /*xz_thresh=*/0.05,
                                                  /*desired_gripper_effort=*/0.7,
                                                  /*high_density=*/false, /*medium_density=*/true);
    // An np.float32 where the gripper effort leaks in.
    Np reward = HamacherProduct(object_grasped, Np(in_place));
    if (tcp_to_obj < 0.04 && tcp_opened > 0) reward = reward + Np(1.0 + 5.0 * in_place);
    if (target_to_obj < 0.05) reward = Np(10.0);
    const double obj_to_target = Norm(obj - target);
    Evaluation e;
    e.reward = reward.v;
    e.success = obj_to_target <= 0.07;
    e.near_object = tcp_to_obj <= 0.03;
    e.grasp_success = TouchingObject(mug_geom_) && tcp_opened > 0;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int machine_body_, obj_body_, mug_geom_, mug_goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_COFFEE_PUSH_H_
