// The base of every Meta-World task: metaworld 3.1.1's metaworld/sawyer_xyz_env.py
// (SawyerMocapBase + SawyerXYZEnv: the Sawyer arm driven through its mocap body, the 39-value
// observation, the gripper caging reward) on Gymnasium's MujocoEnv, as the reference runs it.
// Each task (one header per task, <task>.h) derives from SawyerEnv through Task<T> and writes
// its reset_model, its objects and its evaluate_state.
//
// What the reference does that shapes this class:
// - Tasks edit their model at reset (the object's body or the goal site moved to the sampled
//   positions: body_pos and site_pos, nothing else), so each env has a model of its own in
//   those two arrays: a copy of the shared mjModel's struct whose body_pos and site_pos point at
//   the env's own arrays, every other field read from the one model loaded per file (an
//   mj_copyModel would be 19 MB an env, most of it meshes, textures and their BVHs).
// - SawyerXYZEnv.reset runs the task's reset_model, then MujocoEnv.reset runs mj_resetData and
//   reset_model again. The first run's physics is wiped, but not its random draws nor its edits
//   of the model (which the second run's hand reset steps with): Reset() runs reset_model twice
//   too, the first time without the 50 simulation steps of _reset_hand (`dry_`), whose state
//   mj_resetData discards.
// - A task's random positions (_get_state_rand_vec) are drawn at every reset from the env's own
//   generator (the reference with seeded_rand_vec=True, seeded by env.seed(seed); EnvPool draws
//   at every reset too), or are the `rand_vec` option's, fixed as Meta-World's set_task fixes a
//   task's (an MT1/ML1 task: pickle.loads(task.data)["rand_vec"]).
// - Gymnasium's MujocoEnv.do_simulation ends with mj_rnePostConstraint; named accessors such as
//   data.body("leftpad").xpos are views, so values a task keeps from them (init_left_pad) follow
//   the simulation: such values are read where the task uses them.
#ifndef ENVFLEET_FAMILIES_METAWORLD_SAWYER_ENV_H_
#define ENVFLEET_FAMILIES_METAWORLD_SAWYER_ENV_H_

#include <mujoco/mujoco.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/numpy/math.h"
#include "families/metaworld/reward_utils.h"
#include "families/robotics/robot_env.h"

namespace envfleet {
namespace metaworld {

using robotics::ModelPtr;

// What a task states in its constructor: the model file, the hand's bounds and start, the
// spaces its positions are drawn from (_random_reset_space) and its goal_space.
struct TaskConstants {
  const char* name;      // Meta-World's name, "pick-place-v3"
  const char* xml_file;  // relative to metaworld/assets
  Vec3 hand_low, hand_high;
  Vec3 mocap_low, mocap_high;  // SawyerXYZEnv's mocap_low/high (hand_low/high when not given)
  Vec3 hand_init_pos;          // init_config["hand_init_pos"]
  std::vector<double> random_low, random_high;
  Vec3 goal_low, goal_high;
};

// SawyerXYZEnv._HAND_SPACE: the observation's bounds of the hand position.
inline constexpr double kHandSpaceLow[3] = {-0.525, 0.348, -0.0525};
inline constexpr double kHandSpaceHigh[3] = {0.525, 1.025, 0.7};
inline constexpr int kObsObjMaxLen = 14;             // positions and quaternions of the objects
inline constexpr int kFrameObs = 4 + kObsObjMaxLen;  // hand, gripper, objects: 18
inline constexpr int kObsSize = 2 * kFrameObs + 3;   // this frame, the previous one, the goal
inline constexpr int kMaxPathLength = 500;           // SawyerXYZEnv.max_path_length

// What evaluate_state returns: the reward and its info.
// Values are doubles; an np.float32 of the reference (a reward computed from the action) is
// its float value exactly.
struct Evaluation {
  double reward = 0;
  double success = 0, near_object = 0, grasp_success = 0, grasp_reward = 0, in_place_reward = 0,
         obj_to_target = 0;
};

// The info keys, in the reference's order (unscaled_reward is the reward again).
inline const std::vector<robotics::InfoKey>& InfoKeys() {
  static const std::vector<robotics::InfoKey> keys = {
      {"success"},         {"near_object"},   {"grasp_success"},   {"grasp_reward"},
      {"in_place_reward"}, {"obj_to_target"}, {"unscaled_reward"}, {"task_id", DType::kInt32}};
  return keys;
}

// SawyerMocapBase.reset_mocap_welds on MuJoCo 4.0 (11 of the 12 eq_data values a weld has
// there; the reference writes 11, which MuJoCo 3.3's mjNEQDATA was).
inline void ResetSawyerWelds(mjModel* m) {
  if (m->nmocap == 0) return;
  static const double kWeld[11] = {0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 5.0};
  for (int i = 0; i < m->neq; ++i) {
    if (m->eq_type[i] != mjEQ_WELD) continue;
    for (int k = 0; k < 11; ++k) m->eq_data[i * mjNEQDATA + k] = kWeld[k];
  }
}

class SawyerEnv : public robotics::RobotEnv {
 public:
  static constexpr bool kTruncates = true;  // at max_path_length, whatever the time limit

