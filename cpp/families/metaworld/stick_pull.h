// stick-pull-v3: pull a thermos to a goal with a stick hooked in its handle
// (metaworld/envs/sawyer_stick_pull_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_STICK_PULL_H_
#define ENVFLEET_FAMILIES_METAWORLD_STICK_PULL_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class StickPull : public Task<StickPull> {
 public:
  static inline const TaskConstants kTask = {
      "stick-pull-v3",
      "sawyer_xyz/sawyer_stick_obj.xml",
      {{-0.5, 0.35, 0.05}},                     // hand_low
      {{0.5, 1, 0.5}},                          // hand_high
      {{-0.5, 0.35, 0.05}},                     // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                          // mocap_high (hand_high)
      {{0, 0.6, 0.2}},                          // hand_init_pos
      {-0.1, 0.55, 0.000, 0.35, 0.45, 0.0199},  // random reset space: the stick, the goal
      {0.0, 0.65, 0.001, 0.45, 0.55, 0.0201},
      {{0.35, 0.45, 0.0199}},  // goal_space
      {{0.45, 0.55, 0.0201}},
  };

  StickPull(const Config& config, uint64_t seed)
      : Task(config, seed),
        stick_body_(Body("stick")),
        object_body_(Body("object")),
        stick_geom_(Geom("objGeom")),
        insertion_site_(Site("insertion")),
        stick_end_site_(Site("stick_end")),
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
    target_pos_ = Vec3{{(*rand_vec)[3], (*rand_vec)[4], stick_init_pos_[2]}};
    SetObjXyz(stick_init_pos_);  // _set_stick_xyz: qpos[9:12], qvel[9:15]
    // The task's _set_obj_xyz: the thermos' two slide joints at obj_init_qpos (0, 0.09).
    data_->qpos[16] = 0.0;
    data_->qpos[17] = 0.09;
    data_->qvel[16] = 0;
    data_->qvel[17] = 0;
    Forward();
    obj_init_pos_ = BodyPos(object_body_);
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 stick = BodyPos(stick_body_);
    const Vec3 insertion = SitePos(insertion_site_);
    for (int k = 0; k < 3; ++k) pos[k] = stick[k], pos[3 + k] = insertion[k];
    QuatFromMatrix(BodyXmat(stick_body_), quat);
    for (int k = 4; k < 8; ++k) quat[k] = 0.0;
    return 2;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    constexpr double kTargetRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 stick = Vec3::Of(obs + 4);
    const Vec3 end_of_stick = SitePos(stick_end_site_);
    const Vec3 handle = Vec3::Of(obs + 11);
    const Vec3 container = handle + Vec3{{0.05, 0.0, 0.0}};
    const Vec3 container_init_pos = obj_init_pos_ + Vec3{{0.05, 0.0, 0.0}};
    const double tcp_opened = obs[3];
    const Vec3 target = target_pos_;
    const double tcp_to_stick = Norm(stick - tcp);
    const double handle_to_target = Norm(handle - target);
    const Vec3 yz_scaling = {{1.0, 1.0, 2.0}};
    const double stick_to_container = Norm((stick - container) * yz_scaling);
    const double stick_in_place_margin = Norm((stick_init_pos_ - container_init_pos) * yz_scaling);
    const double stick_in_place =
        Tolerance(stick_to_container, 0, kTargetRadius, stick_in_place_margin);
    const double stick_to_target = Norm(stick - target);
    const double stick_in_place_margin_2 = Norm(stick_init_pos_ - target);
    const double stick_in_place_2 =
        Tolerance(stick_to_target, 0, kTargetRadius, stick_in_place_margin_2);
    const double container_to_target = Norm(container - target);
    const double container_in_place_margin = Norm(obj_init_pos_ - target);
    const double container_in_place =
        Tolerance(container_to_target, 0, kTargetRadius, container_in_place_margin);
    Np object_grasped = GripperCagingReward(action, stick, 0.014, 0.05, 0.01, 0.01, 1.0,
                                            /*high_density=*/true);
    const bool grasp_success =
        tcp_to_stick < 0.02 && tcp_opened > 0 && stick[2] - 0.01 > stick_init_pos_[2];
    if (grasp_success) object_grasped = Np(1.0);
    const Np in_place_and_object_grasped = HamacherProduct(object_grasped, stick_in_place);
    Np reward = in_place_and_object_grasped;
    if (grasp_success) {
      reward = Np(1.0) + in_place_and_object_grasped + Np(5.0 * stick_in_place);
      if (StickIsInserted(handle, end_of_stick)) {
        reward = Np(1.0) + in_place_and_object_grasped + Np(5.0) + Np(2.0 * stick_in_place_2) +
                 Np(1.0 * container_in_place);
        if (handle_to_target <= 0.12) reward = Np(10.0);
      }
    }
    Evaluation e;
    e.reward = reward.v;
    e.success = Norm(handle - target_pos_) <= 0.12 && StickIsInserted(handle, end_of_stick);
    e.near_object = tcp_to_stick <= 0.03;
    e.grasp_success =
        TouchingObject(stick_geom_) && tcp_opened > 0 && stick[2] - 0.02 > obj_init_pos_[2];
    e.grasp_reward = object_grasped.v;
    e.in_place_reward = stick_in_place;
    e.obj_to_target = handle_to_target;
    return e;
  }

 private:
  // _stick_is_inserted: the stick's end past the handle, within it in y and z.
  static bool StickIsInserted(const Vec3& handle, const Vec3& end_of_stick) {
    return end_of_stick[0] >= handle[0] && std::abs(end_of_stick[1] - handle[1]) <= 0.040 &&
           std::abs(end_of_stick[2] - handle[2]) <= 0.060;
  }

  int stick_body_, object_body_, stick_geom_, insertion_site_, stick_end_site_, goal_site_;
  Vec3 stick_init_pos_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_STICK_PULL_H_
