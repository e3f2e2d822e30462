// The Shadow Dexterous Hand's shared base: gymnasium-robotics 1.4.2's
// gymnasium_robotics/envs/shadow_dexterous_hand/hand_env.py (MujocoHandEnv: 20 position
// actuators driven by actions in [-1, 1]) and what its two kinds of tasks, HandReach
// (hand_reach.h) and HandManipulate* (hand_manipulate.h), share: the options of their
// constructors, the initial joint positions of _env_setup, robot_get_obs (every joint whose
// name starts with "robot", in id order) and the free view of DEFAULT_CAMERA_CONFIG.
//
// _set_action maps an action to the actuators' position targets:
//   absolute control (the default): ctrl = center + action * range, center and range the
//     middle and half-width of each actuator's ctrlrange;
//   relative control: the same about the current position of the actuator's joint (the
//     actuator "robot0:A_XX" drives joint "robot0:XX"), plus, for the four fingers' J1
//     actuators, that of the coupled distal joint J0 (a tendon drives J1 + J0);
//   then clipped to ctrlrange.
// The reference's relative branch calls mujoco-py's helpers (data.get_joint_qpos,
// model.actuator_names), which the `mujoco` bindings' MjData and MjModel lack: gymnasium.make
// (..., relative_control=True) raises AttributeError at the first _set_action (HandReach's
// first step, HandManipulate's first reset). This port gives the branch the meaning it had
// with mujoco-py (its get_joint_qpos of a hinge joint is the float64 data.qpos[address]),
// which tests/families/robotics/test_hand.py checks against the reference given those
// helpers.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_HAND_ENV_H_
#define ENVFLEET_FAMILIES_ROBOTICS_HAND_ENV_H_

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/numpy/math.h"
#include "families/robotics/robot_env.h"

namespace envfleet {
namespace robotics {

// BaseHandEnv's n_actions: the hand's 20 actuators.
inline constexpr int kHandActions = 20;

class HandEnv : public RobotEnv {
 public:
  // The options every hand task takes (its constructor's keywords, EnvPool's names where they
  // differ): reward_type, relative_control, frame_skip (n_substeps: MuJoCo steps per env step,
  // EnvPool's name) and the initial joint positions. The reference's initial_qpos is a dict
  // {joint name: value}; envfleet's options hold no dicts, so it is two lists of the same
  // length: initial_qpos_joints (the names, in the dict's order) and initial_qpos (the values).
  static void AddHandDefaults(Config& config, const std::string& xml_file,
                              const std::vector<std::string>& initial_qpos_joints,
                              const std::vector<double>& initial_qpos) {
    AddCommonDefaults(config, xml_file);
    config.Set("reward_type", std::string("sparse"));
    config.Set("relative_control", false);
    config.Set("frame_skip", int64_t{20});
    config.Set("initial_qpos_joints", initial_qpos_joints);
    config.Set("initial_qpos", initial_qpos);
  }

  // The checks every hand task makes of its options and model (Spec and the constructor).
  static void CheckHand(const Config& config, const mjModel* m) {
    DenseReward(config);
    if (config.Get<int64_t>("frame_skip") < 1) {
      throw std::invalid_argument("frame_skip (n_substeps) must be >= 1, got " +
                                  std::to_string(config.Get<int64_t>("frame_skip")));
    }
    if (m->nu != kHandActions) {
      throw std::invalid_argument("xml_file: the hand's 20 actions drive 20 actuators, not " +
                                  std::to_string(m->nu));
    }
    const auto& names = config.Get<std::vector<std::string>>("initial_qpos_joints");
    const auto& values = config.Get<std::vector<double>>("initial_qpos");
    if (names.size() != values.size()) {
      throw std::invalid_argument(
          "initial_qpos_joints and initial_qpos must have the same length (a joint name per "
          "value), got " +
          std::to_string(names.size()) + " and " + std::to_string(values.size()));
    }
    for (const std::string& name : names) {
      // set_joint_qpos with one number: the reference asserts a one-valued (hinge or slide)
      // joint.
      if (FindJoint(m, name).qpos_size != 1) {
        throw std::invalid_argument("initial_qpos_joints: joint '" + name +
                                    "' is not a hinge or slide joint (one value)");
      }
    }
    if (RobotJoints(m).empty()) {
      throw std::invalid_argument("xml_file: the model has no joint named robot*");
    }
    for (int j : RobotJoints(m)) {
      if (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE) {
        // robot_get_obs stacks one value per robot joint (np.squeeze of an (n, 1) array).
        throw std::invalid_argument(std::string("xml_file: robot joint '") +
                                    mj_id2name(m, mjOBJ_JOINT, j) +
                                    "' is not a hinge or slide joint");
      }
    }
  }

