// The shared base of the DeepMind Control Suite family: dm_control 1.0.50's episode loop
// (dm_control/rl/control.py: Environment), its MuJoCo physics wrapper
// (dm_control/mujoco/engine.py: Physics) and suite/base.py's Task, on libmujoco 4.0.0, the
// library the `mujoco` Python package that dm_control runs on here. With the same library, the
// same model and the same sequence of calls, the physics is bit-identical to dm_control's:
//
//   reset  (Environment.reset):
//     Physics.reset()         mj_resetData; mj_forward with actuation disabled (a physics
//                             warning here is ignored, as reset_context ignores PhysicsError)
//     Task.initialize_episode the task's draws from its RandomState (NumpyRandomState twin)
//                             and its state and model edits
//     Physics.after_reset()   mj_forward with actuation disabled
//   step   (Environment.step):
//     Task.before_step        ctrl = action (float64, unclipped: MuJoCo clamps it)
//     Physics.step(n)         legacy_step: mj_step2, mj_step x (n - 1), mj_step1; RK4 models
//                             mj_step x n, mj_step1
//     Task.get_reward / get_observation
//
// Physics.forward and step raise PhysicsError when MuJoCo raised a new warning during the call
// (check_invalid_state); we throw the same message, which the pool raises from step().
//
// Time limits are the pool's (max_episode_steps, set by the registration to dm_control's
// time_limit / control_timestep) and end an episode with discount 1.0 in the dm front end, as
// in dm_control; a task's own termination (lqr's) gives discount 0.
//
// The compiled model of a task is loaded once and shared by its envs (a suite model holds
// 12 MB to 73 MB, mostly textures and meshes). Each env holds a shallow copy of the mjModel
// struct: its own options (dm_control disables actuation by toggling the model's flags during
// reset) over the shared arrays, but for the arrays its task edits per episode (reacher's and
// finger's targets, ...), which it copies (OwnModelField). MuJoCo's simulation calls only read
// the model's arrays.
//
// Seeds: `Task(random=seed)` makes np.random.RandomState(seed), which takes 0 .. 2**32 - 1;
// a larger seed is refused, as NumPy refuses it.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_DM_CONTROL_ENV_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_DM_CONTROL_ENV_H_

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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
#include "common/mujoco/handlers.h"
#include "common/mujoco/pixels.h"
#include "common/mujoco/render.h"
#include "common/numpy/math.h"
#include "common/numpy/random_state.h"
#include "core/env.h"
#include "core/spec.h"
#include "families/dm_control/rewards.h"

