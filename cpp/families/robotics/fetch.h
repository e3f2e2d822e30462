// The Fetch robot's four tasks: gymnasium-robotics 1.4.2's
// gymnasium_robotics/envs/fetch/fetch_env.py (MujocoFetchEnv) and reach.py, push.py, slide.py,
// pick_and_place.py (each task's constants). A 7-DoF arm on a mobile base whose gripper is
// driven through a mocap body welded to it: the action moves the mocap by up to 5 cm per step
// (and, for PickAndPlace, opens or closes the fingers); the goal is a point for the gripper
// (Reach) or for the object (Push, Slide, PickAndPlace).
//
//   setup (once per env, as the reference's constructor): the task's initial joint positions,
//          the model's welds reset (ResetMocapWelds: done once to the shared model), the mocap
//          moved to the gripper's start and 10 steps of n_substeps; that state is restored by
//          every reset.
//   reset: the saved state; the object put at least 10 cm from the gripper (xy uniform in
//          +-obj_range, redrawn until far enough); mj_forward; the goal drawn.
//   step:  clip; mocap += 0.05 * action[:3] (float32), its quaternion += (1, 0, 1, 0); the
//          fingers' position targets += action[3] (where the model has finger actuators);
//          n_substeps x mj_step; a blocked gripper's fingers set to 0 and mj_forward.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_FETCH_H_
#define ENVFLEET_FAMILIES_ROBOTICS_FETCH_H_

#include <mujoco/mujoco.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/numpy/math.h"
#include "families/robotics/robot_env.h"
#include "families/robotics/rotations.h"

namespace envfleet {
namespace robotics {

// One task's constants (the arguments its constructor passes to MujocoFetchEnv): the defaults
// of its options.
struct FetchTask {
  const char* xml_file;
  bool has_object, block_gripper, target_in_the_air;
  double gripper_extra_height;
  double target_offset[3];
  double obj_range, target_range;
  double initial_slide[3];   // robot0:slide0..2
  double initial_object[3];  // object0:joint's position (its orientation is (1, 0, 0, 0))
};

inline constexpr FetchTask kFetchReach = {
    "fetch/reach.xml", false, true, true, 0.2, {0, 0, 0}, 0.15, 0.15, {0.4049, 0.48, 0.0},
    {1.25, 0.53, 0.4}};
inline constexpr FetchTask kFetchPush = {
    "fetch/push.xml", true, true, false, 0.0, {0, 0, 0}, 0.15, 0.15, {0.405, 0.48, 0.0},
    {1.25, 0.53, 0.4}};
inline constexpr FetchTask kFetchSlide = {
    "fetch/slide.xml", true, true, false, -0.02, {0.4, 0, 0}, 0.1, 0.3, {0.05, 0.48, 0.0},
    {1.7, 1.1, 0.41}};
inline constexpr FetchTask kFetchPickAndPlace = {
    "fetch/pick_and_place.xml", true, false, true, 0.2, {0, 0, 0}, 0.15, 0.15, {0.405, 0.48, 0.0},
    {1.25, 0.53, 0.4}};

class FetchEnv : public RobotEnv {
 public:
  static Config Defaults(const FetchTask& task) {
    Config config;
    AddCommonDefaults(config, task.xml_file);
    config.Set("reward_type", std::string("sparse"));
    config.Set("distance_threshold", 0.05);
    config.Set("frame_skip", int64_t{20});  // n_substeps
    config.Set("has_object", task.has_object);
    config.Set("block_gripper", task.block_gripper);
    config.Set("target_in_the_air", task.target_in_the_air);
    config.Set("gripper_extra_height", task.gripper_extra_height);
    config.Set("target_offset_x", task.target_offset[0]);
    config.Set("target_offset_y", task.target_offset[1]);
    config.Set("target_offset_z", task.target_offset[2]);
    config.Set("obj_range", task.obj_range);
    config.Set("target_range", task.target_range);
    for (int i = 0; i < 3; ++i) {
      config.Set("initial_slide" + std::to_string(i), task.initial_slide[i]);
    }
    config.Set("initial_object_x", task.initial_object[0]);
    config.Set("initial_object_y", task.initial_object[1]);
    config.Set("initial_object_z", task.initial_object[2]);
    return config;
  }

  static ModelPtr Model(const Config& config) {
    return LoadModel(ModelPath(config), ResetMocapWelds);
  }

  static EnvSpec Spec(const Config& config) {
    ModelPtr model = Model(config);
    Check(config, model.get());
    const bool has_object = config.Get<bool>("has_object");
    const double dt = model->opt.timestep * static_cast<double>(config.Get<int64_t>("frame_skip"));
    // Gymnasium's render_fps: BaseRobotEnv.metadata["render_fps"] = 25, which the reference
    // asserts equals round(1 / dt) (frame_skip 20 of 2 ms).
    return GoalSpec(has_object ? 25 : 10, 3, 4, {{"is_success", DType::kFloat32}},
                    RobotRenderSpec(model.get(), std::nearbyint(1.0 / dt)));
  }

