// HandManipulate{Block,Egg,Pen}* and their _BooleanTouchSensors / _ContinuousTouchSensors
// variants: gymnasium-robotics 1.4.2's
// gymnasium_robotics/envs/shadow_dexterous_hand/manipulate.py (MujocoManipulateEnv, the v1
// ids), manipulate_touch_sensors.py (MujocoManipulateTouchSensorsEnv) and the objects' files
// manipulate_{block,egg,pen}.py and manipulate_{block,egg,pen}_touch_sensors.py (each one's
// model and constants). The hand turns (and, for the "random" target positions, moves) an
// object on its palm to a goal pose (position and quaternion, 7 values).
//
//   setup: initial_qpos (none by default), mj_forward; the state every reset starts from.
//   reset: retried until the object stays on the palm (_reset_sim returns True):
//          time, qpos, qvel restored WITHOUT mj_resetData (so the solver's warm start and
//          the other mjData fields carry over from the last episode, as in the reference);
//          mj_forward; the object's rotation randomised per target_rotation ("z": a uniform
//          angle about z; "parallel": that times one of the 24 axis-aligned rotations, chosen
//          by integers(24); "xyz"/"ignore": a uniform angle about a uniform axis in [-1, 1]^3),
//          its position by normal(scale=0.005, size=3) unless target_position is "fixed"; 10
//          x (_set_action(zeros(20)), n_substeps x mj_step); on the palm if the object's
//          center is above z = 0.04 after mj_forward. Then the goal: position the object's +
//          uniform(target_position_range) ("random") or the object's ("ignore", "fixed");
//          quaternion drawn per target_rotation as above.
//   step:  clip, _set_action, n_substeps x mj_step; achieved_goal is the object's joint qpos;
//          the reward (is_success - 1) in float32 or -(10 d_pos + d_rot), with d_pos the
//          position distance (0 if ignored) and d_rot = 2 arccos(clip(w)) of quat_a * conj
//          (quat_b) (0 if ignored; for the pen, ignore_z_target_rotation first gives quat_a
//          quat_b's Euler z angle).
//
// The observation: robot_get_obs, the object's joint velocity (6), its pose (7) and, for the
// touch models, the 92 touch sensors ("sensordata": as read; "boolean": > 0 as 0/1; "log":
// log(x + 1); "off": none).
//
// Rendering (_render_callback): the target object shown at the goal (its free joint's qpos set
// to the goal, 0.15 m to the side where the position is ignored, qvel zeroed, mj_forward: as in
// the reference, this changes mjData; the target touches nothing, and the rest of the
// trajectory is the same whether frames are drawn or not, which test_hand.py checks); the
// object's "object_hidden" geom opaque; the touch sensors' sites coloured by contact
// ("on_touch"), hidden ("off", done to the model by the reference's constructor) or left as the
// model has them ("always"). The model is shared, so what the reference does to it is done to
// each frame's scene instead.
//
// target_rotation "ignore" and "fixed" make the reference's _sample_goal fail (it calls
// mujoco-py's data.get_joint_qpos, which the `mujoco` bindings lack, and asserts a 4-vector
// where that returned the joint's 7 values); this port uses the evident meaning, the object's
// current orientation (qpos[3:7]). No registered id uses them.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_HAND_MANIPULATE_H_
#define ENVFLEET_FAMILIES_ROBOTICS_HAND_MANIPULATE_H_

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/numpy/math.h"
#include "common/numpy/svml.h"
#include "families/robotics/hand_env.h"
#include "families/robotics/rotations.h"

namespace envfleet {
namespace robotics {

// One manipulated object: the constants its Mujoco*Env (and *TouchSensorsEnv) class passes to
// MujocoManipulateEnv, which are the defaults of its options.
struct HandObject {
  const char* xml_file;
  const char* touch_xml_file;
  double distance_threshold;
  bool randomize_initial_rotation;
  bool ignore_z_target_rotation;
};

inline constexpr HandObject kHandBlock = {
    "hand/manipulate_block.xml", "hand/manipulate_block_touch_sensors.xml", 0.01, true, false};
inline constexpr HandObject kHandEgg = {"hand/manipulate_egg.xml",
                                        "hand/manipulate_egg_touch_sensors.xml", 0.01, true, false};
inline constexpr HandObject kHandPen = {"hand/manipulate_pen.xml",
                                        "hand/manipulate_pen_touch_sensors.xml", 0.05, false, true};

class HandManipulateEnv : public HandEnv {
 public:
  static constexpr int kGoalSize = 7;

