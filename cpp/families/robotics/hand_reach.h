// HandReach: gymnasium-robotics 1.4.2's
// gymnasium_robotics/envs/shadow_dexterous_hand/reach.py (MujocoHandReachEnv, the v3 ids).
// The goal is a position for each of the five fingertips (15 values): the thumb and one other
// finger meeting above the palm, or, one episode in ten, the fingertips' starting positions.
//
//   setup (the constructor's _env_setup): DEFAULT_INITIAL_QPOS set joint by joint, mj_forward;
//          the fingertips' positions there are initial_goal, the palm's position palm_xpos.
//   reset: mj_resetData, the saved state, mj_forward (MujocoRobotEnv._reset_sim); the goal:
//          np_random.choice of the four fingers; meeting_pos = palm_xpos + (0, -0.09, 0.05) +
//          normal(scale=0.005, size=3); the thumb's and that finger's goals 5 mm short of it,
//          from their initial positions; then, if uniform() < 0.1, initial_goal instead.
//   step:  clip, _set_action, n_substeps x mj_step; achieved_goal is the fingertips' sites;
//          the reward -(d > threshold) in float32 (so -0.0 on success) or -d, d the distance
//          between the 15-vectors.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_HAND_REACH_H_
#define ENVFLEET_FAMILIES_ROBOTICS_HAND_REACH_H_

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/numpy/math.h"
#include "families/robotics/hand_env.h"

namespace envfleet {
namespace robotics {

class HandReachEnv : public HandEnv {
 public:
  static constexpr int kGoalSize = 15;

  static Config Defaults() {
    // reach.DEFAULT_INITIAL_QPOS, in its order.
    static const char* const kJoints[] = {"WRJ1", "WRJ0", "FFJ3", "FFJ2", "FFJ1", "FFJ0",
                                          "MFJ3", "MFJ2", "MFJ1", "MFJ0", "RFJ3", "RFJ2",
                                          "RFJ1", "RFJ0", "LFJ4", "LFJ3", "LFJ2", "LFJ1",
                                          "LFJ0", "THJ4", "THJ3", "THJ2", "THJ1", "THJ0"};
    static const double kValues[] = {
        -0.16514339750464327, -0.31973286565062153,  0.14340512546557435,    0.32028208333591573,
        0.7126053607727917,   0.6705281001412586,    0.000246444303701037,   0.3152655251085491,
        0.7659800313729842,   0.7323156897425923,    0.00038520700007378114, 0.36743546201985233,
        0.7119514095008576,   0.6699446327514138,    0.0525442258033891,     -0.13615534724474673,
        0.39872030433433003,  0.7415570009679252,    0.704096378652974,      0.003673823825070126,
        0.5506291436028695,   -0.014515151997119306, -0.0015229223564485414, -0.7894883021600622};
    std::vector<std::string> joints;
    for (const char* joint : kJoints) joints.push_back(std::string("robot0:") + joint);
    Config config;
    AddHandDefaults(config, "hand/reach.xml", joints,
                    std::vector<double>(std::begin(kValues), std::end(kValues)));
    config.Set("distance_threshold", 0.01);
    return config;
  }

  static EnvSpec Spec(const Config& config) {
    ModelPtr model = LoadModel(ModelPath(config));
    Check(config, model.get());
    const int64_t robot = static_cast<int64_t>(RobotJoints(model.get()).size());
    return GoalSpec(2 * robot + kGoalSize, kGoalSize, kHandActions,
                    {{"is_success", DType::kFloat32}}, HandRenderSpec(config, model.get()));
  }

