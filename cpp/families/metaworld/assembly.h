// assembly-v3: put a wrench's round nut onto a peg (metaworld/envs/sawyer_assembly_peg_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_ASSEMBLY_H_
#define ENVFLEET_FAMILIES_METAWORLD_ASSEMBLY_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class Assembly : public Task<Assembly> {
 public:
  static inline const TaskConstants kTask = {
      "assembly-v3",
      "sawyer_xyz/sawyer_assembly_peg.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {0, 0.6, 0.02, -0.1, 0.75, 0.1},  // random reset space: the nut, the peg's top
      {0, 0.6, 0.02, 0.1, 0.85, 0.1},
      {{-0.1, 0.75, 0.1}},  // goal_space
      {{0.1, 0.85, 0.1}},
  };

  Assembly(const Config& config, uint64_t seed)
      : Task(config, seed),
        nut_body_(Body("RoundNut")),
        nut_grasp_site_(Site("RoundNut-8")),
        nut_center_site_(Site("RoundNut")),
        peg_body_(Body("peg")),
        peg_top_site_(Site("pegTop")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    // The nut and the peg are redrawn until they are 0.1 apart in the plane.
    const std::vector<double>* rand_vec = &StateRandVec();
    while (Norm2(Vec3{{(*rand_vec)[0] - (*rand_vec)[3], (*rand_vec)[1] - (*rand_vec)[4], 0}}) <
           0.1) {
      CheckRedraw("the nut and the peg are 0.1 apart");
      rand_vec = &StateRandVec();
    }
    obj_init_pos_ = Vec3{{(*rand_vec)[0], (*rand_vec)[1], (*rand_vec)[2]}};
    target_pos_ = Vec3{{(*rand_vec)[3], (*rand_vec)[4], (*rand_vec)[5]}};
    const Vec3 peg_pos = target_pos_ - Vec3{{0.0, 0.0, 0.05}};
    SetObjXyz(obj_init_pos_);
    SetBodyPos(peg_body_, peg_pos);
    SetSitePos(peg_top_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 nut = SitePos(nut_grasp_site_);
    for (int k = 0; k < 3; ++k) pos[k] = nut[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(nut_body_)[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    const Vec3 hand = Vec3::Of(obs);
    const Vec3 wrench = Vec3::Of(obs + 4);
    const Vec3 wrench_center = SitePos(nut_center_site_);
    // The caging reward's object: the wrench with the hand's x near the handle.
    Vec3 wrench_threshed = wrench;
    constexpr double kThreshold = kWrenchHandleLength / 2.0;
    if (std::abs(wrench[0] - hand[0]) < kThreshold) wrench_threshed[0] = hand[0];
    const double reward_quat = RewardQuat(obs);
    const Np reward_grab = GripperCagingReward(action, wrench_threshed, 0.015, 0.02, 0.01, 0.01,
                                               1.0, false, /*medium_density=*/true);
    bool success = false;
    const double reward_in_place = RewardPos(wrench_center, target_pos_, &success);
    // reward_grab may be an np.float32 (the gripper effort): the reward is then float32.
    Np reward = (Np(2.0) * reward_grab + Np(6.0) * Np(reward_in_place)) * Np(reward_quat);
    if (success) reward = Np(10.0);
    Evaluation e;
    e.reward = reward.v;
    e.success = success;
    e.near_object = reward_quat;
    e.grasp_success = reward_grab.v >= 0.5;
    e.grasp_reward = reward_grab.v;
    e.in_place_reward = reward_in_place;
    e.obj_to_target = 0.0;
    return e;
  }

 private:
  static constexpr double kWrenchHandleLength = 0.02;

  // _reward_quat: how near the nut's quaternion is to lying flat.
  static double RewardQuat(const double* obs) {
    const double ideal[4] = {0.707, 0, 0, 0.707};
    double diff[4];
    for (int k = 0; k < 4; ++k) diff[k] = obs[7 + k] - ideal[k];
    const double error = Norm(diff, 4);
    const double value = 1.0 - error / 0.4;
    return 0.0 > value ? 0.0 : value;  // max(value, 0.0)
  }

  // _reward_pos: a funnel onto the peg; `success` when the nut is around it and below its top.
  static double RewardPos(const Vec3& wrench_center, const Vec3& target_pos, bool* success) {
    Vec3 pos_error = target_pos - wrench_center;
    const double radius = Norm2(pos_error);
    const bool aligned = radius < 0.02;
    const bool hooked = pos_error[2] > 0.0;
    *success = aligned && hooked;
    const double threshold = *success ? 0.02 : 0.01;
    double target_height = 0.0;
    // np.log of an np.float64: NumPy's kernel (common/numpy/svml.h).
    if (radius > threshold) target_height = 0.02 * numpy_math::NpLog(radius - threshold) + 0.2;
    pos_error[2] = target_height - wrench_center[2];
    const Vec3 scaled = pos_error * Vec3{{1.0, 1.0, 3.0}};
    const bool lifted = wrench_center[2] > 0.02 || radius < threshold;
    return 0.1 * (lifted ? 1.0 : 0.0) + 0.9 * Tolerance(Norm(scaled), 0, 0.02, 0.4);
  }

  int nut_body_, nut_grasp_site_, nut_center_site_, peg_body_, peg_top_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_ASSEMBLY_H_