  // The options every task takes, its model file the default of xml_file.
  static Config Defaults(const TaskConstants& task) {
    Config config;
    robotics::AddCommonDefaults(config, task.xml_file);
    config.Set("frame_skip", int64_t{5});
    config.Set("partially_observable", true);
    config.Set("rand_vec", std::vector<double>());
    config.Set("task_index", int64_t{0});  // its index in EnvPool's list: info["task_id"]
    return config;
  }

  static ModelPtr Model(const Config& config) {
    const std::string& dir = config.Get<std::string>("assets_dir");
    const std::string& xml_file = config.Get<std::string>("xml_file");
    if (!xml_file.empty() && xml_file[0] != '/' && !dir.empty() &&
        ::access(dir.c_str(), F_OK) != 0) {
      throw std::invalid_argument(
          "assets_dir '" + dir +
          "' does not exist: Meta-World's models come from the metaworld package, which "
          "requires another MuJoCo than envfleet's and is installed alone: pip install "
          "--no-deps metaworld==3.1.1, or envfleet.families.metaworld.install()");
    }
    return robotics::LoadModel(robotics::ModelPath(config), ResetSawyerWelds);
  }

  static EnvSpec Spec(const Config& config, const TaskConstants& task) {
    ModelPtr model = Model(config);
    CheckOptions(config, task);
    const bool partially_observable = config.Get<bool>("partially_observable");
    std::vector<double> low, high;
    ObservationBounds(task, partially_observable, &low, &high);
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kFloat64, {kObsSize}, low, high)};
    spec.obs_layout = ObsLayout::kSingle;
    spec.info = robotics::InfoSpecs(InfoKeys());
    spec.action = Box("action", DType::kFloat32, {4}, {-1.0}, {1.0});
    const double dt = model->opt.timestep * static_cast<double>(config.Get<int64_t>("frame_skip"));
    // SawyerMocapBase.metadata["render_fps"] = 80, which MujocoEnv asserts is round(1 / dt).
    spec.render = robotics::RobotRenderSpec(model.get(), std::nearbyint(1.0 / dt));
    return spec;
  }

  void Reset() override {
    elapsed_ = 0;
    dry_ = true;  // SawyerXYZEnv.reset's reset_model
    ResetModel();
    dry_ = false;
    mj_resetData(model_, data_);  // MujocoEnv.reset: _reset_simulation, then reset_model
    ResetModel();
    // reset_model's _get_obs, whose previous frame SawyerXYZEnv.reset replaces by this one.
    CurrentFrame(prev_obs_);
    std::memcpy(obs_, prev_obs_, sizeof(prev_obs_));
    std::memcpy(obs_ + kFrameObs, prev_obs_, sizeof(prev_obs_));
    WriteGoal(obs_ + 2 * kFrameObs);
    evaluation_ = Evaluation();  // the reference's reset info is empty
  }

