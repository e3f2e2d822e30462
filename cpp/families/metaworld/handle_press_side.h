// handle-press-side-v3: press a handle down sideways
// (metaworld/envs/sawyer_handle_press_side_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_HANDLE_PRESS_SIDE_H_
#define ENVFLEET_FAMILIES_METAWORLD_HANDLE_PRESS_SIDE_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class HandlePressSide : public Task<HandlePressSide> {
 public:
  static inline const TaskConstants kTask = {
      "handle-press-side-v3", "sawyer_xyz/sawyer_handle_press_sideways.xml",
      {{-0.5, 0.40, 0.05}},                          // hand_low
      {{0.5, 1.0, 0.5}},                             // hand_high
      {{-0.5, 0.40, 0.05}},                          // mocap_low (hand_low)
      {{0.5, 1.0, 0.5}},                             // mocap_high (hand_high)
      {{0, 0.6, 0.2}},                               // hand_init_pos
      {-0.35, 0.65, -0.001},                         // random reset space: the box
      {-0.25, 0.75, 0.001},   {{-0.5, 0.40, 0.05}},  // goal_space (hand_low, hand_high)
      {{0.5, 1.0, 0.5}},
  };

  HandlePressSide(const Config& config, uint64_t seed)
      : Task(config, seed),
        box_body_(Body("box")),
        handle_start_site_(Site("handleStart")),
        goal_press_site_(Site("goalPress")) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    SetBodyPos(box_body_, obj_init_pos_);
    // _set_obj_xyz(np.array(-0.001)): the handle's joint, then set_state.
    data_->qpos[9] = -0.001;
    data_->qvel[9] = 0;
    Forward();
    target_pos_ = SitePos(goal_press_site_);
    handle_init_pos_ = SitePos(handle_start_site_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 handle = SitePos(handle_start_site_);
    for (int k = 0; k < 3; ++k) pos[k] = handle[k];
    for (int k = 0; k < 4; ++k) quat[k] = 0.0;
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)obs, (void)action;
    const Vec3 obj = SitePos(handle_start_site_);
    const Vec3 tcp = TcpCenter();
    const Vec3 target = target_pos_;
    // np.linalg.norm of a scalar: sqrt(d * d), which is not always |d|.
    const double dz = obj[2] - target[2];
    const double target_to_obj = Norm(&dz, 1);
    const double dz_init = handle_init_pos_[2] - target[2];
    const double target_to_obj_init = Norm(&dz_init, 1);
    const double in_place =
        Tolerance(target_to_obj, 0, kTargetRadius, std::abs(target_to_obj_init - kTargetRadius));
    constexpr double kHandleRadius = 0.02;
    const double tcp_to_obj = Norm(obj - tcp);
    const double tcp_to_obj_init = Norm(handle_init_pos_ - init_tcp_);
    const double reach =
        Tolerance(tcp_to_obj, 0, kHandleRadius, std::abs(tcp_to_obj_init - kHandleRadius));
    double reward = HamacherProduct(reach, in_place).v;
    reward = target_to_obj <= kTargetRadius ? 1.0 : reward;
    reward *= 10;
    Evaluation e;
    e.reward = reward;
    e.success = target_to_obj <= kTargetRadius;
    e.near_object = tcp_to_obj <= 0.05;
    e.grasp_success = 1.0;
    e.grasp_reward = reach;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  static constexpr double kTargetRadius = 0.02;
  int box_body_, handle_start_site_, goal_press_site_;
  Vec3 handle_init_pos_;  // _handle_init_pos
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_HANDLE_PRESS_SIDE_H_