  HandReachEnv(const Config& config, uint64_t seed)
      : HandEnv(config, seed, LoadModel(ModelPath(config))),
        distance_threshold_(config.Get<double>("distance_threshold")),
        palm_body_(BodyId(model_, "robot0:palm")) {
    Check(config, model_);
    for (int f = 0; f < 5; ++f) {
      fingertip_sites_[f] = SiteId(model_, kFingertipSites[f]);
      target_sites_[f] = SiteId(model_, "target" + std::to_string(f));
      finger_sites_[f] = SiteId(model_, "finger" + std::to_string(f));
    }
    // The markers' model.site_pos, which the reference's _render_callback rewrites on every
    // frame and which persist (in the model) from frame to frame: kept per env here.
    for (int f = 0; f < 5; ++f) {
      for (int k = 0; k < 3; ++k) {
        target_site_pos_[f][k] = model_->site_pos[3 * target_sites_[f] + k];
        finger_site_pos_[f][k] = model_->site_pos[3 * finger_sites_[f] + k];
      }
    }
    obs_.resize(2 * static_cast<size_t>(num_robot_joints()) + kGoalSize);
    // _env_setup
    SetInitialJoints();
    AchievedGoal(initial_goal_);
    for (int k = 0; k < 3; ++k) palm_xpos_[k] = data_->xpos[3 * palm_body_ + k];
    SaveInitialState();
  }

  void Reset() override {
    RestoreInitialState();
    mj_forward(model_, data_);
    SampleGoal();
    Observe();
    is_success_ = 0.0f;  // the reference's reset info is empty; step infos have is_success
  }

  void Step(const void* action_ptr) override {
    const float* raw = static_cast<const float*>(action_ptr);
    float action[kHandActions];
    for (int i = 0; i < kHandActions; ++i) action[i] = ClipUnit(raw[i]);
    SetAction(action);
    StepSimulation();
    Observe();
    const double d = GoalDistance(achieved_goal_, goal_);
    is_success_ = static_cast<float>(d < distance_threshold_);
    // compute_reward: -(d > threshold).astype(np.float32), or -d.
    reward_ = dense_ ? -d : static_cast<double>(-static_cast<float>(d > distance_threshold_));
    terminated_ = false;  // BaseRobotEnv.compute_terminated
  }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<double>(0), obs_.data(), sizeof(double) * obs_.size());
    std::memcpy(out.Get<double>(1), achieved_goal_, sizeof(achieved_goal_));
    std::memcpy(out.Get<double>(2), goal_, sizeof(goal_));
    WriteInfo(out);
  }

  void WriteInfo(const OutputSlot& out) const { *out.Get<float>(first_info_key()) = is_success_; }

  // goal_distance: np.linalg.norm(goal_a - goal_b, axis=-1), whose axis form sums the squares
  // with add.reduce (NumPy's pairwise order), not BLAS.
  static double GoalDistance(const double* a, const double* b) {
    double diff[kGoalSize];
    for (int k = 0; k < kGoalSize; ++k) diff[k] = a[k] - b[k];
    return std::sqrt(numpy_math::NpSumOfSquares(diff, kGoalSize));
  }

 protected:
  // _render_callback, its data part: mj_forward (the markers' part is EditScene's).
  void BeforeRender() override {
    // The fingertips' positions before the frame's mj_forward, as _get_achieved_goal reads
    // them, and the markers' new model positions.
    double achieved[kGoalSize];
    AchievedGoal(achieved);
    for (int f = 0; f < 5; ++f) {
      PlaceMarker(target_sites_[f], target_site_pos_[f], goal_ + 3 * f);
      PlaceMarker(finger_sites_[f], finger_site_pos_[f], achieved + 3 * f);
    }
    mj_forward(model_, data_);
  }

  // The markers where the reference's mj_forward puts them: site_xpos = body xmat @ site_pos +
  // body xpos (mj_local2Global) from the edited site_pos.
  void EditScene(mjvScene* scene) override {
    for (int f = 0; f < 5; ++f) {
      double world[3];
      MarkerWorld(target_sites_[f], target_site_pos_[f], world);
      MoveSiteGeom(scene, target_sites_[f], world);
      MarkerWorld(finger_sites_[f], finger_site_pos_[f], world);
      MoveSiteGeom(scene, finger_sites_[f], world);
    }
  }

