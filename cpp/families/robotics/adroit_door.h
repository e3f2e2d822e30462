// AdroitHandDoor: gymnasium-robotics 1.4.2's
// gymnasium_robotics/envs/adroit_hand/adroit_door.py (AdroitHandDoorEnv). The hand undoes a
// latch and swings a door open; the door's frame is placed at random on each reset.
//
//   reset: the "frame" body's position x, y, z drawn uniform in [-0.3, -0.2), [0.25, 0.35),
//          [0.252, 0.35) (three draws, in that order).
//   obs:   qpos[1:-2], the latch (qpos[-1]), the door hinge, the palm (S_grasp), the handle
//          (S_handle), palm - handle, and 1.0 if the hinge is past 1.0 rad else -1.0.
//   reward (dense): 0.1 * |palm - handle| (a bonus, as the reference writes it)
//          - 0.1 * (hinge - 1.57)^2 - 1e-5 * sum(qvel^2), + 2 past 0.2 rad, + 8 past 1.0,
//          + 10 past 1.35. success: hinge >= 1.35.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_ADROIT_DOOR_H_
#define ENVFLEET_FAMILIES_ROBOTICS_ADROIT_DOOR_H_

#include <cstring>
#include <vector>

#include "families/robotics/adroit.h"

namespace envfleet {
namespace robotics {

class AdroitDoorEnv : public AdroitEnv {
 public:
  static Config Defaults() { return AdroitEnv::Defaults("adroit_hand/adroit_door.xml"); }

  static EnvSpec Spec(const Config& config) {
    ModelPtr model = Model(config);
    RequireState(model.get(), "AdroitHandDoor", 3, 0);
    return AdroitSpec(config, model.get(), ObsSize(model.get()));
  }

  AdroitDoorEnv(const Config& config, uint64_t seed)
      : AdroitEnv(config, seed),
        door_hinge_(DoorHinge(model_)),
        grasp_site_(SiteId(model_, "S_grasp")),
        handle_site_(SiteId(model_, "S_handle")),
        door_body_(BodyId(model_, "frame")),
        obs_(static_cast<size_t>(ObsSize(model_))) {
    default_camera_.distance = 1.5;  // adroit_door.DEFAULT_CAMERA_CONFIG
    default_camera_.azimuth = 90.0;
  }

  void Reset() override {
    ResetData();
    double* frame = own_model()->body_pos + 3 * door_body_;
    frame[0] = rng().Uniform(-0.3, -0.2);
    frame[1] = rng().Uniform(0.25, 0.35);
    frame[2] = rng().Uniform(0.252, 0.35);
    SetInitialState();
    Observe();
    success_ = false;
  }

  void Step(const void* action) override {
    Simulate(static_cast<const float*>(action));
    Observe();
    const double goal_distance = data_->qpos[door_hinge_];
    success_ = goal_distance >= 1.35;
    if (sparse_) {
      reward_ = success_ ? 10.0 : -0.1;
      return;
    }
    double reward = 0.1 * Distance(site_xpos(grasp_site_), site_xpos(handle_site_));
    reward += -0.1 * (goal_distance - 1.57) * (goal_distance - 1.57);
    reward += -1e-5 * numpy_math::NpSumOfSquares(data_->qvel, model_->nv);
    if (goal_distance > 0.2) reward += 2;
    if (goal_distance > 1.0) reward += 8;
    if (goal_distance > 1.35) reward += 10;
    reward_ = reward;
  }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<double>(0), obs_.data(), sizeof(double) * obs_.size());
    WriteInfo(out);
  }

 private:
  static int ObsSize(const mjModel* m) { return m->nq - 3 + 12; }

  // The hinge's value: the reference indexes qpos with the joint's jnt_dofadr (the same
  // address for the model's hinges).
  static int DoorHinge(const mjModel* m) {
    RequireState(m, "AdroitHandDoor", 3, 0);
    const int address = m->jnt_dofadr[NameId(m, mjOBJ_JOINT, "joint", "door_hinge")];
    if (address < 0 || address >= m->nq) {
      throw std::invalid_argument("xml_file: door_hinge's dof address is not a qpos index");
    }
    return address;
  }

  // _get_obs.
  void Observe() {
    const int nq = model_->nq;
    const double* qpos = data_->qpos;
    const double* palm = site_xpos(grasp_site_);
    const double* handle = site_xpos(handle_site_);
    const double door = qpos[door_hinge_];
    double* obs = obs_.data();
    for (int i = 1; i < nq - 2; ++i) *obs++ = qpos[i];
    *obs++ = qpos[nq - 1];  // the latch
    *obs++ = door;
    for (int k = 0; k < 3; ++k) *obs++ = palm[k];
    for (int k = 0; k < 3; ++k) *obs++ = handle[k];
    for (int k = 0; k < 3; ++k) *obs++ = palm[k] - handle[k];
    *obs = door > 1.0 ? 1.0 : -1.0;
  }

  int door_hinge_, grasp_site_, handle_site_, door_body_;
  std::vector<double> obs_;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_ADROIT_DOOR_H_
