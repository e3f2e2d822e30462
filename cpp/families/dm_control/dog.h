// Dog (stand, walk, trot, run, fetch): dm_control 1.0.50's dm_control/suite/dog.py on its
// dog.xml (meshes from dog_assets/), 3 physics steps of 5 ms per control step. The model is
// built as dog.make_model builds it: the floor sized to the task (speed x time limit), and,
// but for fetch, the ball, target, walls and the ball's and head's cameras removed. The
// reward is the product of dm_control's reward factors.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_DOG_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_DOG_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class DogEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = .015;
  static Config DefaultConfig() { return DomainDefaults("run"); }
  static EnvSpec Spec(const Config& config) {
    const auto model = Model(config);
    int hinges = 0;
    for (int j = 0; j < model->njnt; ++j) hinges += model->jnt_type[j] == mjJNT_HINGE;
    std::vector<ObsKey> obs = {
        {"joint_angles", hinges}, {"joint_velocites", hinges}, {"torso_pelvis_height", 2},
        {"z_projection", 9},      {"torso_com_velocity", 3},   {"inertial_sensors", 9},
        {"foot_forces", 12},      {"touch_sensors", 4},        {"actuator_state", model->na}};
    if (Task(config) == kFetch) obs.insert(obs.end(), {{"ball_state", 6}, {"target_position", 3}});
    return TaskSpec(model.get(), obs, kControlTimestep);
  }

  DogEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, Model(config), kControlTimestep),
        task_(Task(config)),
        move_speed_(kSpeeds[task_]),
        torso_(Id(mjOBJ_BODY, "torso")),
        pelvis_(Id(mjOBJ_BODY, "pelvis")),
        skull_(Id(mjOBJ_BODY, "skull")),
        root_qpos_(Qpos("root")),
        torso_linvel_(Sensor("torso_linvel")) {
    for (int j = 0; j < m()->njnt; ++j) {
      if (m()->jnt_type[j] == mjJNT_HINGE) hinges_.push_back(j);
    }
    const char* inertial[3] = {"accelerometer", "velocimeter", "gyro"};
    const char* forces[4] = {"foot_L", "foot_R", "hand_L", "hand_R"};
    const char* touch[4] = {"palm_L", "palm_R", "sole_L", "sole_R"};
    for (int k = 0; k < 3; ++k) inertial_[k] = Sensor(inertial[k]);
    for (int k = 0; k < 4; ++k) forces_[k] = Sensor(forces[k]);
    for (int k = 0; k < 4; ++k) touch_[k] = Sensor(touch[k]);
    // Stand.initialize_episode asserts it: each actuator has one activation.
    if (m()->nu != m()->na) throw std::invalid_argument("dog: nu != na");
    if (task_ == kFetch) {
      ball_qpos_ = Qpos("ball_root");
      ball_dof_ = Dof("ball_root");
      ball_ = Id(mjOBJ_GEOM, "ball");
      target_ = Id(mjOBJ_GEOM, "target");
      floor_ = Id(mjOBJ_GEOM, "floor");
      head_ = Id(mjOBJ_SITE, "head");
      upper_bite_ = Id(mjOBJ_SITE, "upper_bite");
      lower_bite_ = Id(mjOBJ_SITE, "lower_bite");
    }
  }

  void Write(const OutputSlot& out) const override {
    const mjModel* model = m();
    const mjData* data = d();
    double* angles = out.Get<double>(0);
    double* velocities = out.Get<double>(1);
    for (int j : hinges_) {
      *angles++ = data->qpos[model->jnt_qposadr[j]];
      *velocities++ = data->qvel[model->jnt_dofadr[j]];
    }
    double* height = out.Get<double>(2);  // xpos[['torso', 'pelvis'], 'z']
    height[0] = data->xpos[3 * torso_ + 2];
    height[1] = data->xpos[3 * pelvis_ + 2];
    double* z_projection = out.Get<double>(3);  // xmat[skull/torso/pelvis, ['zx','zy','zz']]
    for (int body : {skull_, torso_, pelvis_})
      z_projection = Put(z_projection, data->xmat + 9 * body + 6, 3);
    VectorTimesFrame(data->sensordata + torso_linvel_, data->xmat + 9 * torso_, out.Get<double>(4));
    double* inertial = out.Get<double>(5);
    for (int s : inertial_) inertial = Put(inertial, data->sensordata + s, 3);
    double* forces = out.Get<double>(6);
    for (int s : forces_) forces = Put(forces, data->sensordata + s, 3);
    double* touch = out.Get<double>(7);
    for (int k = 0; k < 4; ++k) touch[k] = data->sensordata[touch_[k]];
    Put(out.Get<double>(8), data->act, model->na);
    if (task_ != kFetch) return;
    BallInHeadFrame(out.Get<double>(9));
    double head_to_target[3];
    for (int i = 0; i < 3; ++i) {
      head_to_target[i] = data->geom_xpos[3 * target_ + i] - data->site_xpos[3 * head_ + i];
    }
    VectorTimesFrame(head_to_target, data->site_xmat + 9 * head_, out.Get<double>(10));
  }

 protected:
  void InitializeEpisode() override {
    constexpr double kPi = 3.141592653589793;
    // Stand.initialize_episode: physics.reset() (checked), the standing heights and the
    // body's weight, then a random heading, velocities and activations.
    PhysicsResetChecked();
    stand_height_[0] = d()->xpos[3 * torso_ + 2] * kStandHeightFraction;
    stand_height_[1] = d()->xpos[3 * pelvis_ + 2] * kStandHeightFraction;
    body_weight_ = -m()->opt.gravity[2] * m()->body_subtreemass[torso_];
    const double azimuth = random().Uniform(0, 2 * kPi);
    double* root = d()->qpos + root_qpos_;
    root[3] = std::cos(azimuth / 2), root[4] = 0, root[5] = 0, root[6] = std::sin(azimuth / 2);
    d()->qvel[0] = 2 * random().StandardNormal();
    d()->qvel[1] = 2 * random().StandardNormal();
    d()->qvel[5] = 2 * random().StandardNormal();
    for (int i = 0; i < m()->nu; ++i) {
      d()->act[i] =
          random().Uniform(m()->actuator_ctrlrange[2 * i], m()->actuator_ctrlrange[2 * i + 1]);
    }
    if (task_ != kFetch) return;
    // Fetch: the ball thrown from 3/4 of the floor's half-size towards the dog.
    const double radius = 0.75 * m()->geom_size[3 * floor_];
    const double ball_azimuth = random().Uniform(0, 2 * kPi);
    double* ball = d()->qpos + ball_qpos_;
    ball[0] = radius * std::sin(ball_azimuth);
    ball[1] = radius * std::cos(ball_azimuth);
    ball[2] = 0.05;
    const double vertical_height = random().Uniform(0, 3);
    const double gravity = -m()->opt.gravity[2];
    const double vertical_velocity = std::sqrt(2 * gravity * vertical_height);
    const double horizontal_speed = random().Uniform(0, 5);
    const double direction_x = -std::sin(ball_azimuth) + 0.05 * random().StandardNormal();
    const double direction_y = -std::cos(ball_azimuth) + 0.05 * random().StandardNormal();
    double* ball_velocity = d()->qvel + ball_dof_;
    ball_velocity[0] = horizontal_speed * direction_x;
    ball_velocity[1] = horizontal_speed * direction_y;
    ball_velocity[2] = vertical_velocity;
  }

  // np.prod(get_reward_factors()), the factors multiplied left to right.
  double GetReward() override {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    constexpr double kPi = 3.141592653589793;
    // _MIN_UPRIGHT_COSINE = np.cos(np.deg2rad(_MAX_UPRIGHT_ANGLE = 30)).
    static const double min_upright_cosine = std::cos(30.0 * (kPi / 180.0));
    const mjData* data = d();
    double reward = Tolerance(data->xpos[3 * torso_ + 2], stand_height_[0], kInf, stand_height_[0]);
    reward *= Tolerance(data->xpos[3 * pelvis_ + 2], stand_height_[1], kInf, stand_height_[1]);
    for (int body : {skull_, torso_, pelvis_}) {  // upright: z_projection()[:, 2], an array
      reward *= Tolerance(Xmat(body, 2, 2), min_upright_cosine, kInf, min_upright_cosine + 1,
                          Sigmoid::kLinear, 0, Input::kArray);
    }
    double touch[4];
    for (int k = 0; k < 4; ++k) touch[k] = data->sensordata[touch_[k]];
    reward *= Tolerance(Sum(touch, 4), body_weight_, kInf, body_weight_, Sigmoid::kLinear, 0.9);
    if (task_ == kFetch) return FetchReward(reward);
    if (task_ == kStand) return reward;
    // Move: forward = tolerance(com_forward_velocity, (speed, 2 * speed), max(1, speed), 0,
    // 'linear'), then (4 * forward + 1) / 5.
    double torso_com_velocity[3];
    VectorTimesFrame(data->sensordata + torso_linvel_, data->xmat + 9 * torso_, torso_com_velocity,
                     1);
    const double speed_margin = std::max(1.0, move_speed_);
    double forward = Tolerance(torso_com_velocity[0], move_speed_, 2 * move_speed_, speed_margin,
                               Sigmoid::kLinear, 0);
    forward = (4 * forward + 1) / 5;
    return reward * forward;
  }

 private:
  enum { kStand, kWalk, kTrot, kRun, kFetch };
  static constexpr double kSpeeds[] = {0, 1, 3, 9, 0};  // _WALK_SPEED, _TROT_SPEED, _RUN_SPEED
  static constexpr double kStandHeightFraction = 0.9;
  static constexpr double kDefaultTimeLimit = 15;

  static int Task(const Config& config) {
    return TaskIndex(config, "dog", {"stand", "walk", "trot", "run", "fetch"});
  }

  // dog.make_model(floor_size, remove_ball): stand and walk use _WALK_SPEED's floor, trot and
  // run their own, fetch the default (10) and keeps the ball.
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const int task = Task(config);
    return LoadEditedSuiteModel(
        config, "dog.xml", "task_" + std::to_string(task), [task](mjSpec* spec) {
          const double floor_size =
              task == kFetch
                  ? 10
                  : (task == kStand ? kSpeeds[kWalk] : kSpeeds[task]) * kDefaultTimeLimit;
          mjsGeom* floor = mjs_asGeom(SpecElement(spec, mjOBJ_GEOM, "floor"));
          floor->size[0] = floor->size[1] = floor_size;
          floor->size[2] = .1;
          if (task == kFetch) return;
          const std::pair<mjtObj, const char*> removed[] = {
              {mjOBJ_BODY, "ball"},    {mjOBJ_GEOM, "target"},  {mjOBJ_CAMERA, "ball"},
              {mjOBJ_CAMERA, "head"},  {mjOBJ_GEOM, "wall_px"}, {mjOBJ_GEOM, "wall_nx"},
              {mjOBJ_GEOM, "wall_py"}, {mjOBJ_GEOM, "wall_ny"}};
          for (const auto& [type, name] : removed) {
            if (mjs_delete(spec, SpecElement(spec, type, name)) != 0) {
              throw std::runtime_error(std::string("could not remove ") + name);
            }
          }
        });
  }

  // The product of the standing factors (`standing`) and Fetch's own, reach_ball then
  // fetch_ball, multiplied in that order.
  double FetchReward(double standing) const {
    const mjData* data = d();
    const double* ball = data->geom_xpos + 3 * ball_;
    double to_upper[3], to_lower[3], to_target[3];
    for (int i = 0; i < 3; ++i) {
      to_upper[i] = ball[i] - data->site_xpos[3 * upper_bite_ + i];
      to_lower[i] = ball[i] - data->site_xpos[3 * lower_bite_ + i];
      to_target[i] = ball[i] - data->geom_xpos[3 * target_ + i];
    }
    const double ball_to_mouth = 0.5 * (Norm(to_upper, 3) + Norm(to_lower, 3));
    const double bite_radius = m()->site_size[3 * upper_bite_];
    double reach_ball =
        Tolerance(ball_to_mouth, 0, bite_radius, /*margin=*/2, Sigmoid::kReciprocal);
    reach_ball = (6 * reach_ball + 1) / 7;
    const double target_radius = m()->geom_size[3 * target_];
    const double ball_to_target = Norm(to_target, 3);
    const double ball_near_target = Tolerance(ball_to_target, 0, target_radius,
                                              m()->geom_size[3 * floor_], Sigmoid::kReciprocal);
    const double fetch_ball = (ball_near_target + 1) / 2;
    if (ball_to_target < 2 * target_radius) reach_ball = 1;
    return standing * reach_ball * fetch_ball;
  }

  // ball_in_head_frame: hstack((head_to_ball.dot(head_frame), head_to_ball_vel.dot(head_frame)))
  // with object velocities in the world frame (mj_objectVelocity, linear part).
  void BallInHeadFrame(double* out) const {
    const mjData* data = d();
    double head_velocity[6], ball_velocity[6], head_to_ball[3], head_to_ball_velocity[3];
    mj_objectVelocity(m(), data, mjOBJ_SITE, head_, head_velocity, 0);
    mj_objectVelocity(m(), data, mjOBJ_GEOM, ball_, ball_velocity, 0);
    for (int i = 0; i < 3; ++i) {
      head_to_ball[i] = data->geom_xpos[3 * ball_ + i] - data->site_xpos[3 * head_ + i];
      head_to_ball_velocity[i] = ball_velocity[3 + i] - head_velocity[3 + i];
    }
    const double* head_frame = data->site_xmat + 9 * head_;
    VectorTimesFrame(head_to_ball, head_frame, out);
    VectorTimesFrame(head_to_ball_velocity, head_frame, out + 3);
  }

  int task_;
  double move_speed_;
  int torso_, pelvis_, skull_, root_qpos_, torso_linvel_;
  std::vector<int> hinges_;
  int inertial_[3], forces_[4], touch_[4];
  int ball_qpos_ = -1, ball_dof_ = -1, ball_ = -1, target_ = -1, floor_ = -1, head_ = -1,
      upper_bite_ = -1, lower_bite_ = -1;
  double stand_height_[2] = {}, body_weight_ = 0;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_DOG_H_
