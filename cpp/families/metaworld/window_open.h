// window-open-v3: slide a window open by its handle (metaworld/envs/sawyer_window_open_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_WINDOW_OPEN_H_
#define ENVFLEET_FAMILIES_METAWORLD_WINDOW_OPEN_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class WindowOpen : public Task<WindowOpen> {
 public:
  static inline const TaskConstants kTask = {
      "window-open-v3",
      "sawyer_xyz/sawyer_window_horizontal.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array, which the mocap position takes as float64.
      {{0, static_cast<double>(0.4f), static_cast<double>(0.2f)}},
      {-0.1, 0.7, 0.16},  // random reset space: the window
      {0.1, 0.9, 0.16},
      {{-0.5, 0.40, 0.05}},  // goal_space (hand_low, hand_high)
      {{0.5, 1, 0.5}},
  };

  WindowOpen(const Config& config, uint64_t seed)
      : Task(config, seed),
        window_body_(Body("window")),
        handle_site_(Site("handleOpenStart")),
        goal_site_(Site("goal")),
        slide_qpos_(model()->jnt_qposadr[Joint("window_slide")]) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    target_pos_ = obj_init_pos_ + Vec3{{0.2, 0.0, 0.0}};
    SetBodyPos(window_body_, obj_init_pos_);
    // Read before any mj_forward: the handle where the last simulation step left it.
    handle_pos_init_ = SitePos(handle_site_);
    data_->qpos[slide_qpos_] = 0.0;
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 handle = SitePos(handle_site_);
    for (int k = 0; k < 3; ++k) pos[k] = handle[k];
    for (int k = 0; k < 4; ++k) quat[k] = 0.0;
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)obs, (void)action;
    constexpr double kTargetRadius = 0.05;
    const Vec3 obj = SitePos(handle_site_);
    const Vec3 tcp = TcpCenter();
    const Vec3 target = target_pos_;
    // np.linalg.norm of a scalar: sqrt(x * x).
    const double dx = obj[0] - target[0];
    const double target_to_obj = Norm(&dx, 1);
    const double dx_init = obj_init_pos_[0] - target[0];
    const double target_to_obj_init = Norm(&dx_init, 1);
    const double in_place =
        Tolerance(target_to_obj, 0, kTargetRadius, std::abs(target_to_obj_init - kTargetRadius));
    constexpr double kHandleRadius = 0.02;
    const double tcp_to_obj = Norm(obj - tcp);
    const double tcp_to_obj_init = Norm(handle_pos_init_ - init_tcp_);
    const double reach =
        Tolerance(tcp_to_obj, 0, kHandleRadius, std::abs(tcp_to_obj_init - kHandleRadius));
    Evaluation e;
    e.reward = 10 * HamacherProduct(reach, in_place).v;
    e.success = target_to_obj <= kTargetRadius;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = 1.0;
    e.grasp_reward = reach;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  int window_body_, handle_site_, goal_site_, slide_qpos_;
  Vec3 handle_pos_init_;  // window_handle_pos_init
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_WINDOW_OPEN_H_
