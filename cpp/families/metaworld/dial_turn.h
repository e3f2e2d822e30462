// dial-turn-v3: turn a dial a quarter round (metaworld/envs/sawyer_dial_turn_v3.py).
#ifndef ENVFLEET_FAMILIES_METAWORLD_DIAL_TURN_H_
#define ENVFLEET_FAMILIES_METAWORLD_DIAL_TURN_H_

#include "common/numpy/svml.h"
#include "families/metaworld/sawyer_env.h"

namespace envfleet {
namespace metaworld {

class DialTurn : public Task<DialTurn> {
 public:
  static inline const TaskConstants kTask = {
      "dial-turn-v3",
      "sawyer_xyz/sawyer_dial.xml",
      {{-0.5, 0.40, 0.05}},  // hand_low
      {{0.5, 1, 0.5}},       // hand_high
      {{-0.5, 0.40, 0.05}},  // mocap_low (hand_low)
      {{0.5, 1, 0.5}},       // mocap_high (hand_high)
      // hand_init_pos: an np.float32 array in the reference.
      {{0, static_cast<double>(0.6f), static_cast<double>(0.2f)}},
      {-0.1, 0.7, 0.0},  // random reset space: the dial
      {0.1, 0.8, 0.0},
      {{-0.1, 0.73, 0.0299}},  // goal_space
      {{0.1, 0.83, 0.0301}},
  };

  DialTurn(const Config& config, uint64_t seed)
      : Task(config, seed),
        dial_body_(Body("dial")),
        goal_site_(Site("goal")),
        knob_qpos_(model()->jnt_qposadr[Joint("knob_Joint_1")]) {}

 protected:
  void ResetModel() override {
    ResetHand();
    obj_init_pos_ = Vec3::Of(StateRandVec().data());
    target_pos_ = obj_init_pos_ + Vec3{{0, 0.03, 0.03}};
    SetBodyPos(dial_body_, obj_init_pos_);
    // Read before any mj_forward: the dial where the hand reset left it (the previous model
    // position), as the reference reads it.
    dial_push_position_ = DialPos() + Vec3{{0.05, 0.02, 0.09}};
    SetSitePos(goal_site_, target_pos_);
  }

  int Objects(double* pos, double* quat) override {
    const Vec3 dial = DialPos();
    for (int k = 0; k < 3; ++k) pos[k] = dial[k];
    for (int k = 0; k < 4; ++k) quat[k] = BodyQuat(dial_body_)[k];
    return 1;
  }

  Evaluation Evaluate(const double* obs, const float* action) override {
    (void)obs;
    const Vec3 obj = DialPos();
    const Vec3 dial_push_position = DialPos() + Vec3{{0.05, 0.02, 0.09}};
    const Vec3 tcp = TcpCenter();
    const Vec3 target = target_pos_;
    const double target_to_obj = Norm(obj - target);
    const double target_to_obj_init = Norm(dial_push_position_ - target);
    const double in_place =
        Tolerance(target_to_obj, 0, kTargetRadius, std::abs(target_to_obj_init - kTargetRadius));
    constexpr double kDialReachRadius = 0.005;
    const double tcp_to_obj = Norm(dial_push_position - tcp);
    const double tcp_to_obj_init = Norm(dial_push_position_ - init_tcp_);
    const double reach_tolerance =
        Tolerance(tcp_to_obj, 0, kDialReachRadius, std::abs(tcp_to_obj_init - kDialReachRadius),
                  Sigmoid::kGaussian);
    // min(max(0, action[-1]), 1): the int 0 or 1, or the np.float32 effort, which makes the
    // products below float32.
    const Np gripper_closed = PyMin(PyMax(Np(0.0), Np::F32(action[3])), Np(1.0));
    const Np reach = HamacherProduct(Np(reach_tolerance), gripper_closed);
    const Np reward = Np(10.0) * HamacherProduct(reach, Np(in_place));
    Evaluation e;
    e.reward = reward.v;
    e.success = target_to_obj <= kTargetRadius;
    e.near_object = tcp_to_obj <= 0.01;
    e.grasp_success = 1.0;
    e.grasp_reward = reach.v;
    e.in_place_reward = in_place;
    e.obj_to_target = target_to_obj;
    return e;
  }

 private:
  static constexpr double kTargetRadius = 0.07;

  // _get_pos_objects: the point on the dial's rim at its angle (np.sin / np.cos of float64:
  // libm's).
  Vec3 DialPos() const {
    const Vec3 dial_center = BodyPos(dial_body_);
    const double angle = data_->qpos[knob_qpos_];
    Vec3 offset = {{std::sin(angle), -std::cos(angle), 0.0}};
    offset = offset * 0.05;
    return dial_center + offset;
  }

  int dial_body_, goal_site_, knob_qpos_;
  Vec3 dial_push_position_;
};

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_DIAL_TURN_H_
