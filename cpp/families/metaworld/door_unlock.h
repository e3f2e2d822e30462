// door-unlock-v3: turn a door's lock open (metaworld/envs/sawyer_door_unlock_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_DOOR_UNLOCK_H_
#define ENVFLEET_FAMILIES_METAWORLD_DOOR_UNLOCK_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class DoorUnlock : public Task<DoorUnlock> {
 public:
  static inline const TaskConstants kTask = {
      "door-unlock-v3",
      "sawyer_xyz/sawyer_door_lock.xml",
      {{-0.5, 0.40, -0.15}},  // hand_low
      {{0.5, 1, 0.5}},        // hand_high
      {{-0.5, 0.40, -0.15}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},        // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {-0.1, 0.8, 0.15},  // random reset space: the door
      {0.1, 0.85, 0.15},
      {{0.0, 0.64, 0.2100}},  // goal_space
      {{0.2, 0.7, 0.2111}},
  };

  DoorUnlock(const Config& config, uint64_t seed)
      : Task(config, seed),
        door_body_(Body("door")),
        lock_body_(Body("lock_link")),
        door_link_(Body("door_link")),
        lock_site_(Site("lockStartUnlock")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    SetBodyPos(door_body_, Vec3::Of(StateRandVec().data()));
    // _set_obj_xyz(1.5708): the lock's joint.
    data_->qpos[9] = 1.5708;
    data_->qvel[9] = 0;
    Forward();
    // obj_init_pos is a live view of lock_link's position (read as LockPos() where used); the
    // target is a new array.
    target_pos_ = LockPos() + Vec3{{0.1, -0.04, 0.0}};
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 lock = SitePos(lock_site_);
    for (int k = 0; k < 3; ++k) pos[k] = lock[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(door_link_)[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    const Vec3 gripper = Vec3::Of(obs);
    const Vec3 lock = Vec3::Of(obs + 4);
    // The offset tracks the gripper's shoulder rather than its fingers.
    const Vec3 offset = {{0.0, 0.055, 0.07}};
    const Vec3 scale = {{0.25, 1.0, 0.5}};
    const Vec3 shoulder_to_lock = (gripper + offset - lock) * scale;
    const Vec3 shoulder_to_lock_init = (init_tcp_ + offset - LockPos()) * scale;
    const double shoulder_to_lock_norm = Norm(shoulder_to_lock);
    const double ready_to_push =
        Tolerance(shoulder_to_lock_norm, 0, 0.02, Norm(shoulder_to_lock_init));
    const double obj_to_target = std::abs(target_pos_[0] - lock[0]);
    const double pushed = Tolerance(obj_to_target, 0, 0.005, kLockLength);
    Evaluation e;
    e.reward = 2 * ready_to_push + 8 * pushed;
    e.success = obj_to_target <= 0.02;
    e.near_object = shoulder_to_lock_norm <= 0.05;
    e.grasp_success = obs[3] > 0;
    e.grasp_reward = ready_to_push;
    e.in_place_reward = pushed;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  static constexpr double kLockLength = 0.1;            // _lock_length
  Vec3 LockPos() const { return BodyPos(lock_body_); }  // obj_init_pos, a live view
  int door_body_, lock_body_, door_link_, lock_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_DOOR_UNLOCK_H_
