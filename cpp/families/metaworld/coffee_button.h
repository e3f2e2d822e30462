// coffee-button-v3: press a coffee machine's button (metaworld/envs/sawyer_coffee_button_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_COFFEE_BUTTON_H_
#define ENVFLEET_FAMILIES_METAWORLD_COFFEE_BUTTON_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class CoffeeButton : public Task<CoffeeButton> {
 public:
  static constexpr double kMaxDist = 0.03;  // max_dist
  static inline const TaskConstants kTask = {
      "coffee-button-v3",
      "sawyer_xyz/sawyer_coffee.xml",
      {{-0.5, 0.4, 0.05}},  // hand_low
      {{0.5, 1.0, 0.5}},    // hand_high
      {{-0.5, 0.4, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1.0, 0.5}},    // mocap_high (hand_high)
      {{0.0, 0.4, 0.2}},    // hand_init_pos
      {-0.1, 0.8, -0.001},  // random reset space: the machine
      {0.1, 0.9, +0.001},
      // goal_space: obj_low/high + [-+0.001, -0.22 + max_dist, 0.299 / 0.301]
      {{-0.1 + -0.001, 0.8 + (-0.22 + kMaxDist), -0.001 + 0.299}},
      {{0.1 + +0.001, 0.9 + (-0.22 + kMaxDist), +0.001 + 0.301}},
  };

  CoffeeButton(const Config& config, uint64_t seed)
      : Task(config, seed),
        machine_body_(Body("coffee_machine")),
        button_start_site_(Site("buttonStart")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    SetBodyPos(machine_body_, obj_init_pos_);
    // _set_obj_xyz(pos_mug): this task's version writes qpos[0:3] (the mug's free joint comes
    // first in sawyer_coffee.xml) and zeroes qvel[9:15].
    const Vec3 pos_mug = obj_init_pos_ + Vec3{{0.0, -0.22, 0.0}};
    for (int k = 0; k < 3; ++k) data_->qpos[k] = pos_mug[k];
    for (int k = 9; k < 15; ++k) data_->qvel[k] = 0;
    Forward();
    const Vec3 pos_button = obj_init_pos_ + Vec3{{0.0, -0.22, 0.3}};
    target_pos_ = pos_button + Vec3{{0.0, kMaxDist, 0.0}};
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 button = SitePos(button_start_site_);
    for (int k = 0; k < 3; ++k) pos[k] = button[k];
    const double kQuat[4] = {1.0, 0.0, 0.0, 0.0};
    for (int k = 0; k < 4; ++k) quat[k] = kQuat[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    const Vec3 obj = Vec3::Of(obs + 4);
    const Vec3 tcp = TcpCenter();
    const double tcp_to_obj = Norm(obj - tcp);
    const double tcp_to_obj_init = Norm(obj - init_tcp_);
    const double obj_to_target = std::abs(target_pos_[1] - obj[1]);
    const double tcp_closed = obs[3] < 0.0 ? 0.0 : obs[3];  // max(obs[3], 0.0)
    const double near_button = Tolerance(tcp_to_obj, 0, 0.05, tcp_to_obj_init);
    const double button_pressed = Tolerance(obj_to_target, 0, 0.005, kMaxDist);
    double reward = 2 * HamacherProduct(tcp_closed, near_button).v;
    if (tcp_to_obj <= 0.05) reward += 8 * button_pressed;
    Evaluation e;
    e.reward = reward;
    e.success = obj_to_target <= 0.02;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = obs[3] > 0;
    e.grasp_reward = near_button;
    e.in_place_reward = button_pressed;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int machine_body_, button_start_site_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_COFFEE_BUTTON_H_
