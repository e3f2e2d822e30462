// door-open-v3: pull a door open by its handle (metaworld/envs/sawyer_door_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_DOOR_OPEN_H_
#define ENVFLEET_FAMILIES_METAWORLD_DOOR_OPEN_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class DoorOpen : public Task<DoorOpen> {
 public:
  static inline const TaskConstants kTask = {
      "door-open-v3",        "sawyer_xyz/sawyer_door_pull.xml",
      {{-0.5, 0.40, 0.05}},                          // hand_low
      {{0.5, 1, 0.5}},                               // hand_high
      {{-0.5, 0.40, 0.05}},                          // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                               // mocap_high (hand_high)
      {{0, 0.6, 0.2}},                               // hand_init_pos
      {0.0, 0.85, 0.15},                             // random reset space: the door
      {0.1, 0.95, 0.15},     {{-0.3, 0.4, 0.1499}},  // goal_space
      {{-0.2, 0.5, 0.1501}},
  };

  DoorOpen(const Config& config, uint64_t seed)
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
    target_pos_ = obj_init_pos_ + Vec3{{-0.3, -0.45, 0.0}};
    SetBodyPos(door_body_, obj_init_pos_);
    SetSitePos(goal_site_, target_pos_);
    // _set_obj_xyz(0): the door's joint.
    data_->qpos[door_qpos_] = 0;
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
    const double theta = data_->qpos[door_qpos_];
    // _reward_grab_effort: np.clip of the np.float32 effort stays float32 through (+ 1.0) / 2.0.
    const float effort = action[3] < -1.0f ? -1.0f : (action[3] > 1.0f ? 1.0f : action[3]);
    const double reward_grab = static_cast<double>((effort + 1.0f) / 2.0f);
    double ready_to_open, opened;
    RewardPos(obs, theta, &ready_to_open, &opened);
    double reward = 2.0 * HamacherProduct(ready_to_open, reward_grab).v + 8.0 * opened;
    const bool success = std::abs(obs[4] - target_pos_[0]) <= 0.08;
    if (success) reward = 10.0;
    Evaluation e;
    e.reward = reward;
    e.success = success;
    e.near_object = ready_to_open;
    e.grasp_success = reward_grab >= 0.5;
    e.grasp_reward = reward_grab;
    e.in_place_reward = opened;
    e.obj_to_target = 0;
    return e;
  }

 private:
  // _reward_pos(obs, theta): (ready_to_open, opened).
  static void RewardPos(const double* obs, double theta, double* ready_to_open, double* opened) {
    const Vec3 hand = Vec3::Of(obs);
    const Vec3 door = Vec3::Of(obs + 4) + Vec3{{-0.05, 0, 0}};
    constexpr double kThreshold = 0.12;
    // The floor: a 3D funnel centered on the door handle (np.log: NumPy's kernel).
    const double radius = Norm2(hand - door);
    const double floor =
        radius <= kThreshold ? 0.0 : 0.04 * numpy_math::NpLog(radius - kThreshold) + 0.4;
    const double above_floor =
        hand[2] >= floor ? 1.0 : Tolerance(floor - hand[2], 0.0, 0.01, floor / 2.0);
    const double in_place =
        Tolerance(Norm(hand - door - Vec3{{0.05, 0.03, -0.01}}), 0, kThreshold / 2.0, 0.5);
    *ready_to_open = HamacherProduct(above_floor, in_place).v;
    const double door_angle = -theta;
    const double a = 0.2, b = 0.8;
    *opened = a * static_cast<double>(theta < -M_PI / 90.0) +
              b * Tolerance(M_PI / 2.0 + M_PI / 6 - door_angle, 0, 0.5, M_PI / 3.0);
  }

  int door_body_, handle_geom_, goal_site_, door_joint_, door_qpos_, door_qvel_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_DOOR_OPEN_H_
