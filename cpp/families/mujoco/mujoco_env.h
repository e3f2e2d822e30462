// The shared base of the MuJoCo family: a port of Gymnasium 1.4.0's
// gymnasium/envs/mujoco/mujoco_env.py (MujocoEnv) on libmujoco 4.0.0, the library the `mujoco`
// Python package that Gymnasium uses runs on. With the same library, the same model file and
// the same sequence of calls, the physics is bit-identical to Gymnasium's:
//
//   reset:  mj_resetData; qpos/qvel = init + noise drawn from rng() (np_random's twin);
//           copy them into mjData; mj_forward                          (MujocoEnv.set_state)
//   step:   ctrl = action (float32 widened to float64); mj_step x frame_skip;
//           mj_rnePostConstraint                           (MujocoEnv._step_mujoco_simulation)
//
// The mjModel is loaded once per XML path and shared, read-only, by every env that uses it
// (mj_step takes a const mjModel*); each env owns its mjData.
//
// MuJoCo reports problems through global handlers. We install ours when the family registers:
// warnings (e.g. the deprecated 'settotalmass' in half_cheetah.xml) are dropped instead of
// being appended to MUJOCO_LOG.TXT in the working directory and printed, and errors become
// C++ exceptions, which the pool turns into Python exceptions naming the env. libmujoco's C
// frames carry unwind tables (.eh_frame), so an exception can cross them; the env's mjData is
// then reset before it is used again (the pool resets an env whose step failed).
#ifndef ENVFLEET_FAMILIES_MUJOCO_MUJOCO_ENV_H_
#define ENVFLEET_FAMILIES_MUJOCO_MUJOCO_ENV_H_

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/files.h"
#include "common/mujoco/camera.h"
#include "common/mujoco/handlers.h"
#include "common/mujoco/pixels.h"
#include "common/mujoco/render.h"
#include "common/numpy/math.h"
#include "core/env.h"
#include "core/spec.h"

