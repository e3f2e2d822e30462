// FrankaKitchen: gymnasium-robotics 1.4.2's gymnasium_robotics/envs/franka_kitchen/
// kitchen_env.py (KitchenEnv, a GoalEnv) driving franka_env.py (FrankaRobot, a Gymnasium
// MujocoEnv). A 9-DoF Franka arm in a kitchen: its action is a joint velocity per actuator,
// turned into position targets from the last (noisy) observation; the goal is a set of tasks,
// each a configuration of some of the kitchen's joints (a burner knob, the light switch, a
// cabinet door, the microwave door, the kettle's pose).
//
//   reset: mj_resetData; set_state(KitchenEnv's init_qpos, zero velocities); the observation
//          (its noise drawn); every goal task pending.
//   step:  a = np.clip(action, -1, 1); velocity 0 + 2a, clipped to the joints' velocity bounds;
//          target = last observed (noisy) robot qpos + velocity * dt, clipped to the position
//          bounds; ctrl = target; frame_skip x mj_step; mj_rnePostConstraint; the observation;
//          the pending tasks within BONUS_THRESH (0.3) of their goal complete this step: the
//          reward is their count (float), they leave the pending set (remove_task_when_completed)
//          and join the episode's; with terminate_on_tasks_completed the episode ends once
//          every goal task has been completed.
//   obs:   observation = the robot's 9 qpos and 9 qvel with uniform noise (robot_noise_ratio *
//          franka_config.xml's amplitudes), then the objects' qpos[9:] and qvel[9:] with noise
//          (object_noise_ratio * the amplitudes, the reference's pos_noise_amp[8:] and
//          vel_noise_amp[9:]); draws in that order, 9 + 9 + 21 + 20 per observation.
//          achieved_goal[task] = the task's joints (noiseless), desired_goal[task] = its goal.
//
// The observation is the reference's nested dict: its keys are named "observation",
// "achieved_goal:<task>" and "desired_goal:<task>" (the tasks in the order of the
// tasks_to_complete option), which the Python front end nests into Dict spaces and dicts, as
// EnvPool names them ("obs:desired_goal:kettle"). The reference's info holds lists of task
// names; here, as in EnvPool, each is an int32 mask over the seven tasks in KitchenEnv's order
// (kKitchenTasks: bottom burner, top burner, light switch, slide cabinet, hinge cabinet,
// microwave, kettle), 1 for a task in the list: tasks_to_complete (pending after the step),
// step_task_completions (completed by the step), episode_task_completions (completed so far).
#ifndef ENVFLEET_FAMILIES_ROBOTICS_KITCHEN_H_
#define ENVFLEET_FAMILIES_ROBOTICS_KITCHEN_H_

#include <mujoco/mujoco.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/numpy/math.h"
#include "families/robotics/robot_env.h"

namespace envfleet {
namespace robotics {

// One task of kitchen_env.py: its name, OBS_ELEMENT_INDICES (qpos addresses, consecutive) and
// OBS_ELEMENT_GOALS.
struct KitchenTask {
  const char* name;
  int first_qpos;
  int size;
  double goal[7];
};

inline constexpr int kNumKitchenTasks = 7;
inline constexpr KitchenTask kKitchenTasks[kNumKitchenTasks] = {
    {"bottom burner", 11, 2, {-0.88, -0.01}},
    {"top burner", 15, 2, {-0.92, -0.01}},
    {"light switch", 17, 2, {-0.69, -0.05}},
    {"slide cabinet", 19, 1, {0.37}},
    {"hinge cabinet", 20, 2, {0.0, 1.45}},
    {"microwave", 22, 1, {-0.75}},
    {"kettle", 23, 7, {-0.23, 0.75, 1.62, 0.99, 0.0, 0.0, -0.06}},
};

class KitchenEnv : public RobotEnv {
 public:
  static constexpr int kRobotJoints = 9;
  static constexpr int kNq = 30, kNv = 29;  // the model's sizes, which every table here follows
  // The robot's qpos and qvel, then the objects'.
  static constexpr int kObsSize = 2 * kRobotJoints + (kNq - kRobotJoints) + (kNv - kRobotJoints);

  static Config Defaults() {
    Config config;
    AddCommonDefaults(config, "kitchen_franka/kitchen_assets/kitchen_env_model.xml");
    config.Set("frame_skip", int64_t{40});
    std::vector<std::string> tasks;
    for (const KitchenTask& task : kKitchenTasks) tasks.emplace_back(task.name);
    config.Set("tasks_to_complete", tasks);
    config.Set("terminate_on_tasks_completed", true);
    config.Set("remove_task_when_completed", true);
    config.Set("robot_noise_ratio", 0.01);
    config.Set("object_noise_ratio", 0.0005);
    return config;
  }