  // The options of the object's env class: its constructor's keywords with its constants as
  // defaults; target_position_range (fixed by each object's class, EnvPool's
  // target_position_low/high0..2) as six numbers; for the touch models touch_get_obs and
  // touch_visualisation too.
  static Config Defaults(const HandObject& object, bool touch) {
    Config config;
    AddHandDefaults(config, touch ? object.touch_xml_file : object.xml_file, {}, {});
    config.Set("target_position", std::string("random"));
    config.Set("target_rotation", std::string("xyz"));
    // np.array([(-0.04, 0.04), (-0.06, 0.02), (0.0, 0.06)]), every object's.
    static const double kRange[3][2] = {{-0.04, 0.04}, {-0.06, 0.02}, {0.0, 0.06}};
    for (int k = 0; k < 3; ++k) {
      config.Set("target_position_low" + std::to_string(k), kRange[k][0]);
      config.Set("target_position_high" + std::to_string(k), kRange[k][1]);
    }
    config.Set("randomize_initial_position", true);
    config.Set("randomize_initial_rotation", object.randomize_initial_rotation);
    config.Set("distance_threshold", object.distance_threshold);
    config.Set("rotation_threshold", 0.1);
    config.Set("ignore_z_target_rotation", object.ignore_z_target_rotation);
    if (touch) {
      config.Set("touch_get_obs", std::string("sensordata"));
      config.Set("touch_visualisation", std::string("on_touch"));
    }
    return config;
  }

  static EnvSpec Spec(const Config& config) {
    ModelPtr model = LoadModel(ModelPath(config));
    Check(config, model.get());
    const int64_t robot = static_cast<int64_t>(RobotJoints(model.get()).size());
    const int64_t touch = ReadsTouch(config) ? TouchSensors(model.get()).size() : 0;
    return GoalSpec(2 * robot + 6 + kGoalSize + touch, kGoalSize, kHandActions,
                    {{"is_success", DType::kFloat32}}, HandRenderSpec(config, model.get()));
  }

  HandManipulateEnv(const Config& config, uint64_t seed)
      : HandEnv(config, seed, LoadModel(ModelPath(config))),
        target_position_(ParseTargetPosition(config)),
        target_rotation_(ParseTargetRotation(config)),
        randomize_initial_position_(config.Get<bool>("randomize_initial_position")),
        randomize_initial_rotation_(config.Get<bool>("randomize_initial_rotation")),
        ignore_z_target_rotation_(config.Get<bool>("ignore_z_target_rotation")),
        distance_threshold_(config.Get<double>("distance_threshold")),
        rotation_threshold_(config.Get<double>("rotation_threshold")),
        touch_obs_(ParseTouchObs(config)),
        touch_visualisation_(ParseTouchVisualisation(config)),
        object_joint_(FindJoint(model_, "object:joint")),
        target_joint_(FindJoint(model_, "target:joint")),
        object_center_(SiteId(model_, "object:center")),
        hidden_geom_(mj_name2id(model_, mjOBJ_GEOM, "object_hidden")) {
    Check(config, model_);
    for (int k = 0; k < 3; ++k) {
      target_position_low_[k] = config.Get<double>("target_position_low" + std::to_string(k));
      target_position_high_[k] = config.Get<double>("target_position_high" + std::to_string(k));
    }
    if (config.Has("touch_get_obs")) touch_sensors_ = TouchSensors(model_);
    obs_.resize(2 * static_cast<size_t>(num_robot_joints()) + 6 + kGoalSize +
                (touch_obs_ == TouchObs::kOff ? 0 : touch_sensors_.size()));
    SetInitialJoints();  // _env_setup
    SaveInitialState();
  }

