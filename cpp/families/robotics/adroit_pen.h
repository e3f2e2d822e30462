// AdroitHandPen: gymnasium-robotics 1.4.2's
// gymnasium_robotics/envs/adroit_hand/adroit_pen.py (AdroitHandPenEnv). The hand turns a pen
// to a target orientation drawn on each reset.
//
//   reset: Euler angles (x, y, 0), x and y drawn uniform in [-1, 1), become the "target"
//          body's quaternion (euler2quat); after set_state the pen's and the target's lengths
//          (|top - bottom| of each) are measured.
//   obs:   qpos[:-6], the pen ("Object" body), qvel[-6:], the pen's direction (top - bottom,
//          over its length), the target's, pen - eps_ball, and the two directions' difference.
//   reward (dense): -|pen - eps_ball| + directions' dot product, + 10 within 7.5 cm and a dot
//          above 0.9, + 50 above 0.95, - 5 with the pen below 7.5 cm (dropped). success:
//          within 7.5 cm and a dot above 0.95.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_ADROIT_PEN_H_
#define ENVFLEET_FAMILIES_ROBOTICS_ADROIT_PEN_H_

#include <cstring>
#include <vector>

#include "families/robotics/adroit.h"
#include "families/robotics/rotations.h"

namespace envfleet {
namespace robotics {

class AdroitPenEnv : public AdroitEnv {
 public:
  static Config Defaults() { return AdroitEnv::Defaults("adroit_hand/adroit_pen.xml"); }

  static EnvSpec Spec(const Config& config) {
    ModelPtr model = Model(config);
    RequireState(model.get(), "AdroitHandPen", 6, 6);
    return AdroitSpec(config, model.get(), ObsSize(model.get()));
  }

  AdroitPenEnv(const Config& config, uint64_t seed)
      : AdroitEnv(config, seed),
        target_body_(BodyId(model_, "target")),
        pen_body_(BodyId(model_, "Object")),
        eps_ball_site_(SiteId(model_, "eps_ball")),
        pen_top_site_(SiteId(model_, "object_top")),
        pen_bottom_site_(SiteId(model_, "object_bottom")),
        target_top_site_(SiteId(model_, "target_top")),
        target_bottom_site_(SiteId(model_, "target_bottom")),
        obs_(static_cast<size_t>(ObsSize(model_))) {
    RequireState(model_, "AdroitHandPen", 6, 6);
    default_camera_.distance = 1.0;  // adroit_pen.DEFAULT_CAMERA_CONFIG
    default_camera_.azimuth = -45.0;
  }

  void Reset() override {
    ResetData();
    double desired_orien[3] = {0.0, 0.0, 0.0};
    desired_orien[0] = rng().Uniform(-1, 1);
    desired_orien[1] = rng().Uniform(-1, 1);
    rotations::Euler2Quat(desired_orien, own_model()->body_quat + 4 * target_body_);
    SetInitialState();
    pen_length_ = Distance(site_xpos(pen_top_site_), site_xpos(pen_bottom_site_));
    target_length_ = Distance(site_xpos(target_top_site_), site_xpos(target_bottom_site_));
    Observe();
    success_ = false;
  }

  void Step(const void* action) override {
    Simulate(static_cast<const float*>(action));
    Observe();
    const double* pen = body_xpos(pen_body_);
    const double goal_distance = Distance(pen, site_xpos(eps_ball_site_));
    // np.dot(obj_orien, desired_orien): 0.0 + cblas_ddot of the two directions.
    double orien_similarity = 0.0;
    numpy_math::NpMatVec(pen_orien_, 1, 3, target_orien_, &orien_similarity);
    success_ = goal_distance < 0.075 && orien_similarity > 0.95;
    if (sparse_) {
      reward_ = success_ ? 10.0 : -0.1;
      return;
    }
    double reward = -goal_distance + orien_similarity;
    if (goal_distance < 0.075 && orien_similarity > 0.9) reward += 10;
    if (goal_distance < 0.075 && orien_similarity > 0.95) reward += 50;
    if (pen[2] < 0.075) reward -= 5;
    reward_ = reward;
  }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<double>(0), obs_.data(), sizeof(double) * obs_.size());
    WriteInfo(out);
  }

 private:
  static int ObsSize(const mjModel* m) { return m->nq - 6 + 21; }

  // (top - bottom) / length.
  void Direction(int top, int bottom, double length, double* out) const {
    for (int k = 0; k < 3; ++k) out[k] = (site_xpos(top)[k] - site_xpos(bottom)[k]) / length;
  }

  // _get_obs; keeps the two directions for the reward.
  void Observe() {
    const int nq = model_->nq, nv = model_->nv;
    const double* pen = body_xpos(pen_body_);
    const double* desired = site_xpos(eps_ball_site_);
    Direction(pen_top_site_, pen_bottom_site_, pen_length_, pen_orien_);
    Direction(target_top_site_, target_bottom_site_, target_length_, target_orien_);
    double* obs = obs_.data();
    for (int i = 0; i < nq - 6; ++i) *obs++ = data_->qpos[i];
    for (int k = 0; k < 3; ++k) *obs++ = pen[k];
    for (int i = nv - 6; i < nv; ++i) *obs++ = data_->qvel[i];
    for (int k = 0; k < 3; ++k) *obs++ = pen_orien_[k];
    for (int k = 0; k < 3; ++k) *obs++ = target_orien_[k];
    for (int k = 0; k < 3; ++k) *obs++ = pen[k] - desired[k];
    for (int k = 0; k < 3; ++k) *obs++ = pen_orien_[k] - target_orien_[k];
  }

  int target_body_, pen_body_, eps_ball_site_;
  int pen_top_site_, pen_bottom_site_, target_top_site_, target_bottom_site_;
  // pen_length / tar_length (1.0 until the first reset measures them).
  double pen_length_ = 1.0, target_length_ = 1.0;
  double pen_orien_[3] = {}, target_orien_[3] = {};
  std::vector<double> obs_;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_ADROIT_PEN_H_
