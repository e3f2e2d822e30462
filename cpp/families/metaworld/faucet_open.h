// faucet-open-v3: turn a faucet's handle open (metaworld/envs/sawyer_faucet_open_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_FAUCET_OPEN_H_
#define ENVFLEET_FAMILIES_METAWORLD_FAUCET_OPEN_H_

#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class FaucetOpen : public Task<FaucetOpen> {
 public:
  static inline const TaskConstants kTask = {
      "faucet-open-v3",      "sawyer_xyz/sawyer_faucet.xml", {{-0.5, 0.40, -0.15}},  // hand_low
      {{0.5, 1, 0.5}},                                                               // hand_high
      {{-0.5, 0.40, -0.15}},                         // mocap_low (hand_low)
      {{0.5, 1, 0.5}},                               // mocap_high (hand_high)
      {{0.0, 0.4, 0.2}},                             // hand_init_pos
      {-0.05, 0.8, 0.0},                             // random reset space: the faucet
      {0.05, 0.85, 0.0},     {{-0.5, 0.40, -0.15}},  // goal_space (hand_low, hand_high)
      {{0.5, 1, 0.5}},
  };

  FaucetOpen(const Config& config, uint64_t seed)
      : Task(config, seed),
        base_body_(Body("faucetBase")),
        handle_site_(Site("handleStartOpen")),
        goal_site_(Site("goal_open")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    SetBodyPos(base_body_, obj_init_pos_);
    target_pos_ = obj_init_pos_ + Vec3{{+kHandleLength, 0.0, 0.125}};
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 handle = SitePos(handle_site_) + Vec3{{0.0, 0.0, -0.01}};
    for (int k = 0; k < 3; ++k) pos[k] = handle[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(base_body_)[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    const Vec3 obj = Vec3::Of(obs + 4) + Vec3{{-0.04, 0.0, 0.03}};
    const Vec3 tcp = TcpCenter();
    const Vec3 target = target_pos_;
    const double target_to_obj = Norm(obj - target);
    const double target_to_obj_init = Norm(obj_init_pos_ - target);
    const double in_place =
        Tolerance(target_to_obj, 0, kTargetRadius, std::abs(target_to_obj_init - kTargetRadius));
    constexpr double kReachRadius = 0.01;
    const double tcp_to_obj = Norm(obj - tcp);
    const double tcp_to_obj_init = Norm(obj_init_pos_ - init_tcp_);
    const double reach = Tolerance(tcp_to_obj, 0, kReachRadius,
                                   std::abs(tcp_to_obj_init - kReachRadius), Sigmoid::kGaussian);
    double reward = 2 * reach + 3 * in_place;
    reward *= 2;
    if (target_to_obj <= kTargetRadius) reward = 10;
    Evaluation e;
    e.reward = reward;
    e.success = target_to_obj <= 0.07;
    e.near_object = tcp_to_obj <= 0.01;
    e.grasp_success = 1.0;
    e.grasp_reward = reach;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  static constexpr double kHandleLength = 0.175;
  static constexpr double kTargetRadius = 0.07;
  int base_body_, handle_site_, goal_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_FAUCET_OPEN_H_