  void Reset() override {
    // BaseRobotEnv.reset: _reset_sim until the object stays on the palm, each try drawing anew.
    while (!ResetSimulation()) {
    }
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
    double d_pos, d_rot;
    GoalDistance(achieved_goal_, goal_, &d_pos, &d_rot);
    // _is_success: (d_pos < threshold) * (d_rot < threshold), float32.
    is_success_ = static_cast<float>(d_pos < distance_threshold_) *
                  static_cast<float>(d_rot < rotation_threshold_);
    // compute_reward: is_success - 1.0 (float32), or -(10 d_pos + d_rot).
    reward_ = dense_ ? -(10.0 * d_pos + d_rot) : static_cast<double>(is_success_ - 1.0f);
    terminated_ = false;  // BaseRobotEnv.compute_terminated
  }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<double>(0), obs_.data(), sizeof(double) * obs_.size());
    std::memcpy(out.Get<double>(1), achieved_goal_, sizeof(achieved_goal_));
    std::memcpy(out.Get<double>(2), goal_, sizeof(goal_));
    WriteInfo(out);
  }

  void WriteInfo(const OutputSlot& out) const { *out.Get<float>(first_info_key()) = is_success_; }

 protected:
  // _render_callback, its data part: the target object at the goal.
  void BeforeRender() override {
    double pose[kGoalSize];
    std::memcpy(pose, goal_, sizeof(pose));
    // Where the position is ignored, beside the object so as not to hide it.
    if (target_position_ == TargetPosition::kIgnore) pose[0] += 0.15;
    for (int k = 0; k < 7; ++k) data_->qpos[target_joint_.qpos + k] = pose[k];
    for (int k = 0; k < 6; ++k) data_->qvel[target_joint_.qvel + k] = 0.0;
    mj_forward(model_, data_);
  }

  // _render_callback, its model part, done to the frame's scene.
  void EditScene(mjvScene* scene) override {
    // model.geom_rgba[object_hidden, 3] = 1.0 (already 1 in the stock models).
    for (int g = 0; g < scene->ngeom; ++g) {
      mjvGeom& geom = scene->geoms[g];
      if (geom.objtype == mjOBJ_GEOM && geom.objid == hidden_geom_) geom.rgba[3] = 1.0f;
    }
    if (touch_sensors_.empty()) return;
    if (touch_visualisation_ == TouchVisualisation::kOff) {
      // The constructor set the sites' alpha to 0, and mjv_updateScene skips such sites.
      int kept = 0;
      for (int g = 0; g < scene->ngeom; ++g) {
        if (!IsTouchSite(scene->geoms[g])) scene->geoms[kept++] = scene->geoms[g];
      }
      scene->ngeom = kept;
    } else if (touch_visualisation_ == TouchVisualisation::kOnTouch) {
      // model.site_rgba = touch_color where the sensor reads != 0, else notouch_color (the
      // sensor values of the frame's mj_forward). The stock sites' own alpha (0.33) is not 0,
      // so mjv_updateScene has drawn each of them.
      static const float kTouch[4] = {1.0f, 0.0f, 0.0f, 0.5f};
      static const float kNoTouch[4] = {0.0f, 0.5f, 0.0f, 0.2f};
      for (int g = 0; g < scene->ngeom; ++g) {
        mjvGeom& geom = scene->geoms[g];
        if (geom.objtype != mjOBJ_SITE) continue;
        for (const TouchSensor& sensor : touch_sensors_) {
          if (sensor.site != geom.objid) continue;
          const float* color = data_->sensordata[sensor.id] != 0.0 ? kTouch : kNoTouch;
          std::memcpy(geom.rgba, color, sizeof(geom.rgba));
        }
      }
    }
  }

 private:
  enum class TargetPosition { kIgnore, kFixed, kRandom };
  enum class TargetRotation { kIgnore, kFixed, kXyz, kZ, kParallel };
  enum class TouchObs { kOff, kSensorData, kBoolean, kLog };
  enum class TouchVisualisation { kOnTouch, kAlways, kOff };

  // A touch sensor ("robot0:TS_*") and its site ("robot0:T_*").
  struct TouchSensor {
    int id, site;
  };

  static TargetPosition ParseTargetPosition(const Config& config) {
    const std::string& v = config.Get<std::string>("target_position");
    if (v == "ignore") return TargetPosition::kIgnore;
    if (v == "fixed") return TargetPosition::kFixed;
    if (v == "random") return TargetPosition::kRandom;
    throw std::invalid_argument("target_position must be 'ignore', 'fixed' or 'random', got '" + v +
                                "'");
  }

