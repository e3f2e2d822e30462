// stick-push-v3: push a thermos to a goal with a stick (metaworld/envs/sawyer_stick_push_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_STICK_PUSH_H_
#define ENVFLEET_FAMILIES_METAWORLD_STICK_PUSH_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class StickPush : public Task<StickPush> {
 public:
  static inline const TaskConstants kTask = {
      "stick-push-v3",
      "sawyer_xyz/sawyer_stick_obj.xml",
      {{-0.5, 0.40, 0.05}},                       // hand_low
      {{0.5, 1, 0.5}},                            // hand_high
      {{-0.5, 0.40, 0.05}},                       // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                            // mocap_high (hand_high)
      {{0, 0.6, 0.2}},                            // hand_init_pos
      {-0.08, 0.58, 0.000, 0.399, 0.55, 0.1319},  // random reset space: the stick, the goal
      {-0.03, 0.62, 0.001, 0.401, 0.6, 0.1321},
      {{0.399, 0.55, 0.1319}},  // goal_space
      {{0.401, 0.6, 0.1321}},
  };

  StickPush(const Config& config, uint64_t seed)
      : Task(config, seed),
        stick_body_(Body("stick")),
        object_body_(Body("object")),
        stick_geom_(Geom("objGeom")),
        insertion_site_(Site("insertion")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // The stick and the goal are redrawn until they are 0.1 apart in the plane.
    const std::vector<double>* rand_vec = &StateRandVec();
    while (Norm2(Vec3{{(*rand_vec)[0] - (*rand_vec)[3], (*rand_vec)[1] - (*rand_vec)[4], 0}}) <
           0.1) {
      CheckRedraw("the stick and the goal are 0.1 apart");
      rand_vec = &StateRandVec();
    }
    stick_init_pos_ = Vec3{{(*rand_vec)[0], (*rand_vec)[1], 0.02}};  // init_config's height
    // The goal's height: the thermos' insertion site where the last simulation step left it.
    target_pos_ = Vec3{{(*rand_vec)[3], (*rand_vec)[4], SitePos(insertion_site_)[2]}};
    SetObjXyz(stick_init_pos_);  // _set_stick_xyz: qpos[9:12], qvel[9:15]
    // The task's _set_obj_xyz: the thermos' two slide joints at obj_init_qpos (0, 0).
    data_->qpos[16] = 0.0;
    data_->qpos[17] = 0.0;
    data_->qvel[16] = 0;
    data_->qvel[17] = 0;
    Forward();
    obj_init_pos_ = BodyPos(object_body_);
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 stick = BodyPos(stick_body_);
    const Vec3 insertion = SitePos(insertion_site_) + Vec3{{0.0, 0.09, 0.0}};
    for (int k = 0; k < 3; ++k) pos[k] = stick[k], pos[3 + k] = insertion[k];
    QuatFromMatrix(BodyXmat(stick_body_), quat);
    for (int k = 4; k < 8; ++k) quat[k] = 0.0;
    return 2;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    constexpr double kTargetRadius = 0.12;
    const Vec3 tcp = TcpCenter();
    const Vec3 stick = Vec3::Of(obs + 4) + Vec3{{0.015, 0.0, 0.0}};
    const Vec3 container = Vec3::Of(obs + 11);
    const double tcp_opened = obs[3];
    const Vec3 target = target_pos_;
    const double tcp_to_stick = Norm(stick - tcp);
    const double stick_to_target = Norm(stick - target);
    const double stick_in_place_margin = Norm(stick_init_pos_ - target) - kTargetRadius;
    const double stick_in_place =
        Tolerance(stick_to_target, 0, kTargetRadius, stick_in_place_margin);
    const double container_to_target = Norm(container - target);
    const double container_in_place_margin = Norm(obj_init_pos_ - target) - kTargetRadius;
    const double container_in_place =
        Tolerance(container_to_target, 0, kTargetRadius, container_in_place_margin);
    // The task's _gripper_caging_reward is the base's with stick_init_pos in place of
    // obj_init_pos.
    Np object_grasped = CagingRewardFrom(stick_init_pos_, action, stick, 0.04, 0.05, 0.01, 0.01,
                                         1.0, /*high_density=*/true);
    Np reward = object_grasped;
    if (tcp_to_stick < 0.02 && tcp_opened > 0 && stick[2] - 0.01 > stick_init_pos_[2]) {
      object_grasped = Np(1.0);
      reward = Np(2.0 + 5.0 * stick_in_place + 3.0 * container_in_place);
      if (container_to_target <= kTargetRadius) reward = Np(10.0);
    }
    const Vec3 stick_obs = Vec3::Of(obs + 4);
    const bool success = Norm(container - target_pos_) <= 0.12;
    const bool grasp_success =
        TouchingObject(stick_geom_) && tcp_opened > 0 && stick_obs[2] - 0.01 > stick_init_pos_[2];
    Evaluation e;
    e.reward = reward.v;
    e.success = grasp_success && success;
    e.near_object = tcp_to_stick <= 0.03;
    e.grasp_success = grasp_success;
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = stick_in_place;
    e.obj_to_target = container_to_target;
    return e;
  }

 private:
  int stick_body_, object_body_, stick_geom_, insertion_site_, goal_site_;
  Vec3 stick_init_pos_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_STICK_PUSH_H_