namespace envfleet {
namespace mujoco {

// ---- Models -------------------------------------------------------------------------------

// Gymnasium's expand_model_path(): a name starting with '.' or '/' is used as is, one starting
// with '~' is expanded, anything else is a file in Gymnasium's assets folder, which the Python
// registration passes as the `assets_dir` option (the XML files are never copied here). The
// path must lead to a regular file (cpp/common/files.h says why).
inline std::string ModelPath(const Config& config) {
  const std::string& name = config.Get<std::string>("xml_file");
  std::string path;
  if (name.empty()) throw std::invalid_argument("xml_file must not be empty");
  if (name[0] == '.' || name[0] == '/') {
    path = name;
  } else if (name[0] == '~') {
    const char* home = std::getenv("HOME");
    path = (home != nullptr ? std::string(home) : std::string("~")) + name.substr(1);
  } else {
    const std::string& dir = config.Get<std::string>("assets_dir");
    if (dir.empty()) {
      throw std::invalid_argument("xml_file '" + name +
                                  "' is relative to the assets folder, but assets_dir is empty");
    }
    files::CheckFolder("assets_dir", dir);
    path = dir + "/" + name;
  }
  files::CheckFile("xml_file", path);
  return path;
}

using ModelPtr = std::shared_ptr<const mjModel>;

// Loads an XML model once per path; every env of every pool using that file shares it.
inline ModelPtr LoadModel(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const mjModel>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::weak_ptr<const mjModel>& slot = cache[path];
  if (ModelPtr model = slot.lock()) return model;
  char error[1024] = "";
  mjModel* raw = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  if (raw == nullptr) {
    throw std::invalid_argument("MuJoCo could not load the model '" + path + "': " + error);
  }
  ModelPtr model(raw, [](const mjModel* m) { mj_deleteModel(const_cast<mjModel*>(m)); });
  slot = model;
  return model;
}

inline ModelPtr LoadModel(const Config& config) { return LoadModel(ModelPath(config)); }

inline int BodyId(const mjModel* m, const char* name) {
  const int id = mj_name2id(m, mjOBJ_BODY, name);
  if (id < 0) {
    throw std::invalid_argument(std::string("the model has no body named '") + name + "'");
  }
  return id;
}

// ---- Options ------------------------------------------------------------------------------

// A Gymnasium tuple option such as healthy_z_range: a list[float] of two values here.
inline std::pair<double, double> RangeOption(const Config& config, const std::string& key) {
  const std::vector<double>& v = config.Get<std::vector<double>>(key);
  if (v.size() != 2) {
    throw std::invalid_argument("option '" + key + "' must hold two numbers (min, max), got " +
                                std::to_string(v.size()));
  }
  return {v[0], v[1]};
}

// NumPy's arithmetic, where the references use it: np.sum's pairwise order, np.clip and
// np.linalg.norm (cpp/common/numpy/math.h).
using numpy_math::NpClip;
using numpy_math::NpNorm;
using numpy_math::NpSum;
using numpy_math::NpSumOfSquares;

// ---- The base env ---------------------------------------------------------------------------

// envfleet's own options, which every task and version takes whatever its Gymnasium
// constructor takes: render_fast draws frames without shadows and reflections (about ten times
// faster on a software rasterizer; off by default, when frames are Gymnasium's to the pixel);
// from_pixels makes the observation the rendered frames (pixels.h), frame_stack of them, of
// render_width x render_height from render_camera_id (Python passes make()'s render_width,
// render_height and render_camera_id here, so they are stated once).
inline const std::vector<std::string>& EnvfleetOptions() {
  static const std::vector<std::string> names = {
      "render_fast",   "from_pixels",      "frame_stack",  "render_width",
      "render_height", "render_camera_id", "render_device"};
  return names;
}
inline bool IsEnvfleetOption(const std::string& key) {
  for (const std::string& name : EnvfleetOptions()) {
    if (key == name) return true;
  }
  return false;
}

// A task's defaults: the options every task takes (assets_dir, xml_file, frame_skip and
// envfleet's own), then its own.
inline Config TaskDefaults(const std::string& xml_file, int64_t frame_skip,
                           std::initializer_list<std::pair<const std::string, ConfigValue>> own) {
  Config config(own);
  config.Set("assets_dir", std::string());
  config.Set("xml_file", xml_file);
  config.Set("frame_skip", frame_skip);
  config.Set("render_fast", false);
  AddPixelDefaults(config);  // render() defaults to 480x480, from_pixels to 84x84
  return config;
}

// Every Gymnasium option (all but assets_dir and envfleet's own): the Fixed() of a version
// whose constructor takes no options.
inline std::vector<std::string> AllOptions(const Config& defaults) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : defaults.values()) {
    if (key != "assets_dir" && !IsEnvfleetOption(key)) keys.push_back(key);
  }
  return keys;
}

// What Spec() needs to know about a model: loaded through the shared cache.
struct ModelInfo {
  int nq, nv, nu, nbody, ntendon, ncam;
  std::vector<double> ctrl_low, ctrl_high;
  double timestep;
  double dt;  // MujocoEnv.dt: timestep * frame_skip
};

inline ModelInfo ProbeModel(const Config& config) {
  ModelPtr model = LoadModel(config);
  ModelInfo info{static_cast<int>(model->nq),
                 static_cast<int>(model->nv),
                 static_cast<int>(model->nu),
                 static_cast<int>(model->nbody),
                 static_cast<int>(model->ntendon),
                 static_cast<int>(model->ncam),
                 {},
                 {},
                 model->opt.timestep,
                 model->opt.timestep * static_cast<double>(config.Get<int64_t>("frame_skip"))};
  for (int i = 0; i < model->nu; ++i) {
    // Gymnasium: Box(low, high) from model.actuator_ctrlrange.astype(np.float32).
    info.ctrl_low.push_back(static_cast<float>(model->actuator_ctrlrange[2 * i]));
    info.ctrl_high.push_back(static_cast<float>(model->actuator_ctrlrange[2 * i + 1]));
  }
  return info;
}

// One float64 info entry: a scalar, or an array of `size` values (size >= 0).
struct InfoKey {
  std::string name;
  int size = -1;  // -1: a scalar
};

