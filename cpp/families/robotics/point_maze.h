// PointMaze: gymnasium-robotics 1.4.2's gymnasium_robotics/envs/maze/point_maze.py
// (PointMazeEnv), maze_v4.py (Maze, MazeEnv: the maze, its goals and resets), point.py
// (PointEnv: the ball, a Gymnasium MujocoEnv) and maps.py (the named mazes). A force-actuated
// ball (two slide joints) is driven through a maze of walls to a goal; a continuing task (the
// default) draws the next goal when the ball reaches one, if reset_target says so.
//
//   model: point.xml with one box geom per wall cell and the goal's "target" site added to
//          its worldbody (Maze.make_maze: point_maze_model.h), compiled once per (agent file,
//          map, scaling, height) and shared.
//   reset: a goal cell drawn, plus uniform noise; a reset cell drawn until it is more than
//          half a cell from the goal, plus noise; the ball put there at rest (mj_resetData,
//          qpos, qvel 0, mj_forward).
//   step:  action clipped to [-1, 1]; qvel clipped to [-5, 5] and set back (mj_forward);
//          ctrl = action; frame_skip x mj_step; mj_rnePostConstraint; the reward, termination
//          and success measured against the goal; then a continuing task with reset_target
//          draws new goals while the ball is within 0.45 of the goal.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_POINT_MAZE_H_
#define ENVFLEET_FAMILIES_ROBOTICS_POINT_MAZE_H_

#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/numpy/math.h"
#include "common/numpy/svml.h"
#include "families/robotics/point_maze_model.h"
#include "families/robotics/robot_env.h"

namespace envfleet {
namespace robotics {

// The options that shape an episode, checked.
struct PointMazeOptions {
  MazeMap map;
  bool dense;
  bool continuing_task, reset_target;
  double scaling, height, noise;
  MazeLayout layout;  // the goal and reset cells

  explicit PointMazeOptions(const Config& config)
      : map(ParseMazeMap(config.Get<std::string>("maze_map"))),
        continuing_task(config.Get<bool>("continuing_task")),
        reset_target(config.Get<bool>("reset_target")),
        scaling(config.Get<double>("maze_size_scaling")),
        height(config.Get<double>("maze_height")),
        noise(config.Get<double>("position_noise_range")),
        layout(map, scaling, height) {
    const std::string& reward_type = config.Get<std::string>("reward_type");
    if (reward_type != "sparse" && reward_type != "dense") {
      throw std::invalid_argument("reward_type must be 'sparse' or 'dense', got '" + reward_type +
                                  "'");
    }
    dense = reward_type == "dense";
    if (!(scaling > 0) || !std::isfinite(scaling)) {
      throw std::invalid_argument("maze_size_scaling must be a positive number, got " +
                                  std::to_string(scaling));
    }
    if (!(height > 0) || !std::isfinite(height)) {
      throw std::invalid_argument("maze_height must be a positive number, got " +
                                  std::to_string(height));
    }
    if (!(noise >= 0) || !std::isfinite(noise)) {
      throw std::invalid_argument("position_noise_range must be a number >= 0, got " +
                                  std::to_string(noise));
    }
    CheckDraws();
  }

  // The reference asserts that there are goal and reset cells, and redraws until a reset cell
  // is more than half a cell from the goal (its noise drawn) and, continuing with
  // reset_target, until the goal is more than 0.45 from the ball: maps and options that could
  // make those loops endless are refused.
  void CheckDraws() const {
    if (layout.goals.empty() || layout.resets.empty()) {
      throw std::invalid_argument(
          "maze_map must have a goal cell and a reset cell (g, r, c or, standing for either, 0)");
    }
    // Wherever its noise puts a goal (within +-noise * scaling of its cell's centre on each
    // axis), some reset cell must be out of half a cell's reach.
    const double spread = noise * scaling;
    for (const auto& goal : layout.goals) {
      bool reachable = false;
      for (const auto& reset : layout.resets) {
        const double dx = std::max(std::fabs(reset[0] - goal[0]) - spread, 0.0);
        const double dy = std::max(std::fabs(reset[1] - goal[1]) - spread, 0.0);
        reachable = reachable || std::hypot(dx, dy) > 0.5 * scaling;
      }
      if (!reachable) {
        throw std::invalid_argument(
            "maze_map: every goal cell needs a reset cell more than half a cell away from "
            "wherever the goal's noise (position_noise_range * maze_size_scaling on each axis) "
            "puts it, or the reset position would be redrawn forever");
      }
    }
    if (continuing_task && reset_target && layout.goals.size() > 1) {
      // Two goal cells farther apart than twice the radius leave, wherever the ball is, one
      // of them out of its reach, noise or not (the noise only needs to keep it there with a
      // positive chance, which it does).
      double widest = 0;
      for (const auto& a : layout.goals) {
        for (const auto& b : layout.goals) {
          widest = std::max(widest, std::hypot(a[0] - b[0], a[1] - b[1]));
        }
      }
      if (!(widest > 2 * kGoalRadius)) {
        throw std::invalid_argument(
            "maze_map: with continuing_task and reset_target, some two goal cells must be more "
            "than 0.9 (twice the goal radius 0.45) apart, or the next goal could be redrawn "
            "forever");
      }
    }
  }