namespace envfleet {
namespace dm_control {

// dm_control's control.PhysicsError: MuJoCo raised a warning during a checked call.
class PhysicsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- Models -------------------------------------------------------------------------------

// The path of one XML file of the suite folder (the `assets_dir` option, which the
// registration sets to the installed dm_control/suite; its includes, common/*.xml, resolve from
// there as dm_control's own asset dict resolves them), checked to be a regular file
// (cpp/common/files.h says why).
inline std::string SuiteModelPath(const Config& config, const std::string& xml_file) {
  const std::string& dir = config.Get<std::string>("assets_dir");
  if (dir.empty()) {
    throw std::invalid_argument("assets_dir is empty: it must name dm_control's suite folder");
  }
  files::CheckFolder("assets_dir", dir);
  const std::string path = dir + "/" + xml_file;
  files::CheckFile("the suite model", path);
  return path;
}

// An owned model, deleted with mj_deleteModel.
inline std::shared_ptr<const mjModel> OwnModel(mjModel* model) {
  return std::shared_ptr<const mjModel>(
      model, [](const mjModel* m) { mj_deleteModel(const_cast<mjModel*>(m)); });
}

// A compiled model, built once per key by `build` (which returns a new mjModel or throws) and
// shared read-only; each env copies it.
template <typename Build>
std::shared_ptr<const mjModel> CachedModel(const std::string& key, const Build& build) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const mjModel>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::weak_ptr<const mjModel>& slot = cache[key];
  if (std::shared_ptr<const mjModel> model = slot.lock()) return model;
  std::shared_ptr<const mjModel> model = OwnModel(build());
  slot = model;
  return model;
}

// The compiled model of one XML file of the suite folder, as dm_control loads it unedited.
inline std::shared_ptr<const mjModel> LoadSuiteModel(const Config& config,
                                                     const std::string& xml_file) {
  const std::string path = SuiteModelPath(config, xml_file);
  return CachedModel(path, [&path] {
    char error[1024] = "";
    mjModel* model = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
    if (model == nullptr) {
      throw std::invalid_argument("MuJoCo could not load the model '" + path + "': " + error);
    }
    return model;
  });
}

// A model that a task edits before compiling (dm_control edits the XML tree with lxml): the
// suite's XML parsed into an mjSpec, changed by `edit(spec)` the way the task changes the
// tree, and compiled; the caller owns the result. The spec API adds elements where the task
// appends them, so the compiled model is the one the edited XML gives.
template <typename Edit>
mjModel* CompileEditedSuiteModel(const Config& config, const std::string& xml_file,
                                 const Edit& edit) {
  const std::string path = SuiteModelPath(config, xml_file);
  char error[1024] = "";
  mjSpec* spec = mj_parseXML(path.c_str(), nullptr, error, sizeof(error));
  if (spec == nullptr) {
    throw std::invalid_argument("MuJoCo could not parse the model '" + path + "': " + error);
  }
  mjModel* model = nullptr;
  try {
    edit(spec);
    model = mj_compile(spec, nullptr);
  } catch (...) {
    mj_deleteSpec(spec);
    throw;
  }
  const std::string message = mjs_getError(spec);
  mj_deleteSpec(spec);
  if (model == nullptr) {
    throw std::invalid_argument("MuJoCo could not compile the edited model '" + path +
                                "': " + message);
  }
  return model;
}

// The same, compiled once per `variant` of the edit and shared.
template <typename Edit>
std::shared_ptr<const mjModel> LoadEditedSuiteModel(const Config& config,
                                                    const std::string& xml_file,
                                                    const std::string& variant, const Edit& edit) {
  return CachedModel(SuiteModelPath(config, xml_file) + "#" + variant,
                     [&] { return CompileEditedSuiteModel(config, xml_file, edit); });
}

// An element of a spec by kind and name (mjs_findElement), which must exist.
inline mjsElement* SpecElement(mjSpec* spec, mjtObj type, const char* name) {
  mjsElement* element = mjs_findElement(spec, type, name);
  if (element == nullptr) {
    throw std::invalid_argument(std::string("the model has no ") + mju_type2Str(type) + " named '" +
                                name + "'");
  }
  return element;
}

inline int ObjectId(const mjModel* m, mjtObj type, const char* name) {
  const int id = mj_name2id(m, type, name);
  if (id < 0) {
    throw std::invalid_argument(std::string("the model has no ") + mju_type2Str(type) + " named '" +
                                name + "'");
  }
  return id;
}

// dm_control.rl.control.compute_n_steps(control_timestep, physics_timestep).
inline int ComputeNSteps(double control_timestep, double physics_timestep) {
  if (control_timestep < physics_timestep) {
    throw std::invalid_argument("control timestep cannot be smaller than the physics timestep");
  }
  const double ratio = control_timestep / physics_timestep;
  if (std::fabs(ratio - std::round(ratio)) > 1e-8) {
    throw std::invalid_argument("control timestep must be an integer multiple of the physics one");
  }
  return static_cast<int>(std::round(ratio));
}

// The index of the task_name option in a domain's list of tasks (dm_control.suite's names).
inline int TaskIndex(const Config& config, const char* domain,
                     std::initializer_list<const char*> tasks) {
  const std::string& name = config.Get<std::string>("task_name");
  int index = 0;
  std::string valid;
  for (const char* task : tasks) {
    if (name == task) return index;
    valid += (index++ == 0 ? "" : ", ") + std::string(task);
  }
  throw std::invalid_argument("unknown " + std::string(domain) + " task_name '" + name +
                              "' (valid: " + valid + ")");
}

// ---- Specs --------------------------------------------------------------------------------

// One float64 observation entry of `size` values (-1: a scalar, shape ()), unbounded as
// dm_control's observation_spec says (specs.Array).
struct ObsKey {
  const char* name;
  int64_t size;
};

// What the tasks render: Physics.render's default 320x240 frames, any size on request, from the
// free camera (-1) or one of the model's cameras; at the control rate, one frame per step
// (round(1 / control timestep), half to even).
inline RenderSpec TaskRenderSpec(const mjModel* m, double control_timestep) {
  RenderSpec render;
  render.width = 320;
  render.height = 240;
  render.resizable = true;
  const double dt = control_timestep > 0 ? control_timestep : m->opt.timestep;
  render.fps = std::nearbyint(1.0 / dt);
  render.num_cameras = m->ncam;
  return render;
}

// A task's spec: its observation entries as a dict, in dm_control's OrderedDict order; its
// action: float64, one value per actuator, bounded by the ctrlrange where ctrllimited, else by
// +-mjMAXVAL (1e10), as dm_control.mujoco.action_spec bounds it (lqr's actuators); and what it
// renders (control_timestep as the env's constructor takes it). from_pixels replaces the
// entries (module.cc, pixels.h).
inline EnvSpec TaskSpec(const mjModel* m, const std::vector<ObsKey>& obs, double control_timestep) {
  EnvSpec spec;
  for (const ObsKey& key : obs) {
    std::vector<int64_t> shape;
    if (key.size >= 0) shape.push_back(key.size);
    spec.obs.push_back(Box(key.name, DType::kFloat64, shape, {}, {}));
  }
  spec.obs_layout = ObsLayout::kDict;
  std::vector<double> low, high;
  for (int i = 0; i < m->nu; ++i) {
    const bool limited = m->actuator_ctrllimited[i] != 0;
    low.push_back(limited ? m->actuator_ctrlrange[2 * i] : -mjMAXVAL);
    high.push_back(limited ? m->actuator_ctrlrange[2 * i + 1] : mjMAXVAL);
  }
  spec.action = Box("action", DType::kFloat64, {m->nu}, low, high);
  spec.render = TaskRenderSpec(m, control_timestep);
  return spec;
}

// Options every task takes: assets_dir (set by the registration), task_name (the suite task of
// the domain) and the pixel options (from_pixels, frame_stack, render_width, render_height,
// render_camera_id, render_device; pixels.h).
inline Config DomainDefaults(const std::string& task_name) {
  Config config{{"assets_dir", std::string()}, {"task_name", task_name}};
  mujoco::AddPixelDefaults(config);
  return config;
}

// The geom budget of dm_control's scenes: MjvScene(model) takes max(1000,
// _estimate_max_renderable_geoms(model)) (dm_control/mujoco/wrapper/core.py).
inline int SceneMaxGeom(const mjModel* m) {
  const int frames = std::max({m->nbody, m->ngeom, m->nsite, m->ncam, m->nlight});
  const int estimate = 3 * frames + 4 * m->ngeom + 3 * m->nbody + m->nsite + m->ntendon + m->njnt +
                       m->nu + m->nskin + m->ncam + m->nlight;
  return std::max(1000, estimate);
}

// ---- The base env ---------------------------------------------------------------------------

class DmControlEnv : public Env {
 public:
  ~DmControlEnv() override {
    if (data_ != nullptr) mj_deleteData(data_);
  }