// What Gymnasium renders for every MuJoCo task: 480x480 frames (mujoco_env.DEFAULT_SIZE) at
// metadata["render_fps"] = int(np.round(1 / dt)) (v4 states the same numbers), any size on
// request, and the model's cameras.
inline RenderSpec TaskRenderSpec(const ModelInfo& model) {
  RenderSpec render;
  render.width = render.height = 480;
  render.resizable = true;
  render.fps = std::nearbyint(1.0 / model.dt);  // np.round: half to even, the default mode
  render.num_cameras = model.ncam;
  return render;
}

// A task's spec: a float64 observation of `obs_size` values, the float64 info entries, the
// action: float32, one value per actuator, bounded by the ctrlrange, and what it renders.
// Gymnasium's envs take any model as xml_file; these read some coordinates by index (qpos[2]:
// the torso's height) and would read and write past a smaller model's arrays. The env's Spec
// states what it reads, and a model with less is refused.
inline void RequireModel(const ModelInfo& model, const char* env, int nq, int nv, int nbody = 0) {
  if (model.nq < nq || model.nv < nv || model.nbody < nbody) {
    throw std::invalid_argument(
        std::string("xml_file: ") + env + " reads a model of at least nq = " + std::to_string(nq) +
        " positions, nv = " + std::to_string(nv) + " velocities and " + std::to_string(nbody) +
        " bodies; this one has " + std::to_string(model.nq) + ", " + std::to_string(model.nv) +
        " and " + std::to_string(model.nbody));
  }
}

inline EnvSpec TaskSpec(const ModelInfo& model, int64_t obs_size,
                        const std::vector<InfoKey>& info) {
  EnvSpec spec;
  spec.obs = {Box("obs", DType::kFloat64, {obs_size}, {}, {})};
  for (const InfoKey& key : info) {
    std::vector<int64_t> shape;
    if (key.size >= 0) shape.push_back(key.size);
    spec.info.push_back(Box(key.name, DType::kFloat64, shape, {}, {}));
  }
  spec.action = Box("action", DType::kFloat32, {model.nu}, model.ctrl_low, model.ctrl_high);
  spec.render = TaskRenderSpec(model);
  return spec;
}

class MujocoEnv : public Env {
 public:
  ~MujocoEnv() override {
    if (data_ != nullptr) mj_deleteData(data_);
  }

  // The options that most tasks' v4 constructors do not take (a task with others hides this).
  static std::vector<std::string> Fixed(int version) {
    if (version == 4) return {"xml_file", "frame_skip"};
    return {};
  }

  int NumCameras() const { return model_->ncam; }

  // Gymnasium's env.render() in rgb_array mode (render.h). The free view (camera_id -1) is
  // the camera the env's first render set up (InitialCamera: Gymnasium makes its viewer on the
  // first render() call and keeps it, with its camera, for the env's life); 0 .. ncam-1 are
  // the model's cameras (mjCAMERA_FIXED). Reads the state only: mjv_updateScene uses mjData's
  // scratch stack, which it restores.
  void Render(int camera_id, int width, int height, uint8_t* rgb) override {
    if (camera_id < -1 || camera_id >= model_->ncam) {
      throw std::out_of_range("camera_id " + std::to_string(camera_id) +
                              " is out of range: this model has " + std::to_string(model_->ncam) +
                              " cameras (valid ids -1 .. " + std::to_string(model_->ncam - 1) +
                              ")");
    }
    if (width < 1 || height < 1) {
      throw std::invalid_argument("render width and height must be positive, got " +
                                  std::to_string(width) + "x" + std::to_string(height));
    }
    if (!camera_ready_) {
      camera_ = InitialCamera(model_, data_, default_camera_);
      camera_ready_ = true;
    }
    // OffScreenViewer.render(camera_id=...).
    camera_.type = camera_id == -1 ? mjCAMERA_FREE : mjCAMERA_FIXED;
    camera_.fixedcamid = camera_id;
    ThreadRenderer::Options options;  // Gymnasium's: MjvScene(model, max_geom=1000)
    options.fast = render_fast_;
    options.device = render_device_;
    ThreadRenderer::OfThisThread().Draw(model_holder_, model_, data_, &camera_, options, width,
                                        height, rgb);
  }