  static TargetRotation ParseTargetRotation(const Config& config) {
    const std::string& v = config.Get<std::string>("target_rotation");
    if (v == "ignore") return TargetRotation::kIgnore;
    if (v == "fixed") return TargetRotation::kFixed;
    if (v == "xyz") return TargetRotation::kXyz;
    if (v == "z") return TargetRotation::kZ;
    if (v == "parallel") return TargetRotation::kParallel;
    throw std::invalid_argument(
        "target_rotation must be 'ignore', 'fixed', 'xyz', 'z' or 'parallel', got '" + v + "'");
  }

  // touch_get_obs (touch models only). The reference reads any other string as "off"; here
  // it is an error.
  static TouchObs ParseTouchObs(const Config& config) {
    if (!config.Has("touch_get_obs")) return TouchObs::kOff;
    const std::string& v = config.Get<std::string>("touch_get_obs");
    if (v == "sensordata") return TouchObs::kSensorData;
    if (v == "boolean") return TouchObs::kBoolean;
    if (v == "log") return TouchObs::kLog;
    if (v == "off") return TouchObs::kOff;
    throw std::invalid_argument(
        "touch_get_obs must be 'sensordata', 'boolean', 'log' or 'off', got '" + v + "'");
  }

  // touch_visualisation (touch models only). The reference reads any other string as
  // "always"; here it is an error.
  static TouchVisualisation ParseTouchVisualisation(const Config& config) {
    if (!config.Has("touch_visualisation")) return TouchVisualisation::kAlways;
    const std::string& v = config.Get<std::string>("touch_visualisation");
    if (v == "on_touch") return TouchVisualisation::kOnTouch;
    if (v == "always") return TouchVisualisation::kAlways;
    if (v == "off") return TouchVisualisation::kOff;
    throw std::invalid_argument("touch_visualisation must be 'on_touch', 'always' or 'off', got '" +
                                v + "'");
  }

  static bool ReadsTouch(const Config& config) { return ParseTouchObs(config) != TouchObs::kOff; }

  static void Check(const Config& config, const mjModel* m) {
    CheckHand(config, m);
    ParseTargetPosition(config);
    ParseTargetRotation(config);
    ParseTouchObs(config);
    ParseTouchVisualisation(config);
    for (const char* key : {"distance_threshold", "rotation_threshold"}) {
      if (!(config.Get<double>(key) >= 0)) {
        throw std::invalid_argument(std::string(key) + " must be >= 0, got " +
                                    std::to_string(config.Get<double>(key)));
      }
    }
    for (int k = 0; k < 3; ++k) {
      const std::string low = "target_position_low" + std::to_string(k);
      const std::string high = "target_position_high" + std::to_string(k);
      const double lo = config.Get<double>(low), hi = config.Get<double>(high);
      // Generator.uniform(low, high) takes finite bounds with high - low >= 0.
      if (!(std::isfinite(lo) && std::isfinite(hi) && lo <= hi)) {
        throw std::invalid_argument(low + " and " + high +
                                    " must be finite with low <= high, got " + std::to_string(lo) +
                                    " and " + std::to_string(hi));
      }
    }
    for (const char* joint : {"object:joint", "target:joint"}) {
      if (FindJoint(m, joint).qpos_size != 7) {
        throw std::invalid_argument(std::string("xml_file: '") + joint +
                                    "' must be a free joint (the object's pose is 7 values)");
      }
    }
    SiteId(m, "object:center");
    if (config.Has("touch_get_obs")) TouchSensors(m);
  }

  // The sensors whose names contain "robot0:TS_", in id order, each with the site named
  // alike ("robot0:T_"): the reference's _touch_sensor_id_site_id.
  static std::vector<TouchSensor> TouchSensors(const mjModel* m) {
    std::vector<TouchSensor> sensors;
    static const std::string kSensor = "robot0:TS_", kSite = "robot0:T_";
    for (int i = 0; i < m->nsensor; ++i) {
      const char* raw = mj_id2name(m, mjOBJ_SENSOR, i);
      std::string name = raw != nullptr ? raw : "";
      const size_t at = name.find(kSensor);
      if (at == std::string::npos) continue;
      // The reference indexes sensordata with the sensor's id: its address where every
      // sensor has one value, as in the stock models.
      if (m->sensor_adr[i] != i || m->sensor_dim[i] != 1) {
        throw std::invalid_argument("xml_file: touch sensor '" + name +
                                    "' is not the one-valued sensor at sensordata[id] that "
                                    "the reference reads");
      }
      sensors.push_back(
          {i, SiteId(m, name.substr(0, at) + kSite + name.substr(at + kSensor.size()))});
    }
    return sensors;
  }