  static ModelPtr Model(const Config& config) { return LoadModel(ModelPath(config)); }

  static EnvSpec Spec(const Config& config) {
    ModelPtr model = Model(config);
    CheckModel(model.get());
    const std::vector<int> goal = GoalTasks(config);
    EnvSpec spec;
    spec.obs.push_back(Box("observation", DType::kFloat64, {kObsSize}, {}, {}));
    for (const char* part : {"achieved_goal:", "desired_goal:"}) {
      for (int task : goal) {
        const KitchenTask& t = kKitchenTasks[task];
        spec.obs.push_back(Box(part + std::string(t.name), DType::kFloat64, {t.size}, {}, {}));
      }
    }
    spec.obs_layout = ObsLayout::kDict;
    for (const char* name :
         {"tasks_to_complete", "step_task_completions", "episode_task_completions"}) {
      spec.info.push_back(Box(name, DType::kInt32, {kNumKitchenTasks}, {0.0}, {1.0}));
    }
    spec.action = Box("action", DType::kFloat64, {kRobotJoints}, {-1.0}, {1.0});
    // metadata["render_fps"] = 12, which the reference checks is round(1 / dt) (np.round: 12.5
    // rounds to even).
    const double dt = model->opt.timestep * static_cast<double>(FrameSkip(config));
    spec.render = RobotRenderSpec(model.get(), std::nearbyint(1.0 / dt));
    return spec;
  }

  KitchenEnv(const Config& config, uint64_t seed)
      : RobotEnv(config, seed, Model(config), FrameSkip(config),
                 /*num_obs_keys=*/1 + 2 * static_cast<int>(GoalTasks(config).size())),
        goal_(GoalTasks(config)),
        terminate_on_tasks_completed_(config.Get<bool>("terminate_on_tasks_completed")),
        remove_task_when_completed_(config.Get<bool>("remove_task_when_completed")),
        robot_noise_ratio_(config.Get<double>("robot_noise_ratio")),
        object_noise_ratio_(config.Get<double>("object_noise_ratio")) {
    CheckModel(model_);
    FindRobotJoints();
    // franka_env.DEFAULT_CAMERA_CONFIG
    default_camera_.distance = 2.2;
    default_camera_.azimuth = 70.0;
    default_camera_.elevation = -35.0;
    default_camera_.lookat = {{-0.2, 0.5, 2.0}};
  }

  void Reset() override {
    // FrankaRobot.reset_model: set_state(init_qpos, init_qvel), init_qvel being a view of
    // data.qvel, which mj_resetData has zeroed.
    mj_resetData(model_, data_);
    for (int i = 0; i < kNq; ++i) data_->qpos[i] = kInitQpos[i];
    mj_forward(model_, data_);
    Observe();
    pending_ = 0;
    for (int task : goal_) pending_ |= 1u << task;
    step_completed_ = episode_completed_ = 0;
  }

  void Step(const void* action_ptr) override {
    const double* action = static_cast<const double*>(action_ptr);
    for (int i = 0; i < kRobotJoints; ++i) {
      const double a = numpy_math::NpClip(action[i], -1.0, 1.0);
      const double velocity = 0.0 + a * 2.0;  // act_mid + action * act_rng
      const double feasible =
          numpy_math::NpClip(velocity, kVelocityBound[i][0], kVelocityBound[i][1]);
      const double target = last_robot_qpos_[i] + feasible * dt_;
      data_->ctrl[i] = numpy_math::NpClip(target, kPositionBound[i][0], kPositionBound[i][1]);
    }
    StepSimulation();
    mj_rnePostConstraint(model_, data_);
    Observe();
    // compute_reward: the pending tasks within BONUS_THRESH of their goals.
    step_completed_ = 0;
    for (int task : goal_) {
      if ((pending_ & (1u << task)) != 0 && TaskDistance(task) < 0.3) step_completed_ |= 1u << task;
    }
    int completed = 0;
    for (int task = 0; task < kNumKitchenTasks; ++task) completed += (step_completed_ >> task) & 1;
    reward_ = static_cast<double>(completed);
    if (remove_task_when_completed_) pending_ &= ~step_completed_;
    episode_completed_ |= step_completed_;
    int episode = 0;
    for (int task = 0; task < kNumKitchenTasks; ++task) episode += (episode_completed_ >> task) & 1;
    terminated_ = terminate_on_tasks_completed_ && episode == static_cast<int>(goal_.size());
  }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<double>(0), observation_, sizeof(observation_));
    const int n = static_cast<int>(goal_.size());
    for (int k = 0; k < n; ++k) {
      const KitchenTask& task = kKitchenTasks[goal_[k]];
      std::memcpy(out.Get<double>(1 + k), data_->qpos + task.first_qpos,
                  sizeof(double) * task.size);
      std::memcpy(out.Get<double>(1 + n + k), task.goal, sizeof(double) * task.size);
    }
    WriteInfo(out);
  }