 protected:
  // `info`: the info entries this version reports (its Spec's info keys, in order).
  MujocoEnv(const Config& config, uint64_t seed, int version, const std::vector<InfoKey>& info)
      : Env(seed),
        model_holder_(LoadModel(config)),
        model_(model_holder_.get()),
        frame_skip_(static_cast<int>(config.Get<int64_t>("frame_skip"))),
        v4_(version <= 4),
        render_fast_(config.Get<bool>("render_fast")),
        render_device_(ReadRenderDevice(config)) {
    if (frame_skip_ < 1) throw std::invalid_argument("frame_skip must be >= 1");
    data_ = mj_makeData(model_);
    if (data_ == nullptr) throw std::runtime_error("MuJoCo could not allocate mjData");
    nq_ = static_cast<int>(model_->nq);
    nv_ = static_cast<int>(model_->nv);
    nu_ = static_cast<int>(model_->nu);
    // MujocoEnv.__init__: init_qpos/init_qvel are the fresh mjData's qpos/qvel.
    init_qpos_.assign(data_->qpos, data_->qpos + nq_);
    init_qvel_.assign(data_->qvel, data_->qvel + nv_);
    qpos_.resize(nq_);
    qvel_.resize(nv_);
    // MujocoEnv.dt: model.opt.timestep * frame_skip.
    dt_ = model_->opt.timestep * frame_skip_;
    DeclareInfo(info);
  }

  // The task's default_camera_config (Gymnasium's DEFAULT_CAMERA_CONFIG of that version, or
  // none): set by each task's constructor.
  CameraConfig default_camera_;

  // MujocoEnv.reset(), before reset_model().
  void ResetData() { mj_resetData(model_, data_); }

  // MujocoEnv.set_state(qpos_, qvel_).
  void SetState() {
    for (int i = 0; i < nq_; ++i) data_->qpos[i] = qpos_[i];
    for (int i = 0; i < nv_; ++i) data_->qvel[i] = qvel_[i];
    mj_forward(model_, data_);
  }

  // MujocoEnv.do_simulation(action, frame_skip).
  void DoSimulation(const float* action) {
    for (int i = 0; i < nu_; ++i) data_->ctrl[i] = action[i];
    for (int i = 0; i < frame_skip_; ++i) mj_step(model_, data_);
    mj_rnePostConstraint(model_, data_);
  }

  // qpos_ = init_qpos + np_random.uniform(low, high, size=nq).
  void UniformQpos(double low, double high) {
    for (int i = 0; i < nq_; ++i) qpos_[i] = init_qpos_[i] + rng().Uniform(low, high);
  }
  // qvel_ = init_qvel + np_random.uniform(low, high, size=nv).
  void UniformQvel(double low, double high) {
    for (int i = 0; i < nv_; ++i) qvel_[i] = init_qvel_[i] + rng().Uniform(low, high);
  }
  // qvel_ = init_qvel + scale * np_random.standard_normal(nv).
  void NormalQvel(double scale) {
    for (int i = 0; i < nv_; ++i) qvel_[i] = init_qvel_[i] + scale * rng().StandardNormal();
  }

  // The noise reset_model() adds to init_qvel: uniform(-scale, scale, nv) or
  // scale * standard_normal(nv); init_qpos always gets uniform(-scale, scale, nq).
  enum class QvelNoise { kUniform, kNormal };

  // MujocoEnv.reset() with the usual reset_model(): qpos and qvel drawn around the initial
  // state (in that order), set_state, and the info zeroed.
  void ResetWithNoise(double scale, QvelNoise qvel_noise) {
    ResetData();
    UniformQpos(-scale, scale);
    if (qvel_noise == QvelNoise::kUniform) {
      UniformQvel(-scale, scale);
    } else {
      NormalQvel(scale);
    }
    SetState();
    ClearInfo();
  }

  // weight * np.sum(np.square(action)) on the float32 action: NumPy computes it in float32
  // (NEP 50: a Python float meeting a float32 scalar takes its dtype), rounding the weight.
  float ActionCost(double weight, const float* action) const {
    return static_cast<float>(weight) * NpSumOfSquares(action, nu_);
  }