  void Step(const void* action_ptr) override {
    const float* raw = static_cast<const float*>(action_ptr);
    SetXyzAction(raw);
    // do_simulation([a[-1], -a[-1]], frame_skip): the gripper's two actuators.
    data_->ctrl[0] = static_cast<double>(raw[3]);
    data_->ctrl[1] = -static_cast<double>(raw[3]);
    Simulate();
    ++elapsed_;
    mj_forward(model_, data_);
    // _get_obs, clipped to the observation space.
    double frame[kFrameObs];
    CurrentFrame(frame);
    std::memcpy(obs_, frame, sizeof(frame));
    std::memcpy(obs_ + kFrameObs, prev_obs_, sizeof(prev_obs_));
    std::memcpy(prev_obs_, frame, sizeof(frame));
    WriteGoal(obs_ + 2 * kFrameObs);
    for (int i = 0; i < kObsSize; ++i) {
      obs_[i] = numpy_math::NpClip(obs_[i], obs_low_[i], obs_high_[i]);
    }
    evaluation_ = Evaluate(obs_, raw);
    reward_ = evaluation_.reward;
    terminated_ = false;
    truncated_ = elapsed_ == kMaxPathLength;
  }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<double>(0), obs_, sizeof(obs_));
    WriteInfo(out);
  }

  void WriteInfo(const OutputSlot& out) const {
    const int k = first_info_key();
    const Evaluation& e = evaluation_;
    const double values[7] = {e.success,         e.near_object,   e.grasp_success, e.grasp_reward,
                              e.in_place_reward, e.obj_to_target, e.reward};
    for (int i = 0; i < 7; ++i) *out.Get<double>(k + i) = values[i];
    *out.Get<int32_t>(k + 7) = task_id_;
  }

 protected:
  SawyerEnv(const Config& config, uint64_t seed, const TaskConstants& task)
      : RobotEnv(config, seed, Model(config), static_cast<int>(config.Get<int64_t>("frame_skip")),
                 1),
        task_(task),
        partially_observable_(config.Get<bool>("partially_observable")),
        fixed_rand_vec_(config.Get<std::vector<double>>("rand_vec")),
        task_id_(static_cast<int32_t>(config.Get<int64_t>("task_index"))) {
    CheckOptions(config, task);
    // The env's model (see the top): the shared one but for its own body_pos and site_pos.
    own_model_ = *model_;
    own_body_pos_.assign(model_->body_pos, model_->body_pos + 3 * model_->nbody);
    own_site_pos_.assign(model_->site_pos, model_->site_pos + 3 * model_->nsite);
    own_model_.body_pos = own_body_pos_.data();
    own_model_.site_pos = own_site_pos_.data();
    model_ = &own_model_;
    if (model_->nu < 2 || model_->nmocap < 1) {
      throw std::invalid_argument("xml_file: a Sawyer model has a mocap body and two actuators");
    }
    ObservationBounds(task, partially_observable_, &obs_low_, &obs_high_);
    hand_body_ = Body("hand");
    mocap_id_ = model_->body_mocapid[Body("mocap")];
    right_claw_ = Body("rightclaw");
    left_claw_ = Body("leftclaw");
    left_pad_ = Body("leftpad");
    right_pad_ = Body("rightpad");
    right_effector_ = Site("rightEndEffector");
    left_effector_ = Site("leftEndEffector");
    leftpad_geom_ = Geom("leftpad_geom");
    rightpad_geom_ = Geom("rightpad_geom");
    hand_init_pos_ = task.hand_init_pos;
    rand_vec_.resize(task.random_low.size());
    mj_forward(model_, data_);  // SawyerXYZEnv.__init__
  }

  // ---- What each task writes -------------------------------------------------------------------

  // reset_model: place the hand, the objects and the goal (target_pos_).
  virtual void ResetModel() = 0;
  // _get_pos_objects / _get_quat_objects: the objects' positions (3 each) and quaternions (4
  // each); returns the number of objects (at most 2: 14 values).
  virtual int Objects(double* pos, double* quat) = 0;
  // evaluate_state(obs, action): `obs` the clipped observation, `action` as given (unclipped).
  virtual Evaluation Evaluate(const double* obs, const float* action) = 0;
  // _get_pos_goal: the target position by default.
  virtual Vec3 GoalPos() { return target_pos_; }

  // ---- The reference's helpers, for the tasks --------------------------------------------------

  int Body(const char* name) const { return robotics::BodyId(model_, name); }
  int Site(const char* name) const { return robotics::SiteId(model_, name); }
  int Geom(const char* name) const { return robotics::NameId(model_, mjOBJ_GEOM, "geom", name); }
  int Joint(const char* name) const { return robotics::NameId(model_, mjOBJ_JOINT, "joint", name); }
  const mjModel* model() const { return &own_model_; }

  Vec3 BodyPos(int body) const { return Vec3::Of(data_->xpos + 3 * body); }   // get_body_com
  const double* BodyQuat(int body) const { return data_->xquat + 4 * body; }  // (w, x, y, z)
  const double* BodyXmat(int body) const { return data_->xmat + 9 * body; }
  Vec3 SitePos(int site) const { return Vec3::Of(data_->site_xpos + 3 * site); }
  const double* SiteXmat(int site) const { return data_->site_xmat + 9 * site; }
  Vec3 GeomPos(int geom) const { return Vec3::Of(data_->geom_xpos + 3 * geom); }
  const double* GeomXmat(int geom) const { return data_->geom_xmat + 9 * geom; }
  Vec3 LeftPad() const { return BodyPos(left_pad_); }
  Vec3 RightPad() const { return BodyPos(right_pad_); }

  // tcp_center: the midpoint of the two fingers' end-effector sites.
  Vec3 TcpCenter() const { return (SitePos(right_effector_) + SitePos(left_effector_)) / 2.0; }

  void SetBodyPos(int body, const Vec3& pos) {
    for (int k = 0; k < 3; ++k) own_body_pos_[3 * body + k] = pos[k];
  }
  void SetSitePos(int site, const Vec3& pos) {
    for (int k = 0; k < 3; ++k) own_site_pos_[3 * site + k] = pos[k];
  }

  // MujocoEnv.set_state after the task wrote data_->qpos / qvel in place: act (none in these
  // models), then mj_forward.
  void Forward() { mj_forward(model_, data_); }

  // _set_obj_xyz: qpos[9:12] = pos, qvel[9:15] = 0, then set_state.
  void SetObjXyz(const Vec3& pos) {
    for (int k = 0; k < 3; ++k) data_->qpos[9 + k] = pos[k];
    for (int k = 0; k < 6; ++k) data_->qvel[9 + k] = 0;
    Forward();
  }

  // _reset_hand(steps): the mocap held at hand_init_pos for `steps` steps of frame_skip
  // substeps with the gripper open, then init_tcp. In the first, discarded reset_model run
  // (dry_) the steps are skipped: mj_resetData wipes their state.
  void ResetHand(int steps = 50) {
    if (!dry_) {
      static const double kQuat[4] = {1, 0, 1, 0};
      for (int i = 0; i < steps; ++i) {
        for (int k = 0; k < 3; ++k) data_->mocap_pos[3 * mocap_id_ + k] = hand_init_pos_[k];
        for (int k = 0; k < 4; ++k) data_->mocap_quat[4 * mocap_id_ + k] = kQuat[k];
        data_->ctrl[0] = -1;
        data_->ctrl[1] = 1;
        Simulate();
      }
    }
    init_tcp_ = TcpCenter();
  }

  // _get_state_rand_vec: the `rand_vec` option, else a fresh draw from the random reset space
  // (np_random.uniform(low, high, size)). A task that redraws until its positions are apart
  // calls RedrawUnless: with a fixed rand_vec that fails the test the reference would loop
  // forever; here it raises.
  const std::vector<double>& StateRandVec() {
    if (!fixed_rand_vec_.empty()) {
      rand_vec_ = fixed_rand_vec_;
    } else {
      for (size_t i = 0; i < rand_vec_.size(); ++i) {
        rand_vec_[i] = rng().Uniform(task_.random_low[i], task_.random_high[i]);
      }
    }
    return rand_vec_;
  }
  // Throws (for a fixed rand_vec) where the reference would redraw forever.
  void CheckRedraw(const char* condition) const {
    if (!fixed_rand_vec_.empty()) {
      throw std::invalid_argument(std::string("rand_vec: ") + task_.name +
                                  " redraws its positions until " + condition +
                                  ", which the given rand_vec never satisfies");
    }
  }

  // touching_object(geom): both finger pads in contact with the geom, each with a positive
  // total normal force (efc_force at each contact's efc_address; -1 reads the last value, as
  // NumPy's index does).
  bool TouchingObject(int geom) const {
    double left = 0, right = 0;
    for (int i = 0; i < data_->ncon; ++i) {
      const mjContact& c = data_->contact[i];
      const bool object = c.geom[0] == geom || c.geom[1] == geom;
      if (!object) continue;
      const int address = c.efc_address >= 0 ? c.efc_address : data_->nefc + c.efc_address;
      if (c.geom[0] == leftpad_geom_ || c.geom[1] == leftpad_geom_) {
        left += data_->efc_force[address];
      }
      if (c.geom[0] == rightpad_geom_ || c.geom[1] == rightpad_geom_) {
        right += data_->efc_force[address];
      }
    }
    return 0 < left && 0 < right;
  }

  // The gripper effort as the reference reads it: min(max(0, action[-1]), effort) / effort,
  // an np.float32 when the action's effort is positive (a Python float 0.0 otherwise).
  static Np GripperClosed(const float* action, double desired_gripper_effort = 1.0) {
    const Np closed = PyMin(PyMax(Np(0.0), Np::F32(action[3])), Np(desired_gripper_effort));
    return closed / Np(desired_gripper_effort);
  }

  // SawyerXYZEnv._gripper_caging_reward (the base class's version; several tasks override it
  // with their own, which they write themselves).
  Np GripperCagingReward(const float* action, const Vec3& obj_pos, double obj_radius,
                         double pad_success_thresh, double object_reach_radius, double xz_thresh,
                         double desired_gripper_effort = 1.0, bool high_density = false,
                         bool medium_density = false) const {
    return CagingRewardFrom(obj_init_pos_, action, obj_pos, obj_radius, pad_success_thresh,
                            object_reach_radius, xz_thresh, desired_gripper_effort, high_density,
                            medium_density);
  }

  // The same, from another start than obj_init_pos (stick-push's stick_init_pos).
  Np CagingRewardFrom(const Vec3& obj_init_pos, const float* action, const Vec3& obj_pos,
                      double obj_radius, double pad_success_thresh, double object_reach_radius,
                      double xz_thresh, double desired_gripper_effort = 1.0,
                      bool high_density = false, bool medium_density = false) const {
    const Vec3 left_pad = LeftPad(), right_pad = RightPad();
    const double pad_y_lr[2] = {left_pad[1], right_pad[1]};
    Np caging_lr[2];
    for (int i = 0; i < 2; ++i) {
      const double pad_to_obj = std::abs(pad_y_lr[i] - obj_pos[1]);
      const double pad_to_objinit = std::abs(pad_y_lr[i] - obj_init_pos[1]);
      const double margin = std::abs(pad_to_objinit - pad_success_thresh);
      caging_lr[i] = Tolerance(pad_to_obj, obj_radius, pad_success_thresh, margin);
    }
    const Np caging_y = HamacherProduct(caging_lr[0], caging_lr[1]);
    const Vec3 tcp = TcpCenter();
    const double init_xz[2] = {obj_init_pos[0] - init_tcp_[0], obj_init_pos[2] - init_tcp_[2]};
    const double caging_xz_margin = Norm(init_xz, 2) - xz_thresh;
    const double tcp_xz[2] = {tcp[0] - obj_pos[0], tcp[2] - obj_pos[2]};
    const Np caging_xz = Tolerance(Norm(tcp_xz, 2), 0, xz_thresh, caging_xz_margin);
    const Np gripper_closed = GripperClosed(action, desired_gripper_effort);
    const Np caging = HamacherProduct(caging_y, caging_xz);
    const Np gripping = caging.v > 0.97 ? gripper_closed : Np(0.0);
    Np caging_and_gripping = HamacherProduct(caging, gripping);
    if (high_density) caging_and_gripping = (caging_and_gripping + caging) / Np(2.0);
    if (medium_density) {
      const double tcp_to_obj = Norm(obj_pos - tcp);
      const double tcp_to_obj_init = Norm(obj_init_pos - init_tcp_);
      const double reach_margin = std::abs(tcp_to_obj_init - object_reach_radius);
      const Np reach = Tolerance(tcp_to_obj, 0, object_reach_radius, reach_margin);
      caging_and_gripping = (caging_and_gripping + reach) / Np(2.0);
    }
    return caging_and_gripping;
  }

  // ---- State the reference keeps on the env ---------------------------------------------------

  const TaskConstants& task_;
  Vec3 hand_init_pos_;
  Vec3 target_pos_;    // _target_pos
  Vec3 obj_init_pos_;  // obj_init_pos
  Vec3 init_tcp_;      // init_tcp (set by ResetHand)
  bool dry_ = false;   // the first of reset's two reset_model runs (see the top)
  int elapsed_ = 0;    // curr_path_length

 private:
  static void CheckOptions(const Config& config, const TaskConstants& task) {
    if (config.Get<int64_t>("frame_skip") < 1) {
      throw std::invalid_argument("frame_skip must be >= 1, got " +
                                  std::to_string(config.Get<int64_t>("frame_skip")));
    }
    const auto& rand_vec = config.Get<std::vector<double>>("rand_vec");
    if (!rand_vec.empty() && rand_vec.size() != task.random_low.size()) {
      throw std::invalid_argument("rand_vec: " + std::string(task.name) + " takes " +
                                  std::to_string(task.random_low.size()) +
                                  " values (its random reset space), got " +
                                  std::to_string(rand_vec.size()));
    }
    for (double value : rand_vec) {
      if (!std::isfinite(value)) throw std::invalid_argument("rand_vec: values must be finite");
    }
  }

  // sawyer_observation_space: the hand in _HAND_SPACE, the gripper in [-1, 1], the objects
  // unbounded, twice; the goal zero when hidden (partially observable), else in goal_space.
  static void ObservationBounds(const TaskConstants& task, bool partially_observable,
                                std::vector<double>* low, std::vector<double>* high) {
    low->assign(kObsSize, -std::numeric_limits<double>::infinity());
    high->assign(kObsSize, std::numeric_limits<double>::infinity());
    for (int frame = 0; frame < 2; ++frame) {
      const int base = frame * kFrameObs;
      for (int k = 0; k < 3; ++k) {
        (*low)[base + k] = kHandSpaceLow[k];
        (*high)[base + k] = kHandSpaceHigh[k];
      }
      (*low)[base + 3] = -1.0;
      (*high)[base + 3] = 1.0;
    }
    for (int k = 0; k < 3; ++k) {
      (*low)[2 * kFrameObs + k] = partially_observable ? 0.0 : task.goal_low[k];
      (*high)[2 * kFrameObs + k] = partially_observable ? 0.0 : task.goal_high[k];
    }
  }

  // set_xyz_action: the clipped action times action_scale (float32 arithmetic: NumPy keeps a
  // float32 array float32 against a Python float), added to the mocap position, which is
  // clipped to mocap_low/high; the mocap quaternion (1, 0, 1, 0).
  void SetXyzAction(const float* action) {
    double* pos = data_->mocap_pos + 3 * mocap_id_;
    for (int k = 0; k < 3; ++k) {
      const float a = action[k] < -1.0f ? -1.0f : (action[k] > 1.0f ? 1.0f : action[k]);
      const float delta = a * 0.01f;
      pos[k] = numpy_math::NpClip(pos[k] + static_cast<double>(delta), task_.mocap_low[k],
                                  task_.mocap_high[k]);
    }
    static const double kQuat[4] = {1, 0, 1, 0};
    for (int k = 0; k < 4; ++k) data_->mocap_quat[4 * mocap_id_ + k] = kQuat[k];
  }

  // MujocoEnv._step_mujoco_simulation after ctrl is set.
  void Simulate() {
    StepSimulation();
    mj_rnePostConstraint(model_, data_);
  }

  // _get_curr_obs_combined_no_goal: the hand, how far apart the fingers are (over 0.1 m,
  // clipped to [0, 1]), and the objects' positions and quaternions, zero-padded to 14.
  void CurrentFrame(double* frame) {
    const Vec3 hand = BodyPos(hand_body_);
    const Vec3 apart = BodyPos(right_claw_) - BodyPos(left_claw_);
    for (int k = 0; k < 3; ++k) frame[k] = hand[k];
    frame[3] = numpy_math::NpClip(Norm(apart) / 0.1, 0.0, 1.0);
    double pos[6] = {}, quat[8] = {};
    const int n = Objects(pos, quat);
    double* out = frame + 4;
    std::fill(out, out + kObsObjMaxLen, 0.0);
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < 3; ++k) *out++ = pos[3 * i + k];
      for (int k = 0; k < 4; ++k) *out++ = quat[4 * i + k];
    }
  }

  void WriteGoal(double* goal) {
    const Vec3 pos = GoalPos();
    for (int k = 0; k < 3; ++k) goal[k] = partially_observable_ ? 0.0 : pos[k];
  }

  bool partially_observable_;
  std::vector<double> fixed_rand_vec_, rand_vec_;
  int32_t task_id_;
  // The env's model: never passed to mj_deleteModel or mj_copyModel (its buffer is the shared
  // model's, kept alive by model_holder_).
  mjModel own_model_{};
  std::vector<double> own_body_pos_, own_site_pos_;
  std::vector<double> obs_low_, obs_high_;
  int hand_body_, mocap_id_, right_claw_, left_claw_, left_pad_, right_pad_;
  int right_effector_, left_effector_, leftpad_geom_, rightpad_geom_;
  double prev_obs_[kFrameObs] = {};
  double obs_[kObsSize] = {};
  Evaluation evaluation_;
};

// A task's env type: T derives from Task<T> and states `static const TaskConstants kTask`.
template <typename T>
class Task : public SawyerEnv {
 public:
  static Config Defaults() { return SawyerEnv::Defaults(T::kTask); }
  static EnvSpec Spec(const Config& config) { return SawyerEnv::Spec(config, T::kTask); }

 protected:
  Task(const Config& config, uint64_t seed) : SawyerEnv(config, seed, T::kTask) {}
};

// Registers task T under its env type name.
template <typename T>
void AddTask(EnvTypeMap& types, const char* env_type) {
  types[env_type] = robotics::MakeRobotType<T>(T::Defaults());
}

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_SAWYER_ENV_H_
