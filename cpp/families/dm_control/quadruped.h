// Quadruped (walk, run, escape, fetch): dm_control 1.0.50's dm_control/suite/quadruped.py
// (Move, Escape, Fetch) on its quadruped.xml, 10 physics steps of 2 ms per control step. The
// model is built as quadruped.make_model builds it: walk, run and escape resize the floor and
// drop the walls, ball and target; escape keeps the terrain and the rangefinders, which the
// others drop. Each episode drops the body from just above the ground
// (_find_non_contacting_height); escape first draws a new terrain: random bumps smoothed by
// SciPy's ndimage.zoom (scipy_zoom.h) over a bowl, written into this env's heightfield.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_QUADRUPED_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_QUADRUPED_H_

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/numpy/math.h"
#include "families/dm_control/dm_control_env.h"
#include "families/dm_control/scipy_zoom.h"

namespace envfleet {
namespace dm_control {

class QuadrupedEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = .02;
  static Config DefaultConfig() { return DomainDefaults("walk"); }
  static EnvSpec Spec(const Config& config) {
    const auto model = Model(config);
    const Layout layout = Measure(model.get());
    std::vector<ObsKey> obs = {{"egocentric_state", layout.egocentric},
                               {"torso_velocity", 3},
                               {"torso_upright", -1},
                               {"imu", layout.imu},
                               {"force_torque", layout.force_torque}};
    if (Task(config) == kFetch) {
      obs.insert(obs.end(), {{"ball_state", 9}, {"target_position", 3}});
    } else if (Task(config) == kEscape) {
      obs.insert(obs.end(), {{"origin", 3}, {"rangefinder", layout.rangefinder}});
    }
    return TaskSpec(model.get(), obs, kControlTimestep);
  }

  QuadrupedEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, Model(config), kControlTimestep),
        task_(Task(config)),
        torso_(Id(mjOBJ_BODY, "torso")),
        root_qpos_(Qpos("root")),
        velocimeter_(Sensor("velocimeter")) {
    const mjModel* model = m();
    for (int j = 0; j < model->njnt; ++j) {
      if (model->jnt_type[j] == mjJNT_HINGE) hinges_.push_back(j);
    }
    // _get_sensor_names: sensors of the given types, in id order.
    for (int s = 0; s < model->nsensor; ++s) {
      const int type = model->sensor_type[s];
      std::vector<int>& list = (type == mjSENS_GYRO || type == mjSENS_ACCELEROMETER) ? imu_
                               : (type == mjSENS_FORCE || type == mjSENS_TORQUE)     ? force_torque_
                               : (type == mjSENS_RANGEFINDER)                        ? rangefinders_
                                                                                     : other_;
      list.push_back(s);
    }
    if (task_ == kEscape) {
      workspace_ = Id(mjOBJ_SITE, "workspace");
      OwnModelField(&mjModel::hfield_data, m()->nhfielddata);  // a new terrain each episode
      // The terrain's sizes: bump_res = int(terrain_size / _TERRAIN_BUMP_SCALE) bumps a side,
      // zoomed by res / float(bump_res) to round(bump_res * zoom) (SciPy's output shape).
      const int64_t res = model->hfield_nrow[0];
      if (res != model->hfield_ncol[0]) throw std::invalid_argument("quadruped: hfield not square");
      const double terrain_size = 2 * model->hfield_size[0];
      const int64_t bump_res = static_cast<int64_t>(terrain_size / kBumpScale);
      const double zoom = static_cast<double>(res) / static_cast<double>(bump_res);
      if (std::round(static_cast<double>(bump_res) * zoom) != static_cast<double>(res)) {
        throw std::invalid_argument("quadruped: zoomed terrain size mismatch");
      }
      bumps_.resize(bump_res * bump_res);
      smooth_bumps_.resize(res * res);
      zoom_ = std::make_unique<CubicZoom>(bump_res, bump_res, res, res);
    }
    if (task_ == kFetch) {
      ball_ = Id(mjOBJ_BODY, "ball");
      ball_qpos_ = Qpos("ball_root");
      ball_dof_ = Dof("ball_root");
      root_dof_ = Dof("root");
      target_ = Id(mjOBJ_SITE, "target");
      workspace_ = Id(mjOBJ_SITE, "workspace");
      floor_ = Id(mjOBJ_GEOM, "floor");
      ball_geom_ = Id(mjOBJ_GEOM, "ball");
    }
  }