  // The observation: Append copies n values and returns the end; AppendState appends
  // qpos[first_qpos:] and qvel, the observation most tasks start with.
  static double* Append(double* obs, const double* values, int n) {
    for (int i = 0; i < n; ++i) obs[i] = values[i];
    return obs + n;
  }
  double* AppendState(double* obs, int first_qpos) const {
    obs = Append(obs, data_->qpos + first_qpos, nq_ - first_qpos);
    return Append(obs, data_->qvel, nv_);
  }

  // Info entries are filled by slot; a key the version lacks has slot -1 and is skipped.
  // Reset zeroes them first: keys that Gymnasium's reset info lacks read 0.
  int InfoSlot(const char* name) const {
    for (size_t k = 0; k < info_names_.size(); ++k) {
      if (info_names_[k] == name) return info_offsets_[k];
    }
    return -1;
  }
  void Put(int slot, double value) {
    if (slot >= 0) info_[slot] = value;
  }
  void PutArray(int slot, const double* values, int n) {
    if (slot < 0) return;
    for (int i = 0; i < n; ++i) info_[slot + i] = values[i];
  }
  void ClearInfo() {
    for (double& v : info_) v = 0.0;
  }
  // Info keys follow the single observation key in the output slot.
  void WriteInfo(const OutputSlot& out) const {
    for (size_t k = 0; k < info_sizes_.size(); ++k) {
      double* dst = out.Get<double>(1 + k);
      const double* src = info_.data() + info_offsets_[k];
      for (int i = 0; i < info_sizes_[k]; ++i) dst[i] = src[i];
    }
  }

  // The slots of the info keys that several tasks report, found under Gymnasium's usual
  // names; a task whose version names one differently (HalfCheetah-v4's reward_run, ...)
  // looks that one up itself.
  struct InfoSlots {
    int x_position, y_position, distance_from_origin, z_distance_from_origin, x_velocity,
        y_velocity, reward_forward, forward_reward, reward_ctrl, reward_contact, reward_survive;
  };

  // x_position, y_position and distance_from_origin of a point (x, y).
  void PutPosition(const double* xy) {
    Put(slot_.x_position, xy[0]);
    Put(slot_.y_position, xy[1]);
    Put(slot_.distance_from_origin, NpNorm(xy, 2));
  }

  // np.isfinite(state_vector()).all().
  bool StateFinite() const {
    for (int i = 0; i < nq_; ++i) {
      if (!std::isfinite(data_->qpos[i])) return false;
    }
    for (int i = 0; i < nv_; ++i) {
      if (!std::isfinite(data_->qvel[i])) return false;
    }
    return true;
  }

  ModelPtr model_holder_;
  const mjModel* model_;
  mjData* data_ = nullptr;
  int frame_skip_;
  bool v4_;  // v4's rules: version 4, or gym's v3 (Ant, Humanoid) on top of them; else v5
  bool render_fast_;
  int render_device_;
  int nq_ = 0, nv_ = 0, nu_ = 0;
  double dt_ = 0;
  std::vector<double> init_qpos_, init_qvel_;
  std::vector<double> qpos_, qvel_;  // the state reset_model() builds
  InfoSlots slot_{};

 private:
  void DeclareInfo(const std::vector<InfoKey>& keys) {
    int offset = 0;
    for (const InfoKey& key : keys) {
      const int size = key.size < 0 ? 1 : key.size;
      info_names_.push_back(key.name);
      info_offsets_.push_back(offset);
      info_sizes_.push_back(size);
      offset += size;
    }
    info_.assign(offset, 0.0);
    slot_ = {InfoSlot("x_position"),           InfoSlot("y_position"),
             InfoSlot("distance_from_origin"), InfoSlot("z_distance_from_origin"),
             InfoSlot("x_velocity"),           InfoSlot("y_velocity"),
             InfoSlot("reward_forward"),       InfoSlot("forward_reward"),
             InfoSlot("reward_ctrl"),          InfoSlot("reward_contact"),
             InfoSlot("reward_survive")};
  }

  std::vector<std::string> info_names_;
  std::vector<int> info_offsets_, info_sizes_;
  std::vector<double> info_;
  mjvCamera camera_{};  // the viewer's camera, once camera_ready_ (the first Render)
  bool camera_ready_ = false;
};