  // Environment.reset() (see the top comment). (Not final: PixelEnv renders after it.)
  void Reset() override {
    PhysicsReset();
    InitializeEpisode();
    AfterReset();
  }

  // Environment.step(action), less the bookkeeping the pool does.
  void Step(const void* action) override {
    const double* a = static_cast<const double*>(action);
    for (int i = 0; i < model_->nu; ++i) data_->ctrl[i] = a[i];
    PhysicsStep(n_sub_steps_);
    reward_ = GetReward();
    terminated_ = GetTermination();
  }

  void Seed(uint64_t seed) override {
    Env::Seed(seed);
    random_.Seed(CheckedSeed(seed));
  }

  int NumCameras() const { return model_->ncam; }

  // The info entries written after the observation: none (dm_control's TimeStep has none).
  void WriteInfo(const OutputSlot&) const {}

  // physics.render(height, width, camera_id) (engine.py: Camera): a fresh camera per call, the
  // free one set by mjv_defaultFreeCamera for -1, else the model's camera (mjCAMERA_FIXED);
  // dm_control's scene budget and visual options (no rangefinder rays); the env's own model (its
  // edited colours, sizes, lights) over the shared one's meshes and textures. Reads the state only.
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
    mjvCamera camera;
    mjv_defaultCamera(&camera);
    camera.fixedcamid = camera_id;
    if (camera_id == -1) {
      camera.type = mjCAMERA_FREE;
      mjv_defaultFreeCamera(model_.get(), &camera);
    } else {
      camera.type = mjCAMERA_FIXED;
    }
    mujoco::ThreadRenderer::Options options;
    options.max_geom = SceneMaxGeom(model_.get());
    options.rangefinders = false;  // dm_control's MjvOption()
    options.upload_hfields = owns_hfield_data_;
    options.device = render_device_;
    mujoco::ThreadRenderer::OfThisThread().Draw(shared_model_, model_.get(), data_, &camera,
                                                options, width, height, rgb);
  }

