// AdroitHandRelocate: gymnasium-robotics 1.4.2's
// gymnasium_robotics/envs/adroit_hand/adroit_relocate.py (AdroitHandRelocateEnv). The hand
// moves a ball to a target; both are placed at random on each reset.
//
//   reset: the ball ("Object" body) at x in [-0.15, 0.15), y in [-0.15, 0.3); the "target"
//          site at x, y in [-0.2, 0.2), z in [0.15, 0.35) (five draws, in that order).
//   obs:   qpos[:-6], palm - ball, palm - target, ball - target.
//   reward (dense): 0.1 * |palm - ball| (a bonus, as the reference writes it); with the ball
//          above 4 cm, + 1 - 0.5 * |palm - target| - 0.5 * |ball - target|; + 10 with the ball
//          within 10 cm of the target, + 20 within 5 cm. success: within 10 cm.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_ADROIT_RELOCATE_H_
#define ENVFLEET_FAMILIES_ROBOTICS_ADROIT_RELOCATE_H_

#include <cstring>
#include <vector>

#include "families/robotics/adroit.h"

namespace envfleet {
namespace robotics {

class AdroitRelocateEnv : public AdroitEnv {
 public:
  static Config Defaults() { return AdroitEnv::Defaults("adroit_hand/adroit_relocate.xml"); }

  static EnvSpec Spec(const Config& config) {
    ModelPtr model = Model(config);
    RequireState(model.get(), "AdroitHandRelocate", 6, 0);
    return AdroitSpec(config, model.get(), ObsSize(model.get()));
  }

  AdroitRelocateEnv(const Config& config, uint64_t seed)
      : AdroitEnv(config, seed),
        target_site_(SiteId(model_, "target")),
        grasp_site_(SiteId(model_, "S_grasp")),
        ball_body_(BodyId(model_, "Object")),
        obs_(static_cast<size_t>(ObsSize(model_))) {
    RequireState(model_, "AdroitHandRelocate", 6, 0);
    default_camera_.distance = 1.5;  // adroit_relocate.DEFAULT_CAMERA_CONFIG
    default_camera_.azimuth = 90.0;
  }

  void Reset() override {
    ResetData();
    mjModel* m = own_model();
    m->body_pos[3 * ball_body_] = rng().Uniform(-0.15, 0.15);
    m->body_pos[3 * ball_body_ + 1] = rng().Uniform(-0.15, 0.3);
    m->site_pos[3 * target_site_] = rng().Uniform(-0.2, 0.2);
    m->site_pos[3 * target_site_ + 1] = rng().Uniform(-0.2, 0.2);
    m->site_pos[3 * target_site_ + 2] = rng().Uniform(0.15, 0.35);
    SetInitialState();
    Observe();
    success_ = false;
  }

  void Step(const void* action) override {
    Simulate(static_cast<const float*>(action));
    Observe();
    const double* ball = body_xpos(ball_body_);
    const double* palm = site_xpos(grasp_site_);
    const double* target = site_xpos(target_site_);
    const double goal_distance = Distance(ball, target);
    success_ = goal_distance < 0.1;
    if (sparse_) {
      reward_ = success_ ? 10.0 : -0.1;
      return;
    }
    double reward = 0.1 * Distance(palm, ball);
    if (ball[2] > 0.04) {
      reward += 1.0;
      reward += -0.5 * Distance(palm, target);
      reward += -0.5 * Distance(ball, target);
    }
    if (goal_distance < 0.1) reward += 10.0;
    if (goal_distance < 0.05) reward += 20.0;
    reward_ = reward;
  }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<double>(0), obs_.data(), sizeof(double) * obs_.size());
    WriteInfo(out);
  }

 private:
  static int ObsSize(const mjModel* m) { return m->nq - 6 + 9; }

  // _get_obs.
  void Observe() {
    const double* ball = body_xpos(ball_body_);
    const double* palm = site_xpos(grasp_site_);
    const double* target = site_xpos(target_site_);
    double* obs = obs_.data();
    for (int i = 0; i < model_->nq - 6; ++i) *obs++ = data_->qpos[i];
    for (int k = 0; k < 3; ++k) *obs++ = palm[k] - ball[k];
    for (int k = 0; k < 3; ++k) *obs++ = palm[k] - target[k];
    for (int k = 0; k < 3; ++k) *obs++ = ball[k] - target[k];
  }

  int target_site_, grasp_site_, ball_body_;
  std::vector<double> obs_;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_ADROIT_RELOCATE_H_