  FetchEnv(const Config& config, uint64_t seed)
      : RobotEnv(config, seed, Model(config), static_cast<int>(config.Get<int64_t>("frame_skip"))),
        dense_(DenseReward(config)),
        distance_threshold_(config.Get<double>("distance_threshold")),
        has_object_(config.Get<bool>("has_object")),
        block_gripper_(config.Get<bool>("block_gripper")),
        target_in_the_air_(config.Get<bool>("target_in_the_air")),
        obj_range_(config.Get<double>("obj_range")),
        target_range_(config.Get<double>("target_range")),
        target_offset_{config.Get<double>("target_offset_x"), config.Get<double>("target_offset_y"),
                       config.Get<double>("target_offset_z")},
        grip_site_(SiteId(model_, "robot0:grip")),
        target_site_(SiteId(model_, "target0")) {
    Check(config, model_);
    // fetch_env.DEFAULT_CAMERA_CONFIG
    default_camera_.distance = 2.5;
    default_camera_.azimuth = 132.0;
    default_camera_.elevation = -14.0;
    default_camera_.lookat = {{1.3, 0.75, 0.55}};
    FindRobotJoints();
    if (has_object_) {
      object_site_ = SiteId(model_, "object0");
      object_joint_ = FindJoint(model_, "object0:joint");
    }
    const double gripper_extra_height = config.Get<double>("gripper_extra_height");
    SetUp(config, gripper_extra_height);
    SaveInitialState();
  }

  void Reset() override {
    RestoreInitialState();  // MujocoFetchEnv._reset_sim
    if (has_object_) {
      // object_xpos = initial_gripper_xpos[:2], redrawn while it is within 10 cm of it.
      double xy[2] = {initial_gripper_xpos_[0], initial_gripper_xpos_[1]};
      for (;;) {
        const double offset[2] = {xy[0] - initial_gripper_xpos_[0],
                                  xy[1] - initial_gripper_xpos_[1]};
        if (!(NpNorm(offset, 2) < 0.1)) break;
        for (int i = 0; i < 2; ++i)
          xy[i] = initial_gripper_xpos_[i] + rng().Uniform(-obj_range_, obj_range_);
      }
      data_->qpos[object_joint_.qpos] = xy[0];
      data_->qpos[object_joint_.qpos + 1] = xy[1];
    }
    mj_forward(model_, data_);
    SampleGoal();
    Observe();
    is_success_ = 0.0f;  // the reference's reset info is empty; step infos have is_success
  }

  void Step(const void* action_ptr) override {
    const float* raw = static_cast<const float*>(action_ptr);
    float action[4];
    for (int i = 0; i < 4; ++i) action[i] = ClipUnit(raw[i]);  // np.clip to the action box
    // _set_action: pos_ctrl *= 0.05 in float32; the gripper's two targets (0 if blocked).
    double pos_delta[3];
    for (int i = 0; i < 3; ++i) pos_delta[i] = static_cast<float>(action[i] * 0.05f);
    const double gripper = block_gripper_ ? 0.0 : static_cast<double>(action[3]);
    // ctrl_set_action: the entries after the mocap's 7 drive the first actuators; one with a
    // bias (a position servo) gets its joint's current position plus the entry.
    if (model_->nu > 0) {
      for (int i = 0; i < 2; ++i) {
        if (model_->actuator_biastype[i] == 0) {
          data_->ctrl[i] = gripper;
        } else {
          const int qpos = model_->jnt_qposadr[model_->actuator_trnid[2 * i]];
          data_->ctrl[i] = data_->qpos[qpos] + gripper;
        }
      }
    }
    // mocap_set_action: the mocap where its body is, plus the deltas.
    ResetMocapToBodies(model_, data_);
    static const double kQuatDelta[4] = {1.0, 0.0, 1.0, 0.0};
    for (int i = 0; i < 3; ++i) data_->mocap_pos[i] = data_->mocap_pos[i] + pos_delta[i];
    for (int i = 0; i < 4; ++i) data_->mocap_quat[i] = data_->mocap_quat[i] + kQuatDelta[i];
    StepSimulation();
    if (block_gripper_) {                  // _step_callback
      data_->qpos[finger_qpos_[0]] = 0.0;  // robot0:l_gripper_finger_joint
      data_->qpos[finger_qpos_[1]] = 0.0;  // robot0:r_gripper_finger_joint
      mj_forward(model_, data_);
    }
    Observe();
    const double d = GoalDistance(achieved_goal_, goal_);
    is_success_ = static_cast<float>(d < distance_threshold_);
    // compute_reward: -(d > threshold).astype(float32) (so -0.0 on success), or -d.
    reward_ = dense_ ? -d : static_cast<double>(-static_cast<float>(d > distance_threshold_));
    terminated_ = false;  // BaseRobotEnv.compute_terminated
  }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<double>(0), obs_, sizeof(double) * obs_size());
    std::memcpy(out.Get<double>(1), achieved_goal_, sizeof(achieved_goal_));
    std::memcpy(out.Get<double>(2), goal_, sizeof(goal_));
    WriteInfo(out);
  }