 protected:
  // control_timestep: the task's control timestep in seconds, or 0 for one physics step per
  // control step (the suite's environments without control_timestep).
  DmControlEnv(const Config& config, uint64_t seed, const std::string& xml_file,
               double control_timestep)
      : DmControlEnv(config, seed, LoadSuiteModel(config, xml_file), control_timestep) {}

  // The same for a model the task builds itself (LoadEditedSuiteModel).
  DmControlEnv(const Config& config, uint64_t seed, const std::shared_ptr<const mjModel>& base,
               double control_timestep)
      : Env(seed),
        random_(CheckedSeed(seed)),
        control_timestep_(control_timestep),
        render_device_(mujoco::ReadRenderDevice(config)) {
    ReplaceModel(base);
  }

  // Makes `base` this env's model, with fresh data: at construction, and for tasks whose model
  // depends on the seed (lqr) when they are re-seeded. Fields owned before are dropped.
  void ReplaceModel(const std::shared_ptr<const mjModel>& base) {
    auto model = std::make_unique<mjModel>(*base);  // shallow: the arrays stay base's
    mjData* data = mj_makeData(model.get());
    if (data == nullptr) throw std::runtime_error("MuJoCo could not allocate mjData");
    if (data_ != nullptr) mj_deleteData(data_);
    shared_model_ = base;
    model_ = std::move(model);
    data_ = data;
    owned_mjtnum_.clear();
    owned_float_.clear();
    owns_hfield_data_ = false;
    n_sub_steps_ =
        control_timestep_ > 0 ? ComputeNSteps(control_timestep_, model_->opt.timestep) : 1;
  }

  // Gives this env its own copy of one array of the model (`count` values), for a task that
  // edits it (reacher's target geom, finger's damping, ...); mutable_model() may then write
  // it. Every other array is shared with the other envs of the task and must not be written.
  template <typename T>
  void OwnModelField(T* mjModel::* field, int64_t count) {
    static_assert(std::is_same_v<T, mjtNum> || std::is_same_v<T, float>);
    auto& owned = [this]() -> std::vector<std::vector<T>>& {
      if constexpr (std::is_same_v<T, mjtNum>) {
        return owned_mjtnum_;
      } else {
        return owned_float_;
      }
    }();
    if constexpr (std::is_same_v<T, float>) {
      // A terrain of the env's own: the renderer uploads it (render.h).
      if (field == &mjModel::hfield_data) owns_hfield_data_ = true;
    }
    const T* shared = model_.get()->*field;
    owned.emplace_back(shared, shared + count);
    model_.get()->*field = owned.back().data();
  }

  // The task: its initial state (drawing from random()), its reward, its observation (Write)
  // and whether the episode ended (Task.get_termination returned a discount, 0 in the suite;
  // most tasks never end on their own).
  virtual void InitializeEpisode() = 0;
  virtual double GetReward() = 0;
  virtual bool GetTermination() { return false; }

  NumpyRandomState& random() { return random_; }
  const mjModel* m() const { return model_.get(); }
  // The model with the fields made this env's own by OwnModelField writable.
  mjModel* mutable_model() { return model_.get(); }
  mjData* d() const { return data_; }