  void WriteInfo(const OutputSlot& out) const {
    const uint32_t masks[3] = {pending_, step_completed_, episode_completed_};
    for (int m = 0; m < 3; ++m) {
      int32_t* mask = out.Get<int32_t>(first_info_key() + m);
      for (int task = 0; task < kNumKitchenTasks; ++task) mask[task] = (masks[m] >> task) & 1;
    }
  }

 private:
  // KitchenEnv.__init__'s robot_env.init_qpos.
  static constexpr double kInitQpos[kNq] = {
      1.48388023e-01,  -1.76848573e00,  1.84390296e00,   -2.47685760e00,  2.60252026e-01,
      7.12533105e-01,  1.59515394e00,   4.79267505e-02,  3.71350919e-02,  -2.66279850e-04,
      -5.18043486e-05, 3.12877220e-05,  -4.51199853e-05, -3.90842156e-06, -4.22629655e-05,
      6.28065475e-05,  4.04984708e-05,  4.62730939e-04,  -2.26906415e-04, -4.65501369e-04,
      -6.44129196e-03, -1.77048263e-03, 1.08009684e-03,  -2.69397440e-01, 3.50383255e-01,
      1.61944683e00,   1.00618764e00,   4.06395120e-03,  -6.62095997e-03, -2.68278933e-04};

  // franka_assets/franka_config.xml, which FrankaRobot._read_specs_from_config reads: the
  // robot joints' pos_bound and vel_bound, and every joint's pos_noise_amp and vel_noise_amp
  // (one row per dof, qpos0 .. qpos28).
  static constexpr double kPositionBound[kRobotJoints][2] = {{-2.9, 2.9}, {-1.8, 1.8}, {-2.9, 2.9},
                                                             {-3.1, 0.0}, {-2.9, 2.9}, {0.0, 3.8},
                                                             {-2.9, 2.9}, {0.0, 0.04}, {0.0, 0.04}};
  static constexpr double kVelocityBound[kRobotJoints][2] = {{-10, 10}, {-10, 10}, {-10, 10},
                                                             {-10, 10}, {-10, 10}, {-10, 10},
                                                             {-10, 10}, {-10, 10}, {-10, 10}};
  static constexpr double kPositionNoise[kNv] = {
      0.1,   0.1,    0.1,    0.1,    0.1,    0.1,    0.1,    0.1,   0.1,   0.005,
      0.005, 0.0005, 0.0005, 0.0005, 0.0005, 0.0005, 0.0005, 0.005, 0.005, 0.005,
      0.1,   0.1,    0.1,    0.005,  0.005,  0.005,  0.1,    0.1,   0.1};
  static constexpr double kVelocityNoise[kNv] = {
      0.1,   0.1,   0.1,   0.1,   0.1,   0.1,   0.1,   0.1,   0.1,   0.005,
      0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005,
      0.1,   0.1,   0.1,   0.005, 0.005, 0.005, 0.1,   0.1,   0.1};

  static int FrameSkip(const Config& config) {
    const int64_t frame_skip = config.Get<int64_t>("frame_skip");
    if (frame_skip < 1 || frame_skip > 1000000) {
      throw std::invalid_argument("frame_skip must be in 1..1000000, got " +
                                  std::to_string(frame_skip));
    }
    return static_cast<int>(frame_skip);
  }

  // The goal's tasks (KitchenEnv.goal: the option's tasks, each once, in its order), as
  // indices into kKitchenTasks.
  static std::vector<int> GoalTasks(const Config& config) {
    std::vector<int> goal;
    for (const std::string& name : config.Get<std::vector<std::string>>("tasks_to_complete")) {
      int found = -1;
      for (int task = 0; task < kNumKitchenTasks; ++task) {
        if (name == kKitchenTasks[task].name) found = task;
      }
      if (found < 0) {
        std::string names;
        for (const KitchenTask& task : kKitchenTasks) {
          names += std::string(names.empty() ? "" : ", ") + "'" + task.name + "'";
        }
        throw std::invalid_argument("tasks_to_complete: unknown task '" + name +
                                    "' (the tasks are " + names + ")");
      }
      bool seen = false;
      for (int task : goal) seen = seen || task == found;
      if (!seen) goal.push_back(found);
    }
    // The reference takes an empty list, then has no goal dicts and terminates every episode
    // on its first step.
    if (goal.empty()) {
      throw std::invalid_argument("tasks_to_complete must name at least one task");
    }
    const double robot_noise = config.Get<double>("robot_noise_ratio");
    const double object_noise = config.Get<double>("object_noise_ratio");
    if (!(robot_noise >= 0) || !(object_noise >= 0)) {
      throw std::invalid_argument("robot_noise_ratio and object_noise_ratio must be >= 0");
    }
    return goal;
  }

