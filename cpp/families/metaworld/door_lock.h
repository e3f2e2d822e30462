// door-lock-v3: turn a door's lock down (metaworld/envs/sawyer_door_lock_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_DOOR_LOCK_H_
#define ENVFLEET_FAMILIES_METAWORLD_DOOR_LOCK_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class DoorLock : public Task<DoorLock> {
 public:
  static inline const TaskConstants kTask = {
      "door-lock-v3",
      "sawyer_xyz/sawyer_door_lock.xml",
      {{-0.5, 0.40, -0.15}},  // hand_low
      {{0.5, 1, 0.5}},        // hand_high
      {{-0.5, 0.40, -0.15}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},        // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {-0.1, 0.8, 0.15},  // random reset space: the door
      {0.1, 0.85, 0.15},
      {{-0.5, 0.40, -0.15}},  // goal_space (hand_low, hand_high)
      {{0.5, 1, 0.5}},
  };

  DoorLock(const Config& config, uint64_t seed)
      : Task(config, seed),
        door_body_(Body("door")),
        lock_body_(Body("lock_link")),
        door_link_(Body("door_link")),
        lock_site_(Site("lockStartLock")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    SetBodyPos(door_body_, Vec3::Of(StateRandVec().data()));
    // frame_skip bare mj_steps (no mj_rnePostConstraint, no mj_forward after): in the first,
    // discarded run they would only touch state that mj_resetData wipes.
    if (!dry_) StepSimulation();
    // obj_init_pos is a live view of lock_link's position (the v2 reward never reads it);
    // the target is a new array, the lock where the last step's forward pass put it.
    target_pos_ = BodyPos(lock_body_) + Vec3{{0.0, -0.04, -0.1}};
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 lock = SitePos(lock_site_);
    for (int k = 0; k < 3; ++k) pos[k] = lock[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(door_link_)[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    const Vec3 obj = Vec3::Of(obs + 4);
    const Vec3 tcp = LeftPad();
    const Vec3 scale = {{0.25, 1.0, 0.5}};
    const double tcp_to_obj = Norm((obj - tcp) * scale);
    // init_left_pad (SawyerXYZEnv.__init__'s get_body_com("leftpad")) is a live view: the pad
    // now, so this equals tcp_to_obj.
    const double tcp_to_obj_init = Norm((obj - LeftPad()) * scale);
    const double obj_to_target = std::abs(target_pos_[2] - obj[2]);
    const double tcp_opened = 0.0 > obs[3] ? 0.0 : obs[3];  // max(obs[3], 0.0)
    const double near_lock = Tolerance(tcp_to_obj, 0, 0.01, tcp_to_obj_init);
    const double lock_pressed = Tolerance(obj_to_target, 0, 0.005, kLockLength);
    double reward = 2 * HamacherProduct(tcp_opened, near_lock).v;
    reward += 8 * lock_pressed;
    Evaluation e;
    e.reward = reward;
    e.success = obj_to_target <= 0.02;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = obs[3] > 0;
    e.grasp_reward = near_lock;
    e.in_place_reward = lock_pressed;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  static constexpr double kLockLength = 0.1;  // _lock_length
  int door_body_, lock_body_, door_link_, lock_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_DOOR_LOCK_H_