  // The distance within which the ball has reached the goal (success, sparse reward,
  // termination, goal update).
  static constexpr double kGoalRadius = 0.45;
};

class PointMazeEnv : public RobotEnv {
 public:
  // PointMazeEnv's arguments (maze_map, reward_type, continuing_task, reset_target) with its
  // defaults, and what it passes on: maze_size_scaling 1 and maze_height 0.4 to MazeEnv (whose
  // position_noise_range is 0.25), frame_skip 1 to PointEnv. The reference's constructor
  // refuses those four (it sets them itself); EnvPool takes them as options, and so do we.
  static Config Defaults(const std::string& maze_map) {
    Config config;
    AddCommonDefaults(config, "point/point.xml");
    config.Set("maze_map", maze_map);
    config.Set("reward_type", std::string("sparse"));
    config.Set("continuing_task", true);
    config.Set("reset_target", false);
    config.Set("maze_size_scaling", 1.0);
    config.Set("maze_height", 0.4);
    config.Set("position_noise_range", 0.25);
    config.Set("frame_skip", int64_t{1});
    return config;
  }

  static ModelPtr Model(const Config& config, const PointMazeOptions& options) {
    ModelPtr model = LoadMazeModel(ModelPath(config), options.map, options.scaling, options.height);
    if (model->nq < 2) {
      throw std::invalid_argument(
          "xml_file: the agent's first two qpos values are its (x, y), but the model has " +
          std::to_string(model->nq));
    }
    if (model->nu < 1) throw std::invalid_argument("xml_file: the agent has no actuator");
    return model;
  }

  static EnvSpec Spec(const Config& config) {
    if (config.Get<int64_t>("frame_skip") < 1) {
      throw std::invalid_argument("frame_skip must be >= 1");
    }
    const PointMazeOptions options(config);
    ModelPtr model = Model(config, options);
    // observation: PointEnv's qpos and qvel; the goals (x, y). render_fps: PointMazeEnv's
    // metadata (50).
    return GoalSpec(model->nq + model->nv, 2, model->nu, {{"success", DType::kBool}},
                    RobotRenderSpec(model.get(), 50.0));
  }

  PointMazeEnv(const Config& config, uint64_t seed)
      : PointMazeEnv(config, seed, PointMazeOptions(config)) {}

  void Reset() override {
    // MazeEnv.reset: the goal, then the reset position, each with its noise.
    goal_ = layout_.goals[DrawIndex(layout_.goals.size())];
    AddPositionNoise(goal_);
    std::array<double, 2> reset = goal_;
    while (Distance(reset, goal_) <= 0.5 * options_.scaling) {
      reset = layout_.resets[DrawIndex(layout_.resets.size())];
    }
    AddPositionNoise(reset);
    marker_ = goal_;  // update_target_site_pos, seen by the reset's mj_forward
    // PointMazeEnv.reset: init_qpos[:2] = reset_pos; PointEnv.reset: mj_resetData, then
    // set_state(init_qpos, init_qvel).
    initial_qpos_[0] = reset[0];
    initial_qpos_[1] = reset[1];
    mj_resetData(model_, data_);
    // set_state (Gymnasium's `data.act[:] = None` applies to models without activations only:
    // a no-op).
    std::memcpy(data_->qpos, initial_qpos_.data(), sizeof(double) * model_->nq);
    std::memcpy(data_->qvel, initial_qvel_.data(), sizeof(double) * model_->nv);
    mj_forward(model_, data_);
    Observe();
    success_ = Distance(achieved_goal_, goal_) <= PointMazeOptions::kGoalRadius;
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    // PointEnv.step: np.clip(action, -1.0, 1.0) (float32), then _clip_velocity: qvel clipped
    // to [-5, 5] and set back with set_state (mj_forward).
    for (int i = 0; i < model_->nu; ++i) action_[i] = ClipUnit(action[i]);
    for (int i = 0; i < model_->nv; ++i) {
      data_->qvel[i] = numpy_math::NpClip(data_->qvel[i], -5.0, 5.0);
    }
    mj_forward(model_, data_);
    // do_simulation: ctrl, mj_step(nstep=frame_skip), mj_rnePostConstraint.
    for (int i = 0; i < model_->nu; ++i) data_->ctrl[i] = action_[i];
    StepSimulation();
    mj_rnePostConstraint(model_, data_);
    marker_ = goal_;  // the site where this step's kinematics put it
    Observe();
    // compute_reward: np.linalg.norm(..., axis=-1) is a sum of squares in add.reduce's order;
    // compute_terminated, success and update_goal take the plain norm (BLAS's ddot).
    const double diff[2] = {achieved_goal_[0] - goal_[0], achieved_goal_[1] - goal_[1]};
    const double distance = std::sqrt(numpy_math::NpSumOfSquares(diff, 2));
    if (options_.dense) {
      reward_ = numpy_math::NpExp(-distance);
    } else {
      reward_ = distance <= PointMazeOptions::kGoalRadius ? 1.0 : 0.0;
    }
    success_ = Distance(achieved_goal_, goal_) <= PointMazeOptions::kGoalRadius;
    terminated_ = !options_.continuing_task && success_;
    // update_goal: a continuing task with reset_target redraws the goal (the next step's; the
    // observation keeps the one it was measured against) until it is out of reach.
    if (options_.continuing_task && options_.reset_target && success_ && layout_.goals.size() > 1) {
      while (Distance(achieved_goal_, goal_) <= PointMazeOptions::kGoalRadius) {
        goal_ = layout_.goals[DrawIndex(layout_.goals.size())];
        AddPositionNoise(goal_);
      }
    }
  }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<double>(0), obs_.data(), sizeof(double) * obs_.size());
    std::memcpy(out.Get<double>(1), achieved_goal_.data(), sizeof(achieved_goal_));
    std::memcpy(out.Get<double>(2), observed_goal_.data(), sizeof(observed_goal_));
    WriteInfo(out);
  }