  // The tables above follow the kitchen's model: another xml_file must have its sizes.
  static void CheckModel(const mjModel* m) {
    if (m->nq != kNq || m->nv != kNv || m->nu != kRobotJoints) {
      throw std::invalid_argument(
          "xml_file: FrankaKitchen's tables (franka_config.xml, init_qpos, the tasks' joints) "
          "describe a model of nq = 30, nv = 29 and nu = 9; this one has nq = " +
          std::to_string(m->nq) + ", nv = " + std::to_string(m->nv) +
          ", nu = " + std::to_string(m->nu));
    }
  }

  // robot_get_obs: the joints whose names start with "robot", in id order (hinges and slides
  // of one value each).
  void FindRobotJoints() {
    int found = 0;
    for (int j = 0; j < model_->njnt; ++j) {
      const char* name = mj_id2name(model_, mjOBJ_JOINT, j);
      if (name == nullptr || std::strncmp(name, "robot", 5) != 0) continue;
      const int type = model_->jnt_type[j];
      if (found == kRobotJoints || (type != mjJNT_HINGE && type != mjJNT_SLIDE)) {
        throw std::invalid_argument("xml_file: FrankaKitchen reads 9 robot hinge or slide joints");
      }
      robot_qpos_[found] = model_->jnt_qposadr[j];
      robot_qvel_[found] = model_->jnt_dofadr[j];
      ++found;
    }
    if (found != kRobotJoints) {
      throw std::invalid_argument("xml_file: FrankaKitchen reads 9 robot joints, the model has " +
                                  std::to_string(found));
    }
  }

  // FrankaRobot._get_obs then KitchenEnv._get_obs: each value plus (ratio * amplitude) *
  // uniform(-1, 1), the draws in the observation's order.
  void Observe() {
    double* obs = observation_;
    for (int i = 0; i < kRobotJoints; ++i) {
      const double noise = robot_noise_ratio_ * kPositionNoise[i] * rng().Uniform(-1.0, 1.0);
      last_robot_qpos_[i] = data_->qpos[robot_qpos_[i]] + noise;
      *obs++ = last_robot_qpos_[i];
    }
    for (int i = 0; i < kRobotJoints; ++i) {
      const double noise = robot_noise_ratio_ * kVelocityNoise[i] * rng().Uniform(-1.0, 1.0);
      *obs++ = data_->qvel[robot_qvel_[i]] + noise;
    }
    for (int i = kRobotJoints; i < kNq; ++i) {  // pos_noise_amp[8:]: one row before its joint
      const double noise = object_noise_ratio_ * kPositionNoise[i - 1] * rng().Uniform(-1.0, 1.0);
      *obs++ = data_->qpos[i] + noise;
    }
    for (int i = kRobotJoints; i < kNv; ++i) {
      const double noise = object_noise_ratio_ * kVelocityNoise[i] * rng().Uniform(-1.0, 1.0);
      *obs++ = data_->qvel[i] + noise;
    }
  }

  // np.linalg.norm(achieved_goal[task] - desired_goal[task]).
  double TaskDistance(int task) const {
    const KitchenTask& t = kKitchenTasks[task];
    double diff[7];
    for (int k = 0; k < t.size; ++k) diff[k] = data_->qpos[t.first_qpos + k] - t.goal[k];
    return NpNorm(diff, t.size);
  }

  std::vector<int> goal_;  // indices into kKitchenTasks, in the option's order
  bool terminate_on_tasks_completed_, remove_task_when_completed_;
  double robot_noise_ratio_, object_noise_ratio_;
  int robot_qpos_[kRobotJoints] = {}, robot_qvel_[kRobotJoints] = {};
  double last_robot_qpos_[kRobotJoints] = {};  // _last_robot_qpos: the noisy observed qpos
  double observation_[kObsSize] = {};
  // Task masks, bit t for kKitchenTasks[t]: pending (tasks_to_complete), completed by the
  // last step, completed in the episode.
  uint32_t pending_ = 0, step_completed_ = 0, episode_completed_ = 0;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_KITCHEN_H_