// ---- The robots that move forward -----------------------------------------------------------

// Ant, HalfCheetah, Hopper, Walker2d, Swimmer, Humanoid and HumanoidStandup: a control cost,
// reset noise of one scale, an observation that may leave out the position, and (Ant, Hopper,
// Walker2d, Humanoid) a healthy reward.
class LocomotionEnv : public MujocoEnv {
 public:
  // exclude_current_positions_from_observation: the first `position_size` qpos values (x, or
  // x and y) are left out of the observation.
  static int ExcludedQpos(const Config& config, int position_size) {
    return config.Get<bool>("exclude_current_positions_from_observation") ? position_size : 0;
  }

 protected:
  LocomotionEnv(const Config& config, uint64_t seed, int version, const std::vector<InfoKey>& info,
                int position_size)
      : MujocoEnv(config, seed, version, info),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        first_qpos_(ExcludedQpos(config, position_size)) {
    // The options only some of the robots take.
    if (config.Has("forward_reward_weight")) {
      forward_reward_weight_ = config.Get<double>("forward_reward_weight");
    }
    if (config.Has("healthy_reward")) {
      healthy_reward_ = config.Get<double>("healthy_reward");
      terminate_when_unhealthy_ = config.Get<bool>("terminate_when_unhealthy");
      healthy_z_range_ = RangeOption(config, "healthy_z_range");
    }
  }

  // The move of a tracked point over one step: DoSimulation(action) between two readings of
  // its first two coordinates; velocity = (after - before) / dt. `point` is a pointer into
  // mjData (qpos, a body's xpos) or a function that writes the coordinates to its argument.
  struct Move {
    double position[2], velocity[2];
  };
  template <typename Point>
  Move SimulateTracking(const float* action, const Point& point) {
    const auto read = [&point](double* xy) {
      if constexpr (std::is_invocable_v<const Point&, double*>) {
        point(xy);
      } else {
        xy[0] = point[0];
        xy[1] = point[1];
      }
    };
    double before[2];
    Move move;
    read(before);
    DoSimulation(action);
    read(move.position);
    for (int i = 0; i < 2; ++i) move.velocity[i] = (move.position[i] - before[i]) / dt_;
    return move;
  }

  // x_velocity and y_velocity of a move.
  void PutVelocity(const Move& move) {
    Put(slot_.x_velocity, move.velocity[0]);
    Put(slot_.y_velocity, move.velocity[1]);
  }

  // v5: is_healthy * healthy_reward; v4: float(is_healthy or terminate_when_unhealthy) *
  // healthy_reward.
  double HealthyReward(bool healthy) const {
    return static_cast<double>(healthy || (v4_ && terminate_when_unhealthy_)) * healthy_reward_;
  }
  // terminated: not is_healthy if terminate_when_unhealthy else False.
  bool Terminated(bool healthy) const { return !healthy && terminate_when_unhealthy_; }

  double ctrl_cost_weight_, reset_noise_scale_;
  int first_qpos_;  // the first qpos value in the observation
  double forward_reward_weight_ = 0, healthy_reward_ = 0;
  bool terminate_when_unhealthy_ = false;
  std::pair<double, double> healthy_z_range_;
};

// Registration: a class E provides static Config Defaults(int version) (every option it
// reads, with that version's values), static std::vector<std::string> Fixed(int version) (the
// options that version's constructor does not take: hidden from users, fixed to the default),
// static EnvSpec Spec(const Config&, int version) and E(const Config&, uint64_t, int version).
template <typename E>
Config PublishedDefaults(int version) {
  Config all = E::Defaults(version);
  Config published;
  const std::vector<std::string> fixed = E::Fixed(version);
  for (const auto& [key, value] : all.values()) {
    bool hidden = false;
    for (const auto& f : fixed) hidden = hidden || f == key;
    if (!hidden) published.Set(key, value);
  }
  return published;
}

template <typename E>
Config FullConfig(const Config& given, int version) {
  Config full = E::Defaults(version);
  for (const auto& [key, value] : given.values()) full.Set(key, value);
  return full;
}

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_MUJOCO_ENV_H_