  void Write(const OutputSlot& out) const override {
    const mjData* data = d();
    double* ego = out.Get<double>(0);  // hstack(qpos[hinges], qvel[hinges], act)
    for (int j : hinges_) *ego++ = data->qpos[m()->jnt_qposadr[j]];
    for (int j : hinges_) *ego++ = data->qvel[m()->jnt_dofadr[j]];
    Put(ego, data->act, m()->na);
    Put(out.Get<double>(1), data->sensordata + velocimeter_, 3);
    out.Get<double>(2)[0] = Xmat(torso_, 2, 2);
    double* imu = out.Get<double>(3);
    for (int s : imu_) imu = Put(imu, data->sensordata + m()->sensor_adr[s], m()->sensor_dim[s]);
    double* force_torque = out.Get<double>(4);  // np.arcsinh
    for (int s : force_torque_) {
      for (int k = 0; k < m()->sensor_dim[s]; ++k) {
        *force_torque++ = std::asinh(data->sensordata[m()->sensor_adr[s] + k]);
      }
    }
    if (task_ == kEscape) {
      // origin: -torso_pos.dot(torso_frame); rangefinder: 1 where the ray hit nothing (-1),
      // else np.tanh of the distance.
      double minus_torso[3];
      for (int i = 0; i < 3; ++i) minus_torso[i] = -data->xpos[3 * torso_ + i];
      VectorTimesFrame(minus_torso, data->xmat + 9 * torso_, out.Get<double>(5));
      double* rangefinder = out.Get<double>(6);
      for (int s : rangefinders_) {
        for (int k = 0; k < m()->sensor_dim[s]; ++k) {
          const double reading = data->sensordata[m()->sensor_adr[s] + k];
          *rangefinder++ = reading == -1.0 ? 1.0 : std::tanh(reading);
        }
      }
      return;
    }
    if (task_ != kFetch) return;
    BallState(out.Get<double>(5));
    double torso_to_target[3];
    for (int i = 0; i < 3; ++i) {
      torso_to_target[i] = data->site_xpos[3 * target_ + i] - data->xpos[3 * torso_ + i];
    }
    VectorTimesFrame(torso_to_target, data->xmat + 9 * torso_, out.Get<double>(6));
  }

 protected:
  void InitializeEpisode() override {
    if (task_ == kEscape) NewTerrain();
    if (task_ != kFetch) {    // Move, Escape
      double orientation[4];  // randn(4), normalised
      for (double& q : orientation) q = random().StandardNormal();
      const double norm = Norm(orientation, 4);
      for (double& q : orientation) q /= norm;
      FindNonContactingHeight(orientation, 0.0, 0.0);
      return;
    }
    // Fetch.
    constexpr double kPi = 3.141592653589793;
    const double azimuth = random().Uniform(0, 2 * kPi);
    const double orientation[4] = {std::cos(azimuth / 2), 0, 0, std::sin(azimuth / 2)};
    const double spawn_radius = 0.9 * m()->geom_size[3 * floor_];
    const double x_pos = random().Uniform(-spawn_radius, spawn_radius);
    const double y_pos = random().Uniform(-spawn_radius, spawn_radius);
    FindNonContactingHeight(orientation, x_pos, y_pos);
    double* ball_qpos = d()->qpos + ball_qpos_;
    ball_qpos[0] = random().Uniform(-spawn_radius, spawn_radius);
    ball_qpos[1] = random().Uniform(-spawn_radius, spawn_radius);
    ball_qpos[2] = 2;
    d()->qvel[ball_dof_] = 5 * random().StandardNormal();
    d()->qvel[ball_dof_ + 1] = 5 * random().StandardNormal();
  }

