// door-close-v3: push an open door shut (metaworld/envs/sawyer_door_close_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_DOOR_CLOSE_H_
#define ENVFLEET_FAMILIES_METAWORLD_DOOR_CLOSE_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class DoorClose : public Task<DoorClose> {
 public:
  static inline const TaskConstants kTask = {
      "door-close-v3",
      "sawyer_xyz/sawyer_door_pull.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position (and the reward's
      // hand_margin) take as float64.
      {{-0.5, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {0.0, 0.85, 0.15},  // random reset space: the door
      {0.1, 0.95, 0.15},
      {{0.2, 0.65, 0.1499}},  // goal_space
      {{0.3, 0.75, 0.1501}},
  };

  DoorClose(const Config& config, uint64_t seed)
      : Task(config, seed),
        door_body_(Body("door")),
        handle_geom_(Geom("handle")),
        goal_site_(Site("goal")),
        door_joint_(Joint("doorjoint")),
        door_qpos_(model()->jnt_qposadr[door_joint_]),
        door_qvel_(model()->jnt_dofadr[door_joint_]) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    target_pos_ = obj_init_pos_ + Vec3{{0.2, -0.2, 0.0}};
    SetBodyPos(door_body_, obj_init_pos_);
    SetSitePos(goal_site_, target_pos_);
    // _set_obj_xyz(-1.5708): the door kept open.
    data_->qpos[door_qpos_] = -1.5708;
    data_->qvel[door_qvel_] = 0;
    Forward();
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 handle = GeomPos(handle_geom_);
    for (int k = 0; k < 3; ++k) pos[k] = handle[k];
    QuatFromMatrix(GeomXmat(handle_geom_), quat);
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    constexpr double kTargetRadius = 0.05;
    const Vec3 tcp = TcpCenter();
    const Vec3 obj = Vec3::Of(obs + 4);
    const Vec3 target = target_pos_;
    const double tcp_to_target = Norm(tcp - target);
    const double obj_to_target = Norm(obj - target);
    const double in_place_margin = Norm(obj_init_pos_ - target);
    const double in_place =
        Tolerance(obj_to_target, 0, kTargetRadius, in_place_margin, Sigmoid::kGaussian);
    const double hand_margin = Norm(hand_init_pos_ - obj) + 0.1;
    const double hand_in_place =
        Tolerance(tcp_to_target, 0, 0.25 * kTargetRadius, hand_margin, Sigmoid::kGaussian);
    double reward = 3 * hand_in_place + 6 * in_place;
    if (obj_to_target < kTargetRadius) reward = 10;
    Evaluation e;
    e.reward = reward;
    e.success = obj_to_target <= 0.08;
    e.near_object = 0.0;
    e.grasp_success = 1.0;
    e.grasp_reward = 1.0;
    e.in_place_reward = hand_in_place;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int door_body_, handle_geom_, goal_site_, door_joint_, door_qpos_, door_qvel_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_DOOR_CLOSE_H_
