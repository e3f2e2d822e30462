// AdroitHandHammer: gymnasium-robotics 1.4.2's
// gymnasium_robotics/envs/adroit_hand/adroit_hammer.py (AdroitHandHammerEnv). The hand picks
// up a hammer and drives a nail into a board placed at a random height on each reset.
//
//   reset: the "nail_board" body's z drawn uniform in [0.1, 0.25).
//   obs:   qpos[:-6], np.clip(qvel, -1, 1)[-6:], the palm (S_grasp), the hammer ("Object"
//          body), its Euler angles (quat2euler of its xquat), the nail (S_target), and
//          np.clip(sensordata[id of the S_nail sensor], -1, 1).
//   reward (dense): 0.1 * |palm - hammer| (a bonus, as the reference writes it) - |head -
//          nail| - 10 * |nail - goal| - 0.01 * |qvel|, + 2 with hammer and head above 4 cm,
//          + 25 with the nail within 2 cm of its goal, + 75 within 1 cm. success: within 1 cm.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_ADROIT_HAMMER_H_
#define ENVFLEET_FAMILIES_ROBOTICS_ADROIT_HAMMER_H_

#include <cstring>
#include <vector>

#include "families/robotics/adroit.h"
#include "families/robotics/rotations.h"

namespace envfleet {
namespace robotics {

class AdroitHammerEnv : public AdroitEnv {
 public:
  static Config Defaults() { return AdroitEnv::Defaults("adroit_hand/adroit_hammer.xml"); }

  static EnvSpec Spec(const Config& config) {
    ModelPtr model = Model(config);
    RequireState(model.get(), "AdroitHandHammer", 6, 6);
    return AdroitSpec(config, model.get(), ObsSize(model.get()));
  }

  AdroitHammerEnv(const Config& config, uint64_t seed)
      : AdroitEnv(config, seed),
        target_site_(SiteId(model_, "S_target")),
        grasp_site_(SiteId(model_, "S_grasp")),
        hammer_body_(BodyId(model_, "Object")),
        tool_site_(SiteId(model_, "tool")),
        goal_site_(SiteId(model_, "nail_goal")),
        board_body_(BodyId(model_, "nail_board")),
        nail_sensor_(NailSensor(model_)),
        obs_(static_cast<size_t>(ObsSize(model_))) {
    default_camera_.distance = 2.0;  // adroit_hammer.DEFAULT_CAMERA_CONFIG
    default_camera_.azimuth = 45.0;
  }

  void Reset() override {
    ResetData();
    own_model()->body_pos[3 * board_body_ + 2] = rng().Uniform(0.1, 0.25);
    SetInitialState();
    Observe();
    success_ = false;
  }

  void Step(const void* action) override {
    Simulate(static_cast<const float*>(action));
    Observe();
    const double* hammer = body_xpos(hammer_body_);
    const double* head = site_xpos(tool_site_);
    const double* nail = site_xpos(target_site_);
    const double goal_distance = Distance(nail, site_xpos(goal_site_));
    success_ = goal_distance < 0.01;
    if (sparse_) {
      reward_ = success_ ? 10.0 : -0.1;
      return;
    }
    double reward = 0.1 * Distance(site_xpos(grasp_site_), hammer);
    reward -= Distance(head, nail);
    reward -= 10 * goal_distance;
    reward -= 1e-2 * LongNorm(data_->qvel, model_->nv);
    if (hammer[2] > 0.04 && head[2] > 0.04) reward += 2;
    if (goal_distance < 0.020) reward += 25;
    if (goal_distance < 0.010) reward += 75;
    reward_ = reward;
  }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<double>(0), obs_.data(), sizeof(double) * obs_.size());
    WriteInfo(out);
  }

 private:
  static int ObsSize(const mjModel* m) { return m->nq - 6 + 19; }

  // The reference reads sensordata at the sensor's id (not its sensor_adr: the same in the
  // model, whose S_nail is sensor 0).
  static int NailSensor(const mjModel* m) {
    RequireState(m, "AdroitHandHammer", 6, 6);
    const int id = NameId(m, mjOBJ_SENSOR, "sensor", "S_nail");
    if (id >= m->nsensordata) {
      throw std::invalid_argument("xml_file: the S_nail sensor's id is past sensordata");
    }
    return id;
  }

  // _get_obs.
  void Observe() {
    const int nq = model_->nq, nv = model_->nv;
    double* obs = obs_.data();
    for (int i = 0; i < nq - 6; ++i) *obs++ = data_->qpos[i];
    for (int i = nv - 6; i < nv; ++i) *obs++ = numpy_math::NpClip(data_->qvel[i], -1.0, 1.0);
    for (int k = 0; k < 3; ++k) *obs++ = site_xpos(grasp_site_)[k];
    for (int k = 0; k < 3; ++k) *obs++ = body_xpos(hammer_body_)[k];
    rotations::Quat2Euler(data_->xquat + 4 * hammer_body_, obs);
    obs += 3;
    for (int k = 0; k < 3; ++k) *obs++ = site_xpos(target_site_)[k];
    *obs = numpy_math::NpClip(data_->sensordata[nail_sensor_], -1.0, 1.0);
  }

  int target_site_, grasp_site_, hammer_body_, tool_site_, goal_site_, board_body_;
  int nail_sensor_;
  std::vector<double> obs_;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_ADROIT_HAMMER_H_