  // Physics.reset(): warnings are not checked (reset_context swallows PhysicsError).
  void PhysicsReset() {
    mj_resetData(model_.get(), data_);
    ForwardWithoutActuation();
  }

  // Physics.after_reset(): forward() with actuation disabled, checked for warnings.
  void AfterReset() {
    WarningsBefore();
    ForwardWithoutActuation();
    CheckWarnings();
  }

  // Physics.reset() called by a task itself (dog's), outside the reset context that swallows
  // PhysicsError: its forward pass is checked for warnings.
  void PhysicsResetChecked() {
    mj_resetData(model_.get(), data_);
    AfterReset();
  }

  // `with physics.reset_context(): set_state()` inside a task, where the task swallows
  // PhysicsError (quadruped's _find_non_contacting_height): Physics.reset(), set_state(),
  // after_reset().
  template <typename SetState>
  void ResetContext(const SetState& set_state) {
    PhysicsReset();
    set_state();
    try {
      AfterReset();
    } catch (const PhysicsError&) {
    }
  }

  // Physics.step(nstep) with legacy_step (control.Environment's default), checked for warnings.
  void PhysicsStep(int nstep) {
    WarningsBefore();
    if (model_->opt.integrator != mjINT_RK4) {
      mj_step2(model_.get(), data_);
      for (int i = 1; i < nstep; ++i) mj_step(model_.get(), data_);
    } else {
      for (int i = 0; i < nstep; ++i) mj_step(model_.get(), data_);
    }
    mj_step1(model_.get(), data_);
    CheckWarnings();
  }

