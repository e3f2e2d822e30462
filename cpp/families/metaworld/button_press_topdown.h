// button-press-topdown-v3: press a button down from above
// (metaworld/envs/sawyer_button_press_topdown_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_BUTTON_PRESS_TOPDOWN_H_
#define ENVFLEET_FAMILIES_METAWORLD_BUTTON_PRESS_TOPDOWN_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class ButtonPressTopdown : public Task<ButtonPressTopdown> {
 public:
  static inline const TaskConstants kTask = {
      "button-press-topdown-v3",
      "sawyer_xyz/sawyer_button_press_topdown.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array in the reference.
      {{0, static_cast<double>(0.4f), static_cast<double>(0.2f)}},
      {-0.1, 0.8, 0.115},  // random reset space: the box
      {0.1, 0.9, 0.115},
      {{-0.5, 0.40, 0.05}},  // goal_space (hand_low, hand_high)
      {{0.5, 1, 0.5}},
  };

  ButtonPressTopdown(const Config& config, uint64_t seed)
      : Task(config, seed),
        box_body_(Body("box")),
        button_body_(Body("button")),
        hole_site_(Site("hole")),
        button_start_site_(Site("buttonStart")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    SetBodyPos(box_body_, obj_init_pos_);
    Forward();  // mujoco.mj_forward
    target_pos_ = SitePos(hole_site_);
    obj_to_target_init_ = std::abs(target_pos_[2] - SitePos(button_start_site_)[2]);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 button = BodyPos(button_body_) + Vec3{{0.0, 0.0, 0.193}};
    for (int k = 0; k < 3; ++k) pos[k] = button[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(button_body_)[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)action;
    const Vec3 obj = Vec3::Of(obs + 4);
    const Vec3 tcp = TcpCenter();
    const double tcp_to_obj = Norm(obj - tcp);
    const double tcp_to_obj_init = Norm(obj - init_tcp_);
    const double obj_to_target = std::abs(target_pos_[2] - obj[2]);
    const double tcp_closed = 1 - obs[3];
    const double near_button = Tolerance(tcp_to_obj, 0, 0.01, tcp_to_obj_init);
    const double button_pressed = Tolerance(obj_to_target, 0, 0.005, obj_to_target_init_);
    double reward = 5 * HamacherProduct(tcp_closed, near_button).v;
    if (tcp_to_obj <= 0.03) reward += 5 * button_pressed;
    Evaluation e;
    e.reward = reward;
    e.success = obj_to_target <= 0.024;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = obs[3] > 0;
    e.grasp_reward = near_button;
    e.in_place_reward = button_pressed;
    e.obj_to_target = obj_to_target;
    return e;
  }

 private:
  int box_body_, button_body_, hole_site_, button_start_site_;
  double obj_to_target_init_ = 0;  // _obj_to_target_init
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_BUTTON_PRESS_TOPDOWN_H_