  bool IsTouchSite(const mjvGeom& geom) const {
    if (geom.objtype != mjOBJ_SITE) return false;
    for (const TouchSensor& sensor : touch_sensors_) {
      if (sensor.site == geom.objid) return true;
    }
    return false;
  }

  // quat_from_angle_and_axis(angle, axis): the axis normalised (np.linalg.norm: BLAS), then
  // (cos(angle / 2), sin(angle / 2) * axis) normalised.
  static void QuatFromAngleAndAxis(double angle, const double* axis_in, double* quat) {
    double axis[3];
    const double axis_norm = NpNorm(axis_in, 3);
    for (int k = 0; k < 3; ++k) axis[k] = axis_in[k] / axis_norm;
    const double s = std::sin(angle / 2.0);
    quat[0] = std::cos(angle / 2.0);
    for (int k = 0; k < 3; ++k) quat[k + 1] = s * axis[k];
    const double norm = NpNorm(quat, 4);
    for (int k = 0; k < 4; ++k) quat[k] /= norm;
  }

  // The rotation _reset_sim and _sample_goal draw for target_rotation "z", "parallel" and
  // "xyz": angle = uniform(-pi, pi), then the parallel rotation's index or the axis.
  void DrawRotation(TargetRotation kind, double* quat) {
    static const double kZAxis[3] = {0.0, 0.0, 1.0};
    const double angle = rng().Uniform(-M_PI, M_PI);
    if (kind == TargetRotation::kXyz) {
      double axis[3];
      for (double& a : axis) a = rng().Uniform(-1.0, 1.0);
      QuatFromAngleAndAxis(angle, axis, quat);
      return;
    }
    QuatFromAngleAndAxis(angle, kZAxis, quat);
    if (kind == TargetRotation::kParallel) {
      const int index = static_cast<int>(rng().Integers(0, 24));
      double parallel[4];
      rotations::Euler2Quat(rotations::ParallelRotations().euler[index], parallel);
      double z_quat[4];
      std::memcpy(z_quat, quat, sizeof(z_quat));
      rotations::QuatMul(z_quat, parallel, quat);
    }
  }

  // MujocoManipulateEnv._reset_sim: false where the object fell off the palm (or MuJoCo
  // failed), and Reset draws again.
  bool ResetSimulation() {
    data_->time = initial_time_;
    std::memcpy(data_->qpos, initial_qpos_.data(), sizeof(double) * model_->nq);
    std::memcpy(data_->qvel, initial_qvel_.data(), sizeof(double) * model_->nv);
    for (int i = 0; i < model_->na; ++i) data_->act[i] = std::numeric_limits<double>::quiet_NaN();
    mj_forward(model_, data_);

    double pos[3], quat[4];
    std::memcpy(pos, data_->qpos + object_joint_.qpos, sizeof(pos));
    std::memcpy(quat, data_->qpos + object_joint_.qpos + 3, sizeof(quat));
    if (randomize_initial_rotation_ && target_rotation_ != TargetRotation::kFixed) {
      // "ignore" draws as "xyz" does.
      const TargetRotation kind =
          target_rotation_ == TargetRotation::kIgnore ? TargetRotation::kXyz : target_rotation_;
      double offset[4], rotated[4];
      DrawRotation(kind, offset);
      rotations::QuatMul(quat, offset, rotated);
      std::memcpy(quat, rotated, sizeof(quat));
    }
    if (randomize_initial_position_ && target_position_ != TargetPosition::kFixed) {
      // np_random.normal(size=3, scale=0.005): loc + scale * standard_normal, loc 0.0.
      for (double& p : pos) p += 0.0 + 0.005 * rng().StandardNormal();
    }
    const double norm = NpNorm(quat, 4);
    for (double& q : quat) q /= norm;
    std::memcpy(data_->qpos + object_joint_.qpos, pos, sizeof(pos));
    std::memcpy(data_->qpos + object_joint_.qpos + 3, quat, sizeof(quat));

    // Let everything settle. The reference returns False on any exception of mj_step (a
    // MuJoCo error), and its caller tries again; so does this.
    for (int i = 0; i < 10; ++i) {
      SetZeroAction();
      try {
        StepSimulation();
      } catch (const std::exception&) {
        return false;
      }
    }
    mj_forward(model_, data_);  // is_on_palm
    return data_->site_xpos[3 * object_center_ + 2] > 0.04;
  }