  // randomizers.randomize_limited_and_rotational_joints(physics, random): every joint in
  // order; limited hinges and slides uniform in their range, unlimited hinges uniform in
  // [-pi, pi), unlimited balls a normalised randn(4), free joints' quaternions a normalised
  // rand(4); limited balls a random_limited_quaternion (no task of this family has one).
  void RandomizeLimitedAndRotationalJoints() {
    constexpr double kPi = 3.141592653589793;  // np.pi
    const mjModel* mm = m();
    for (int j = 0; j < mm->njnt; ++j) {
      const int type = mm->jnt_type[j];
      double* qpos = data_->qpos + mm->jnt_qposadr[j];
      const double range_min = mm->jnt_range[2 * j], range_max = mm->jnt_range[2 * j + 1];
      if (mm->jnt_limited[j]) {
        if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
          qpos[0] = random_.Uniform(range_min, range_max);
        } else if (type == mjJNT_BALL) {
          throw std::logic_error("limited ball joints are not supported");
        }
      } else if (type == mjJNT_HINGE) {
        qpos[0] = random_.Uniform(-kPi, kPi);
      } else if (type == mjJNT_BALL) {
        NormalisedQuaternion(qpos, /*gaussian=*/true);
      } else if (type == mjJNT_FREE) {
        NormalisedQuaternion(qpos + 3, /*gaussian=*/false);
      }
    }
  }

  // Physics.data.ncon.
  int ncon() const { return data_->ncon; }

  // Ids and addresses by name (physics.named): a body, geom or site id; a joint's first qpos
  // and first dof; the first value of a sensor in sensordata.
  int Id(mjtObj type, const char* name) const { return ObjectId(m(), type, name); }
  int Qpos(const char* joint) const { return m()->jnt_qposadr[Id(mjOBJ_JOINT, joint)]; }
  int Dof(const char* joint) const { return m()->jnt_dofadr[Id(mjOBJ_JOINT, joint)]; }
  int Sensor(const char* name) const { return m()->sensor_adr[Id(mjOBJ_SENSOR, name)]; }

  // _set_random_joint_angles (finger) and the like: randomize_limited_and_rotational_joints,
  // after_reset, until no contact; RuntimeError after max_attempts.
  void RandomizeJointsWithoutContact(int max_attempts = 1000) {
    for (int attempt = 0; attempt < max_attempts; ++attempt) {
      RandomizeLimitedAndRotationalJoints();
      AfterReset();
      if (ncon() == 0) return;
    }
    throw std::runtime_error("Could not find a collision-free state after " +
                             std::to_string(max_attempts) + " attempts");
  }

  // NumPy arithmetic the tasks use: np.sum's order, np.linalg.norm.
  static double Sum(const double* a, int n) { return numpy_math::NpSum(a, n); }
  static double Norm(const double* a, int n) { return numpy_math::NpNorm(a, n); }

  // v.dot(frame.reshape(3, 3)) for a 3-vector and a row-major 3x3 frame (an xmat): NumPy calls
  // BLAS's gemv, which sums each entry left to right. The first `n` entries are written.
  static void VectorTimesFrame(const double* v, const double* frame, double* out, int n = 3) {
    for (int j = 0; j < n; ++j) {
      double dot = 0.0;
      for (int i = 0; i < 3; ++i) dot += v[i] * frame[3 * i + j];
      out[j] = dot;
    }
  }

  // physics.named.data.xmat[body, 'zz'] and friends: element (row, col) of a body's frame.
  double Xmat(int body, int row, int col) const { return data_->xmat[9 * body + 3 * row + col]; }

  // Writers of observation entries.
  static double* Put(double* out, const double* values, int n) {
    for (int i = 0; i < n; ++i) out[i] = values[i];
    return out + n;
  }

 protected:
  // The seed of np.random.RandomState(seed), checked as NumPy checks it.
  static uint32_t CheckedSeed(uint64_t seed) {
    if (seed > NumpyRandomState::kMaxSeed) {
      throw std::invalid_argument(
          "dm_control tasks seed np.random.RandomState, which takes seeds 0 .. 2**32 - 1; got " +
          std::to_string(seed));
    }
    return static_cast<uint32_t>(seed);
  }

 private:
  // `with model.disable('actuation'): mj_forward`.
  void ForwardWithoutActuation() {
    const int old_flags = model_->opt.disableflags;
    model_->opt.disableflags = old_flags | mjDSBL_ACTUATION;
    try {
      mj_forward(model_.get(), data_);
    } catch (...) {
      model_->opt.disableflags = old_flags;
      throw;
    }
    model_->opt.disableflags = old_flags;
  }

  // Physics.check_invalid_state: the counts of MuJoCo's warnings before and after a call.
  void WarningsBefore() {
    for (int i = 0; i < mjNWARNING; ++i) warnings_before_[i] = data_->warning[i].number;
  }
  void CheckWarnings() const {
    std::string names;
    for (int i = 0; i < mjNWARNING; ++i) {
      if (data_->warning[i].number > warnings_before_[i]) {
        if (!names.empty()) names += ", ";
        names += kWarningNames[i];
      }
    }
    if (!names.empty()) {
      throw PhysicsError("Physics state is invalid. Warning(s) raised: " + names);
    }
  }
  // mujoco.mjtWarning's names, in enum order (mjtWarning in mjdata.h).
  static constexpr const char* kWarningNames[mjNWARNING] = {
      "mjWARN_INERTIA", "mjWARN_CONTACTFULL", "mjWARN_CNSTRFULL", "mjWARN_BADQPOS",
      "mjWARN_BADQVEL", "mjWARN_BADQACC",     "mjWARN_BADCTRL"};

  // quat = random.randn(4) (gaussian) or random.rand(4); quat /= np.linalg.norm(quat).
  void NormalisedQuaternion(double* q, bool gaussian) {
    double quat[4];
    for (double& v : quat) v = gaussian ? random_.StandardNormal() : random_.RandomSample();
    const double norm = Norm(quat, 4);
    for (int i = 0; i < 4; ++i) q[i] = quat[i] / norm;
  }

  NumpyRandomState random_;
  double control_timestep_;
  int render_device_;  // the EGL device frames are drawn on (pixels.h)
  // The shared compiled model, and this env's shallow copy of its struct (see the top comment).
  std::shared_ptr<const mjModel> shared_model_;
  std::unique_ptr<mjModel> model_;
  std::vector<std::vector<mjtNum>> owned_mjtnum_;  // the arrays OwnModelField copied
  std::vector<std::vector<float>> owned_float_;
  bool owns_hfield_data_ = false;
  mjData* data_ = nullptr;
  int n_sub_steps_ = 1;
  int warnings_before_[mjNWARNING] = {};
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_DM_CONTROL_ENV_H_