  // robot_get_obs' joints: those whose names start with "robot", in id order.
  static std::vector<int> RobotJoints(const mjModel* m) {
    std::vector<int> joints;
    for (int j = 0; j < m->njnt; ++j) {
      const char* name = mj_id2name(m, mjOBJ_JOINT, j);
      if (name != nullptr && std::strncmp(name, "robot", 5) == 0) joints.push_back(j);
    }
    return joints;
  }

  static bool DenseReward(const Config& config) {
    const std::string& type = config.Get<std::string>("reward_type");
    if (type != "sparse" && type != "dense") {
      throw std::invalid_argument("reward_type must be 'sparse' or 'dense', got '" + type + "'");
    }
    return type == "dense";
  }

  // Gymnasium's render_fps for these options: BaseRobotEnv.metadata["render_fps"] = 25, which
  // the reference asserts equals round(1 / dt) (frame_skip 20 of 2 ms).
  static RenderSpec HandRenderSpec(const Config& config, const mjModel* m) {
    const double dt = m->opt.timestep * static_cast<double>(config.Get<int64_t>("frame_skip"));
    return RobotRenderSpec(m, std::nearbyint(1.0 / dt));
  }

 protected:
  HandEnv(const Config& config, uint64_t seed, ModelPtr model)
      : RobotEnv(config, seed, std::move(model),
                 static_cast<int>(config.Get<int64_t>("frame_skip"))),
        dense_(DenseReward(config)),
        relative_control_(config.Get<bool>("relative_control")) {
    CheckHand(config, model_);
    // hand_env.DEFAULT_CAMERA_CONFIG
    default_camera_.distance = 0.5;
    default_camera_.azimuth = 55.0;
    default_camera_.elevation = -25.0;
    default_camera_.lookat = {{1.0, 0.96, 0.14}};
    for (int j : RobotJoints(model_)) {
      robot_qpos_.push_back(model_->jnt_qposadr[j]);
      robot_qvel_.push_back(model_->jnt_dofadr[j]);
    }
    const auto& names = config.Get<std::vector<std::string>>("initial_qpos_joints");
    const auto& values = config.Get<std::vector<double>>("initial_qpos");
    for (size_t i = 0; i < names.size(); ++i) {
      initial_joints_.push_back({FindJoint(model_, names[i]).qpos, values[i]});
    }
    for (int i = 0; i < kHandActions; ++i) {
      const double low = model_->actuator_ctrlrange[2 * i];
      const double high = model_->actuator_ctrlrange[2 * i + 1];
      ctrl_low_[i] = low;
      ctrl_high_[i] = high;
      actuation_range_[i] = (high - low) / 2.0;
      actuation_center_[i] = (high + low) / 2.0;
    }
    if (relative_control_) FindRelativeControlJoints();
  }

  // The first part of _env_setup: initial_qpos set joint by joint (in the dict's order), then
  // mj_forward.
  void SetInitialJoints() {
    for (const InitialJoint& joint : initial_joints_) data_->qpos[joint.qpos] = joint.value;
    mj_forward(model_, data_);
  }

  // _set_action(action) for a step's action, clipped to [-1, 1] and still float32: the
  // relative branch's actuation_center is np.zeros_like(action), so float32, each joint
  // position rounded to float32 when stored (the J1 + J0 sum in float64 first); then
  // center + action * range in float64.
  void SetAction(const float* action) {
    if (relative_control_) {
      float center[kHandActions];
      for (int i = 0; i < kHandActions; ++i) {
        center[i] = static_cast<float>(data_->qpos[actuator_qpos_[i]]);
      }
      for (const Coupling& c : couplings_) {
        center[c.actuator] =
            static_cast<float>(static_cast<double>(center[c.actuator]) + data_->qpos[c.qpos]);
      }
      for (int i = 0; i < kHandActions; ++i) {
        SetCtrl(i, static_cast<double>(center[i]), static_cast<double>(action[i]));
      }
    } else {
      for (int i = 0; i < kHandActions; ++i) {
        SetCtrl(i, actuation_center_[i], static_cast<double>(action[i]));
      }
    }
  }