  // MujocoManipulateEnv._sample_goal.
  void SampleGoal() {
    const double* object = data_->qpos + object_joint_.qpos;
    if (target_position_ == TargetPosition::kRandom) {
      double offset[3];
      for (int k = 0; k < 3; ++k) {
        offset[k] = rng().Uniform(target_position_low_[k], target_position_high_[k]);
      }
      for (int k = 0; k < 3; ++k) goal_[k] = object[k] + offset[k];
    } else {
      for (int k = 0; k < 3; ++k) goal_[k] = object[k];
    }
    double* quat = goal_ + 3;
    if (target_rotation_ == TargetRotation::kIgnore || target_rotation_ == TargetRotation::kFixed) {
      std::memcpy(quat, object + 3, 4 * sizeof(double));  // see the header comment
    } else {
      DrawRotation(target_rotation_, quat);
    }
    const double norm = NpNorm(quat, 4);
    for (int k = 0; k < 4; ++k) quat[k] /= norm;
  }

  // _goal_distance for one pair of goals.
  void GoalDistance(const double* a, const double* b, double* d_pos, double* d_rot) const {
    *d_pos = 0.0;
    *d_rot = 0.0;
    if (target_position_ != TargetPosition::kIgnore) {
      // np.linalg.norm(delta_pos, axis=-1): add.reduce's order, not BLAS.
      const double delta[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
      *d_pos = std::sqrt(numpy_math::NpSumOfSquares(delta, 3));
    }
    if (target_rotation_ != TargetRotation::kIgnore) {
      const double* quat_b = b + 3;
      double quat_a[4];
      std::memcpy(quat_a, a + 3, sizeof(quat_a));
      if (ignore_z_target_rotation_) {
        // quat_a's Euler angles with quat_b's z angle, back to a quaternion.
        double euler_a[3], euler_b[3];
        rotations::Quat2Euler(quat_a, euler_a);
        rotations::Quat2Euler(quat_b, euler_b);
        euler_a[2] = euler_b[2];
        rotations::Euler2Quat(euler_a, quat_a);
      }
      double conjugate_b[4], diff[4];
      rotations::QuatConjugate(quat_b, conjugate_b);
      rotations::QuatMul(quat_a, conjugate_b, diff);
      *d_rot = 2 * numpy_math::NpArccos(numpy_math::NpClip(diff[0], -1.0, 1.0));
    }
  }

  // _get_obs: robot_qpos, robot_qvel, object_qvel, achieved_goal (the object's pose), then
  // the touch values.
  void Observe() {
    std::memcpy(achieved_goal_, data_->qpos + object_joint_.qpos, sizeof(achieved_goal_));
    double* obs = WriteRobotObs(obs_.data());
    for (int k = 0; k < 6; ++k) *obs++ = data_->qvel[object_joint_.qvel + k];
    for (double v : achieved_goal_) *obs++ = v;
    if (touch_obs_ == TouchObs::kOff) return;
    for (const TouchSensor& sensor : touch_sensors_) {
      const double value = data_->sensordata[sensor.id];
      switch (touch_obs_) {
        case TouchObs::kSensorData:
          *obs++ = value;
          break;
        case TouchObs::kBoolean:
          *obs++ = value > 0.0 ? 1.0 : 0.0;
          break;
        case TouchObs::kLog:
          *obs++ = numpy_math::NpLog(value + 1.0);
          break;
        case TouchObs::kOff:
          break;
      }
    }
  }

  TargetPosition target_position_;
  TargetRotation target_rotation_;
  bool randomize_initial_position_, randomize_initial_rotation_, ignore_z_target_rotation_;
  double distance_threshold_, rotation_threshold_;
  double target_position_low_[3] = {}, target_position_high_[3] = {};
  TouchObs touch_obs_;
  TouchVisualisation touch_visualisation_;
  Joint object_joint_, target_joint_;
  int object_center_;
  int hidden_geom_;  // -1 where the model has no "object_hidden" (the pen)
  std::vector<TouchSensor> touch_sensors_;
  double goal_[kGoalSize] = {};
  double achieved_goal_[kGoalSize] = {};
  std::vector<double> obs_;
  float is_success_ = 0.0f;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_HAND_MANIPULATE_H_