  double GetReward() override {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    constexpr double kPi = 3.141592653589793;
    // _upright_reward(physics, deviation_angle): deviation = np.cos(np.deg2rad(angle)); 0
    // degrees but for escape's 20.
    static const double escape_deviation = std::cos(20.0 * (kPi / 180.0));
    const double deviation = task_ == kEscape ? escape_deviation : 1.0;
    const double upright =
        Tolerance(Xmat(torso_, 2, 2), deviation, kInf, 1 + deviation, Sigmoid::kLinear, 0);
    if (task_ == kEscape) {  // the distance from the origin, against the terrain's size
      const double terrain_size = m()->hfield_size[0];
      const double escape = Tolerance(Norm(d()->site_xpos + 3 * workspace_, 3), terrain_size, kInf,
                                      terrain_size, Sigmoid::kLinear, 0);
      return upright * escape;
    }
    if (task_ != kFetch) {
      const double speed = task_ == 0 ? kWalkSpeed : kRunSpeed;
      const double move =
          Tolerance(d()->sensordata[velocimeter_], speed, kInf, speed, Sigmoid::kLinear, 0.5);
      return upright * move;
    }
    const double arena_radius = m()->geom_size[3 * floor_] * std::sqrt(2.0);
    const double workspace_radius = m()->site_size[3 * workspace_];
    const double ball_radius = m()->geom_size[3 * ball_geom_];
    const double* ball = d()->xpos + 3 * ball_;
    double self_to_ball[2], ball_to_target[2];
    for (int i = 0; i < 2; ++i) {
      self_to_ball[i] = d()->site_xpos[3 * workspace_ + i] - ball[i];
      ball_to_target[i] = d()->site_xpos[3 * target_ + i] - ball[i];
    }
    const double reach = Tolerance(Norm(self_to_ball, 2), 0, workspace_radius + ball_radius,
                                   arena_radius, Sigmoid::kLinear, 0);
    const double target_radius = m()->site_size[3 * target_];
    const double fetch =
        Tolerance(Norm(ball_to_target, 2), 0, target_radius, arena_radius, Sigmoid::kLinear, 0);
    const double reach_then_fetch = reach * (0.5 + 0.5 * fetch);
    return upright * reach_then_fetch;
  }

 private:
  enum { kWalk, kRun, kFetch, kEscape };
  static constexpr double kSmoothness = 0.15;               // _TERRAIN_SMOOTHNESS
  static constexpr double kBumpScale = 2;                   // _TERRAIN_BUMP_SCALE
  static constexpr double kWalkSpeed = 0.5, kRunSpeed = 5;  // _WALK_SPEED, _RUN_SPEED
  static constexpr double kDefaultTimeLimit = 20;           // _DEFAULT_TIME_LIMIT

  static int Task(const Config& config) {
    return TaskIndex(config, "quadruped", {"walk", "run", "fetch", "escape"});
  }

  // Escape.initialize_episode's terrain: a bowl (1 - cos of the radius, clipped to [.04, 1])
  // times bumps uniform in [_TERRAIN_SMOOTHNESS, 1] on a grid of _TERRAIN_BUMP_SCALE m,
  // zoomed to the heightfield's resolution; written as float32, as the model holds it.
  void NewTerrain() {
    constexpr double kPi = 3.141592653589793;
    mjModel* model = mutable_model();
    const int64_t res = model->hfield_nrow[0];
    // np.ogrid[-1:1:res*1j]: i * (2 / (res - 1)) + -1.
    const double step = (1.0 - -1.0) / static_cast<double>(res - 1);
    const auto grid = [step](int64_t i) { return static_cast<double>(i) * step + -1.0; };
    for (double& bump : bumps_) bump = random().Uniform(kSmoothness, 1);
    zoom_->Apply(bumps_.data(), smooth_bumps_.data());
    float* data = model->hfield_data + model->hfield_adr[0];
    for (int64_t r = 0; r < res; ++r) {
      for (int64_t c = 0; c < res; ++c) {
        // radius = np.clip(np.sqrt(col_grid**2 + row_grid**2), .04, 1)
        const double radius =
            numpy_math::NpClip(std::sqrt(grid(c) * grid(c) + grid(r) * grid(r)), .04, 1);
        const double bowl_shape = .5 - std::cos(2 * kPi * radius) / 2;
        data[r * res + c] = static_cast<float>(bowl_shape * smooth_bumps_[r * res + c]);
      }
    }
  }

  struct Layout {
    int egocentric, imu, force_torque, rangefinder;
  };
  static Layout Measure(const mjModel* model) {
    Layout layout{static_cast<int>(model->na), 0, 0, 0};
    for (int j = 0; j < model->njnt; ++j)
      layout.egocentric += 2 * (model->jnt_type[j] == mjJNT_HINGE);
    for (int s = 0; s < model->nsensor; ++s) {
      const int type = model->sensor_type[s];
      if (type == mjSENS_GYRO || type == mjSENS_ACCELEROMETER) layout.imu += model->sensor_dim[s];
      if (type == mjSENS_FORCE || type == mjSENS_TORQUE)
        layout.force_torque += model->sensor_dim[s];
      if (type == mjSENS_RANGEFINDER) layout.rangefinder += model->sensor_dim[s];
    }
    return layout;
  }