  void WriteInfo(const OutputSlot& out) const { *out.Get<bool>(first_info_key()) = success_; }

 protected:
  // update_target_site_pos writes the goal into model.site_pos (z: half the walls' height);
  // a frame shows the target where the last kinematics put it: the model is shared, so the
  // scene's marker is moved there instead.
  void EditScene(mjvScene* scene) override {
    const double pos[3] = {marker_[0], marker_[1], options_.height / 2 * options_.scaling};
    MoveSiteGeom(scene, target_site_, pos);
  }

 private:
  PointMazeEnv(const Config& config, uint64_t seed, PointMazeOptions options)
      : RobotEnv(config, seed, Model(config, options),
                 static_cast<int>(config.Get<int64_t>("frame_skip"))),
        options_(std::move(options)),
        layout_(options_.layout),
        target_site_(SiteId(model_, "target")),
        obs_(static_cast<size_t>(model_->nq + model_->nv)),
        action_(static_cast<size_t>(model_->nu)) {
    // PointMazeEnv: the free camera's distance by the maze's number of rows.
    default_camera_.distance = options_.map.rows > 8 ? 12.5 : 8.8;
    // MujocoEnv's init_qpos / init_qvel: the state of a new MjData (qpos0, rest).
    SaveInitialState();
  }

  // generate_target_goal / generate_reset_pos: np_random.integers(0, n).
  size_t DrawIndex(size_t n) {
    return static_cast<size_t>(rng().Integers(0, static_cast<int64_t>(n)));
  }

  // add_xy_position_noise: uniform(-r, r) * maze_size_scaling on x, then y.
  void AddPositionNoise(std::array<double, 2>& xy) {
    const double noise_x = rng().Uniform(-options_.noise, options_.noise) * options_.scaling;
    const double noise_y = rng().Uniform(-options_.noise, options_.noise) * options_.scaling;
    xy[0] += noise_x;
    xy[1] += noise_y;
  }

  // np.linalg.norm(a - b) of two points.
  static double Distance(const std::array<double, 2>& a, const std::array<double, 2>& b) {
    const double diff[2] = {a[0] - b[0], a[1] - b[1]};
    return NpNorm(diff, 2);
  }

  // PointEnv._get_obs: concatenate(qpos, qvel); the achieved goal is qpos[:2], the desired one
  // the goal now.
  void Observe() {
    std::memcpy(obs_.data(), data_->qpos, sizeof(double) * model_->nq);
    std::memcpy(obs_.data() + model_->nq, data_->qvel, sizeof(double) * model_->nv);
    achieved_goal_ = {data_->qpos[0], data_->qpos[1]};
    observed_goal_ = goal_;
  }

  // np.clip(action, -1.0, 1.0) on float32 (NaN stays NaN).
  static float ClipUnit(float x) { return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x); }

  PointMazeOptions options_;
  const MazeLayout& layout_;  // options_.layout
  int target_site_;
  std::vector<double> obs_;
  std::vector<float> action_;  // the clipped action
  std::array<double, 2> goal_{};
  std::array<double, 2> observed_goal_{};
  std::array<double, 2> achieved_goal_{};
  std::array<double, 2> marker_{};  // where the target site is drawn
  bool success_ = false;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_POINT_MAZE_H_