 private:
  static constexpr const char* kFingertipSites[5] = {
      "robot0:S_fftip", "robot0:S_mftip", "robot0:S_rftip", "robot0:S_lftip", "robot0:S_thtip"};
  static constexpr int kThumb = 4;  // FINGERTIP_SITE_NAMES.index("robot0:S_thtip")

  static void Check(const Config& config, const mjModel* m) {
    CheckHand(config, m);
    if (!(config.Get<double>("distance_threshold") >= 0)) {
      throw std::invalid_argument("distance_threshold must be >= 0, got " +
                                  std::to_string(config.Get<double>("distance_threshold")));
    }
  }

  // _get_achieved_goal: the five fingertip sites' positions.
  void AchievedGoal(double* out) const {
    for (int f = 0; f < 5; ++f) {
      for (int k = 0; k < 3; ++k) out[3 * f + k] = data_->site_xpos[3 * fingertip_sites_[f] + k];
    }
  }

  // _sample_goal.
  void SampleGoal() {
    // finger_name = np_random.choice(the four fingers other than the thumb)
    const int finger = static_cast<int>(rng().ChoiceIndex(4));
    static const double kAbovePalm[3] = {0.0, -0.09, 0.05};
    double meeting[3];
    for (int k = 0; k < 3; ++k) meeting[k] = palm_xpos_[k] + kAbovePalm[k];
    // np_random.normal(scale=0.005, size=3): loc + scale * standard_normal, loc 0.0.
    for (int k = 0; k < 3; ++k) meeting[k] += 0.0 + 0.005 * rng().StandardNormal();
    std::memcpy(goal_, initial_goal_, sizeof(goal_));
    for (int idx : {kThumb, finger}) {
      double direction[3];
      for (int k = 0; k < 3; ++k) direction[k] = meeting[k] - goal_[3 * idx + k];
      const double norm = NpNorm(direction, 3);
      for (int k = 0; k < 3; ++k) direction[k] /= norm;
      for (int k = 0; k < 3; ++k) goal_[3 * idx + k] = meeting[k] - 0.005 * direction[k];
    }
    if (rng().Uniform(0.0, 1.0) < 0.1) std::memcpy(goal_, initial_goal_, sizeof(goal_));
  }

  // _get_obs: robot_qpos, robot_qvel, achieved_goal.
  void Observe() {
    AchievedGoal(achieved_goal_);
    double* obs = WriteRobotObs(obs_.data());
    std::memcpy(obs, achieved_goal_, sizeof(achieved_goal_));
  }

  // One marker of _render_callback: model.site_pos = target - (site_xpos - site_pos), the
  // offset from the marker's current model position (its site_xpos as the last mj_forward or
  // mj_step computed it from that position).
  void PlaceMarker(int site, double* site_pos, const double* target) const {
    double xpos[3];
    MarkerWorld(site, site_pos, xpos);
    for (int k = 0; k < 3; ++k) {
      const double offset = xpos[k] - site_pos[k];
      site_pos[k] = target[k] - offset;
    }
  }

  // mj_local2Global for a site at model position `site_pos` on its body.
  void MarkerWorld(int site, const double* site_pos, double* world) const {
    const int body = model_->site_bodyid[site];
    mju_mulMatVec3(world, data_->xmat + 9 * body, site_pos);
    for (int k = 0; k < 3; ++k) world[k] += data_->xpos[3 * body + k];
  }

  double distance_threshold_;
  int palm_body_;
  int fingertip_sites_[5] = {}, target_sites_[5] = {}, finger_sites_[5] = {};
  double target_site_pos_[5][3] = {}, finger_site_pos_[5][3] = {};
  double initial_goal_[kGoalSize] = {};
  double palm_xpos_[3] = {};
  double goal_[kGoalSize] = {};
  double achieved_goal_[kGoalSize] = {};
  std::vector<double> obs_;
  float is_success_ = 0.0f;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_HAND_REACH_H_