  // _set_action(np.zeros(20)), as HandManipulate's reset settles the object: a float64 action,
  // so a float64 actuation_center in the relative branch.
  void SetZeroAction() {
    if (relative_control_) {
      double center[kHandActions];
      for (int i = 0; i < kHandActions; ++i) center[i] = data_->qpos[actuator_qpos_[i]];
      for (const Coupling& c : couplings_) center[c.actuator] += data_->qpos[c.qpos];
      for (int i = 0; i < kHandActions; ++i) SetCtrl(i, center[i], 0.0);
    } else {
      for (int i = 0; i < kHandActions; ++i) SetCtrl(i, actuation_center_[i], 0.0);
    }
  }

  // robot_get_obs: the robot joints' positions, then their velocities; returns past the last.
  double* WriteRobotObs(double* obs) const {
    for (int adr : robot_qpos_) *obs++ = data_->qpos[adr];
    for (int adr : robot_qvel_) *obs++ = data_->qvel[adr];
    return obs;
  }

  int num_robot_joints() const { return static_cast<int>(robot_qpos_.size()); }

  // np.clip(action, -1.0, 1.0) on float32 (NaN stays NaN).
  static float ClipUnit(float x) { return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x); }

  bool dense_;

 private:
  struct InitialJoint {
    int qpos;
    double value;
  };
  // An actuator whose center also takes a coupled joint's position (the fingers' J1 + J0).
  struct Coupling {
    int actuator, qpos;
  };

  // data.ctrl[i] = np.clip(center + action * range, ctrlrange[:, 0], ctrlrange[:, 1]).
  void SetCtrl(int i, double center, double action) {
    data_->ctrl[i] =
        numpy_math::NpClip(center + action * actuation_range_[i], ctrl_low_[i], ctrl_high_[i]);
  }

  // The joints of the relative branch: actuator "X:A_Y" drives joint "X:Y" (the reference's
  // name.replace(":A_", ":")), and robot0:A_{FF,MF,RF,LF}J1 also take robot0:{..}J0.
  void FindRelativeControlJoints() {
    for (int i = 0; i < kHandActions; ++i) {
      const char* raw = mj_id2name(model_, mjOBJ_ACTUATOR, i);
      std::string name = raw != nullptr ? raw : "";
      const size_t at = name.find(":A_");
      if (at != std::string::npos) name = name.substr(0, at) + ":" + name.substr(at + 3);
      actuator_qpos_[i] = RelativeJoint(name).qpos;
    }
    for (const char* finger : {"FF", "MF", "RF", "LF"}) {
      const std::string actuator = std::string("robot0:A_") + finger + "J1";
      const int id = mj_name2id(model_, mjOBJ_ACTUATOR, actuator.c_str());
      if (id < 0) {
        throw std::invalid_argument("relative_control=True: the model has no actuator '" +
                                    actuator + "'");
      }
      couplings_.push_back({id, RelativeJoint(std::string("robot0:") + finger + "J0").qpos});
    }
  }

  Joint RelativeJoint(const std::string& name) const {
    if (mj_name2id(model_, mjOBJ_JOINT, name.c_str()) < 0) {
      throw std::invalid_argument("relative_control=True: the model has no joint '" + name +
                                  "' for its actuators");
    }
    return FindJoint(model_, name);
  }

  bool relative_control_;
  std::vector<int> robot_qpos_, robot_qvel_;
  std::vector<InitialJoint> initial_joints_;
  double ctrl_low_[kHandActions], ctrl_high_[kHandActions];
  double actuation_range_[kHandActions], actuation_center_[kHandActions];
  int actuator_qpos_[kHandActions] = {};
  std::vector<Coupling> couplings_;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_HAND_ENV_H_