  // quadruped.make_model(floor_size, terrain=False, rangefinders=False, walls_and_ball).
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const int task = Task(config);
    return LoadEditedSuiteModel(
        config, "quadruped.xml", "task_" + std::to_string(task), [task](mjSpec* spec) {
          if (task != kFetch) {
            // floor_size: _DEFAULT_TIME_LIMIT * speed, escape's 40; walls, ball and target
            // removed.
            const double floor_size =
                task == kEscape ? 40 : kDefaultTimeLimit * (task == kWalk ? kWalkSpeed : kRunSpeed);
            mjsGeom* floor = mjs_asGeom(SpecElement(spec, mjOBJ_GEOM, "floor"));
            floor->size[0] = floor->size[1] = floor_size;
            floor->size[2] = .5;
            for (const char* wall : {"wall_px", "wall_py", "wall_nx", "wall_ny"})
              Delete(spec, mjOBJ_GEOM, wall);
            Delete(spec, mjOBJ_BODY, "ball");
            Delete(spec, mjOBJ_SITE, "target");
          }
          if (task == kEscape) return;  // terrain and rangefinders kept
          Delete(spec, mjOBJ_GEOM, "terrain");
          std::vector<mjsElement*> rangefinders;
          for (mjsElement* e = mjs_firstElement(spec, mjOBJ_SENSOR); e != nullptr;
               e = mjs_nextElement(spec, e)) {
            if (mjs_asSensor(e)->type == mjSENS_RANGEFINDER) rangefinders.push_back(e);
          }
          for (mjsElement* e : rangefinders) {
            if (mjs_delete(spec, e) != 0)
              throw std::runtime_error("could not remove a rangefinder");
          }
        });
  }

  static void Delete(mjSpec* spec, mjtObj type, const char* name) {
    if (mjs_delete(spec, SpecElement(spec, type, name)) != 0) {
      throw std::runtime_error(std::string("could not remove ") + name);
    }
  }

  // _find_non_contacting_height(physics, orientation, x_pos, y_pos): from z = 0 up in 1 cm
  // steps, each try in its own reset context, until nothing touches.
  void FindNonContactingHeight(const double* orientation, double x_pos, double y_pos) {
    double z_pos = 0.0;
    int num_contacts = 1, num_attempts = 0;
    while (num_contacts > 0) {
      ResetContext([&] {
        double* root = d()->qpos + root_qpos_;
        root[0] = x_pos, root[1] = y_pos, root[2] = z_pos;
        for (int i = 0; i < 4; ++i) root[3 + i] = orientation[i];
      });
      num_contacts = ncon();
      z_pos += 0.01;
      if (++num_attempts > 10000) {
        throw std::runtime_error("Failed to find a non-contacting configuration.");
      }
    }
  }

  // ball_state: np.vstack((ball_rel_pos, ball_rel_vel, ball_rot_vel)).dot(torso_frame).ravel().
  // A matrix product: NumPy calls BLAS dgemm, whose OpenBLAS kernels on CPUs with AVX2 and
  // FMA3 sum each entry with fused multiply-adds, left to right (measured against NumPy);
  // elsewhere they multiply and add.
  void BallState(double* out) const {
    const mjData* data = d();
    double rows[3][3];
    for (int i = 0; i < 3; ++i) {
      rows[0][i] = data->xpos[3 * ball_ + i] - data->xpos[3 * torso_ + i];
      rows[1][i] = data->qvel[ball_dof_ + i] - data->qvel[root_dof_ + i];
      rows[2][i] = data->qvel[ball_dof_ + 3 + i];
    }
    static const bool fused = numpy_math::internal::HasNumpyFma3Kernel();
    const double* frame = data->xmat + 9 * torso_;
    for (int r = 0; r < 3; ++r) {
      for (int j = 0; j < 3; ++j) {
        double dot = rows[r][0] * frame[j];
        for (int i = 1; i < 3; ++i) {
          dot = fused ? std::fma(rows[r][i], frame[3 * i + j], dot)
                      : dot + rows[r][i] * frame[3 * i + j];
        }
        out[3 * r + j] = dot;
      }
    }
  }

  int task_;
  int torso_, root_qpos_, velocimeter_;
  std::vector<int> hinges_, imu_, force_torque_, rangefinders_, other_;
  std::vector<double> bumps_, smooth_bumps_;  // escape's terrain
  std::unique_ptr<CubicZoom> zoom_;
  int ball_ = -1, ball_qpos_ = -1, ball_dof_ = -1, root_dof_ = -1, target_ = -1, workspace_ = -1,
      floor_ = -1, ball_geom_ = -1;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_QUADRUPED_H_