  void WriteInfo(const OutputSlot& out) const { *out.Get<float>(first_info_key()) = is_success_; }

  // goal_distance: np.linalg.norm(a - b, axis=-1), a sum of squares in NumPy's add.reduce
  // order (the axis form does not go through BLAS).
  static double GoalDistance(const double* a, const double* b) {
    const double diff[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return std::sqrt(numpy_math::NpSumOfSquares(diff, 3));
  }

 protected:
  // _render_callback moves the target0 site to the goal (model.site_pos = goal - the offset of
  // site 0, then mj_forward): the scene's marker is moved there instead.
  void EditScene(mjvScene* scene) override {
    double site_pos[3], world[3];
    for (int k = 0; k < 3; ++k) {
      const double offset0 = data_->site_xpos[k] - model_->site_pos[k];
      site_pos[k] = goal_[k] - offset0;
    }
    const int body = model_->site_bodyid[target_site_];
    mju_mulMatVec3(world, data_->xmat + 9 * body, site_pos);
    for (int k = 0; k < 3; ++k) world[k] += data_->xpos[3 * body + k];
    MoveSiteGeom(scene, target_site_, world);
  }

 private:
  static bool DenseReward(const Config& config) {
    const std::string& type = config.Get<std::string>("reward_type");
    if (type != "sparse" && type != "dense") {
      throw std::invalid_argument("reward_type must be 'sparse' or 'dense', got '" + type + "'");
    }
    return type == "dense";
  }

  static void Check(const Config& config, const mjModel* m) {
    DenseReward(config);
    if (config.Get<int64_t>("frame_skip") < 1) {
      throw std::invalid_argument("frame_skip (n_substeps) must be >= 1");
    }
    if (config.Get<double>("distance_threshold") < 0) {
      throw std::invalid_argument("distance_threshold must be >= 0");
    }
    // The object is redrawn until it is 10 cm from the gripper: a range that cannot reach
    // that would loop forever.
    if (config.Get<bool>("has_object") && config.Get<double>("obj_range") * std::sqrt(2.0) < 0.1) {
      throw std::invalid_argument(
          "obj_range must be > 0.0708 (the object is placed >= 0.1 "
          "from the gripper), got " +
          std::to_string(config.Get<double>("obj_range")));
    }
    if (m->nmocap != 1) {
      throw std::invalid_argument("xml_file: Fetch drives one mocap body, the model has " +
                                  std::to_string(m->nmocap));
    }
    if (m->nu != 0 && m->nu < 2) {
      throw std::invalid_argument("xml_file: Fetch's gripper actions drive two actuators");
    }
    if (config.Get<bool>("has_object") && mj_name2id(m, mjOBJ_JOINT, "object0:joint") < 0) {
      throw std::invalid_argument(
          "has_object=True needs a model with an object "
          "('object0:joint'; FetchReach's reach.xml has none)");
    }
  }

  // robot_get_obs: the joints whose names start with "robot", in id order; the observation
  // reads the last two (the fingers).
  void FindRobotJoints() {
    std::vector<int> robot;
    for (int j = 0; j < model_->njnt; ++j) {
      const char* name = mj_id2name(model_, mjOBJ_JOINT, j);
      if (name != nullptr && std::strncmp(name, "robot", 5) == 0) robot.push_back(j);
    }
    if (robot.size() < 2) throw std::invalid_argument("xml_file: Fetch needs its finger joints");
    for (int k = 0; k < 2; ++k) {
      const int j = robot[robot.size() - 2 + k];
      gripper_qpos_[k] = model_->jnt_qposadr[j];
      gripper_qvel_[k] = model_->jnt_dofadr[j];
    }
    finger_qpos_[0] = FindJoint(model_, "robot0:l_gripper_finger_joint").qpos;
    finger_qpos_[1] = FindJoint(model_, "robot0:r_gripper_finger_joint").qpos;
  }

  // MujocoFetchEnv._env_setup.
  void SetUp(const Config& config, double gripper_extra_height) {
    for (int i = 0; i < 3; ++i) {
      const std::string name = "robot0:slide" + std::to_string(i);
      data_->qpos[FindJoint(model_, name).qpos] =
          config.Get<double>("initial_slide" + std::to_string(i));
    }
    if (has_object_) {
      const double pose[7] = {config.Get<double>("initial_object_x"),
                              config.Get<double>("initial_object_y"),
                              config.Get<double>("initial_object_z"),
                              1.0,
                              0.0,
                              0.0,
                              0.0};
      for (int k = 0; k < 7; ++k) data_->qpos[object_joint_.qpos + k] = pose[k];
    }
    mj_forward(model_, data_);  // reset_mocap_welds' (the welds were reset at load)
    mj_forward(model_, data_);
    const double* grip = data_->site_xpos + 3 * grip_site_;
    const double offset[3] = {-0.498, 0.005, -0.431 + gripper_extra_height};
    for (int k = 0; k < 3; ++k) data_->mocap_pos[k] = offset[k] + grip[k];
    static const double kRotation[4] = {1.0, 0.0, 1.0, 0.0};
    for (int k = 0; k < 4; ++k) data_->mocap_quat[k] = kRotation[k];
    for (int i = 0; i < 10; ++i) StepSimulation();
    for (int k = 0; k < 3; ++k) initial_gripper_xpos_[k] = data_->site_xpos[3 * grip_site_ + k];
    if (has_object_) height_offset_ = data_->site_xpos[3 * object_site_ + 2];
  }

  // _sample_goal.
  void SampleGoal() {
    for (int k = 0; k < 3; ++k) {
      goal_[k] = initial_gripper_xpos_[k] + rng().Uniform(-target_range_, target_range_);
    }
    if (!has_object_) return;
    for (int k = 0; k < 3; ++k) goal_[k] += target_offset_[k];
    goal_[2] = height_offset_;
    if (target_in_the_air_ && rng().Uniform(0.0, 1.0) < 0.5) goal_[2] += rng().Uniform(0.0, 0.45);
  }

  // _get_obs (generate_mujoco_observations).
  void Observe() {
    const double* grip = data_->site_xpos + 3 * grip_site_;
    double grip_velp[3];
    SiteVelocity(grip_site_, false, grip_velp);
    for (double& v : grip_velp) v *= dt_;
    double* obs = obs_;
    for (int k = 0; k < 3; ++k) *obs++ = grip[k];
    if (has_object_) {
      const double* object = data_->site_xpos + 3 * object_site_;
      double rot[3], velp[3], velr[3];
      rotations::Mat2Euler(data_->site_xmat + 9 * object_site_, rot);
      SiteVelocity(object_site_, false, velp);
      SiteVelocity(object_site_, true, velr);
      for (int k = 0; k < 3; ++k) *obs++ = object[k];
      for (int k = 0; k < 3; ++k) *obs++ = object[k] - grip[k];  // object_rel_pos
      for (int k = 0; k < 2; ++k) *obs++ = data_->qpos[gripper_qpos_[k]];
      for (int k = 0; k < 3; ++k) *obs++ = rot[k];
      for (int k = 0; k < 3; ++k) *obs++ = velp[k] * dt_ - grip_velp[k];
      for (int k = 0; k < 3; ++k) *obs++ = velr[k] * dt_;
      for (int k = 0; k < 3; ++k) achieved_goal_[k] = object[k];
    } else {
      for (int k = 0; k < 2; ++k) *obs++ = data_->qpos[gripper_qpos_[k]];
      for (int k = 0; k < 3; ++k) achieved_goal_[k] = grip[k];
    }
    for (int k = 0; k < 3; ++k) *obs++ = grip_velp[k];
    for (int k = 0; k < 2; ++k) *obs++ = data_->qvel[gripper_qvel_[k]] * dt_;
  }

  int obs_size() const { return has_object_ ? 25 : 10; }

  // np.clip(action, -1.0, 1.0) on float32 (NaN stays NaN).
  static float ClipUnit(float x) { return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x); }

  bool dense_;
  double distance_threshold_;
  bool has_object_, block_gripper_, target_in_the_air_;
  double obj_range_, target_range_;
  double target_offset_[3];
  int grip_site_, target_site_, object_site_ = -1;
  Joint object_joint_{};
  int gripper_qpos_[2] = {0, 0}, gripper_qvel_[2] = {0, 0}, finger_qpos_[2] = {0, 0};
  double initial_gripper_xpos_[3] = {0, 0, 0};
  double height_offset_ = 0;
  double goal_[3] = {0, 0, 0};
  double achieved_goal_[3] = {0, 0, 0};
  double obs_[25] = {};
  float is_success_ = 0.0f;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_FETCH_H_
