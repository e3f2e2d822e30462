// box-close-v3: put a box's lid on it (metaworld/envs/sawyer_box_close_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_BOX_CLOSE_H_
#define ENVFLEET_FAMILIES_METAWORLD_BOX_CLOSE_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class BoxClose : public Task<BoxClose> {
 public:
  static inline const TaskConstants kTask = {
      "box-close-v3",
      "sawyer_xyz/sawyer_box.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {-0.05, 0.5, 0.02, -0.1, 0.7, 0.133},  // random reset space: the lid, the box
      {0.05, 0.55, 0.02, 0.1, 0.8, 0.133},
      {{-0.1, 0.7, 0.133}},  // goal_space
      {{0.1, 0.8, 0.133}},
  };

  BoxClose(const Config& config, uint64_t seed)
      : Task(config, seed),
        box_body_(Body("boxbody")),
        lid_body_(Body("top_link")),
        goal_site_(Site("goal")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    const double box_height = BodyPos(box_body_)[2];
    // The lid and the box are redrawn until they are 0.25 apart in the plane.
    const std::vector<double>* rand_vec = &StateRandVec();
    while (Norm2(Vec3{{(*rand_vec)[0] - (*rand_vec)[3], (*rand_vec)[1] - (*rand_vec)[4], 0}}) <
           0.25) {
      CheckRedraw("the lid and the box are 0.25 apart");
      rand_vec = &StateRandVec();
    }
    // The height: init_config's np.float32 0.02.
    obj_init_pos_ = Vec3{{(*rand_vec)[0], (*rand_vec)[1], static_cast<double>(0.02f)}};
    target_pos_ = Vec3{{(*rand_vec)[3], (*rand_vec)[4], (*rand_vec)[5]}};
    SetBodyPos(box_body_, Vec3{{target_pos_[0], target_pos_[1], box_height}});
    StepSimulation();  // frame_skip mujoco.mj_step calls, as the reference makes
    SetObjXyz(obj_init_pos_);
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 lid = BodyPos(lid_body_);
    for (int k = 0; k < 3; ++k) pos[k] = lid[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(lid_body_)[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    // _reward_grab_effort: float32 arithmetic on the action's np.float32 effort.
    const float clipped = std::min(std::max(action[3], -1.0f), 1.0f);
    const float effort = (clipped + 1.0f) / 2.0f;
    const double reward_grab = static_cast<double>(std::min(std::max(effort, 0.0f), 1.0f));
    const double reward_quat = RewardQuat(obs);
    double ready_to_lift = 0, lifted = 0;
    RewardPos(obs, target_pos_, &ready_to_lift, &lifted);
    // sum((a, b)): 0 + a + b.
    double reward = 0 + 2.0 * HamacherProduct(reward_grab, ready_to_lift).v + 8.0 * lifted;
    const bool success = Norm(Vec3::Of(obs + 4) - target_pos_) < 0.08;
    if (success) reward = 10.0;
    reward *= reward_quat;  // a kick-flipped lid earns nothing
    Evaluation e;
    e.reward = reward;
    e.success = success;
    e.near_object = ready_to_lift;
    e.grasp_success = reward_grab >= 0.5;
    e.grasp_reward = reward_grab;
    e.in_place_reward = lifted;
    e.obj_to_target = 0.0;
    return e;
  }

 private:
  // _reward_quat: how near the lid's quaternion is to upright.
  static double RewardQuat(const double* obs) {
    const double ideal[4] = {0.707, 0, 0, 0.707};
    double diff[4];
    for (int k = 0; k < 4; ++k) diff[k] = obs[7 + k] - ideal[k];
    const double error = Norm(diff, 4);
    const double value = 1.0 - error / 0.2;
    return 0.0 > value ? 0.0 : value;  // max(value, 0.0)
  }

  // _reward_pos: reaching the handle from above, then the lid onto the box.
  static void RewardPos(const double* obs, const Vec3& target_pos, double* ready_to_lift,
                        double* lifted) {
    const Vec3 hand = Vec3::Of(obs);
    const Vec3 lid = Vec3::Of(obs + 4) + Vec3{{0.0, 0.0, 0.02}};
    constexpr double kThreshold = 0.02;
    // A funnel centered on the lid's handle (np.log: NumPy's kernel, common/numpy/svml.h).
    const double radius = Norm2(hand - lid);
    const double floor =
        radius <= kThreshold ? 0.0 : 0.04 * numpy_math::NpLog(radius - kThreshold) + 0.4;
    const double above_floor =
        hand[2] >= floor ? 1.0 : Tolerance(floor - hand[2], 0.0, 0.01, floor / 2.0);
    const double in_place = Tolerance(Norm(hand - lid), 0, 0.02, 0.5);
    *ready_to_lift = HamacherProduct(above_floor, in_place).v;
    const Vec3 pos_error = target_pos - lid;
    const Vec3 error_scale = {{1.0, 1.0, 3.0}};  // emphasizes the z error
    *lifted = 0.2 * (lid[2] > 0.04 ? 1.0 : 0.0) +
              0.8 * Tolerance(Norm(pos_error * error_scale), 0, 0.05, 0.25);
  }

  int box_body_, lid_body_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_BOX_CLOSE_H_
