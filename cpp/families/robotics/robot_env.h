// The shared base of the Gymnasium-Robotics family: gymnasium-robotics 1.4.2's
// gymnasium_robotics/envs/robot_env.py (BaseRobotEnv + MujocoRobotEnv, the base of Fetch and
// the Shadow Hand), the parts of gymnasium_robotics/utils/mujoco_utils.py the envs call, and
// what every env of the family shares: its model (read from the installed gymnasium-robotics,
// loaded once per file and shared read-only by every env), its goal-env observation
// (observation, achieved_goal, desired_goal) and its frames (Gymnasium's MujocoRenderer, as
// the MuJoCo family draws them). Envs of the family that are not goal envs (Adroit) use the
// model, option and render parts only.
//
// With the same libmujoco (4.0.0, the mujoco-core wheel) and the same sequence of calls as the
// reference, the physics is bit-identical; NumPy arithmetic the references do on the state
// (norms, jacobian products) goes through cpp/common/numpy/math.h.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_ROBOT_ENV_H_
#define ENVFLEET_FAMILIES_ROBOTICS_ROBOT_ENV_H_

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/files.h"
#include "common/mujoco/camera.h"
#include "common/mujoco/handlers.h"
#include "common/mujoco/pixels.h"
#include "common/mujoco/render.h"
#include "common/mujoco/state_stack.h"
#include "common/numpy/math.h"
#include "core/env.h"
#include "core/registry.h"
#include "core/spec.h"

namespace envfleet {
namespace robotics {

using mujoco::CameraConfig;
using numpy_math::NpNorm;

// ---- Models -------------------------------------------------------------------------------

// The model file: xml_file inside the installed gymnasium-robotics' envs/assets folder, which
// the Python registration passes as assets_dir (nothing is copied into envfleet), or an
// absolute path, as BaseRobotEnv resolves model_path.
inline std::string ModelPath(const Config& config) {
  const std::string& name = config.Get<std::string>("xml_file");
  if (name.empty()) throw std::invalid_argument("xml_file must not be empty");
  std::string path = name;
  if (name[0] != '/') {
    const std::string& dir = config.Get<std::string>("assets_dir");
    if (dir.empty()) {
      throw std::invalid_argument(
          "xml_file '" + name +
          "' is relative to gymnasium-robotics' assets folder, but assets_dir is empty (is "
          "gymnasium-robotics installed? pip install envfleet[robotics])");
    }
    files::CheckFolder("assets_dir", dir);
    path = dir + "/" + name;
  }
  files::CheckFile("xml_file", path);
  return path;
}

using ModelPtr = std::shared_ptr<const mjModel>;

// What a task does to its model once, before any env uses it (the reference does it to its
// env's own model in its constructor, identically for every env): Fetch's reset_mocap_welds.
// Models are cached per (file, edit), so envs with different edits never share one.
using ModelEdit = void (*)(mjModel*);

inline ModelPtr LoadModel(const std::string& path, ModelEdit edit = nullptr) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, ModelEdit>, std::weak_ptr<const mjModel>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::weak_ptr<const mjModel>& slot = cache[{path, edit}];
  if (ModelPtr model = slot.lock()) return model;
  char error[1024] = "";
  mjModel* raw = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  if (raw == nullptr) {
    throw std::invalid_argument("MuJoCo could not load the model '" + path + "': " + error);
  }
  if (edit != nullptr) edit(raw);
  ModelPtr model(raw, [](const mjModel* m) { mj_deleteModel(const_cast<mjModel*>(m)); });
  slot = model;
  return model;
}

// mj_name2id, or an error naming what the model lacks (a user's xml_file may lack it).
inline int NameId(const mjModel* m, mjtObj type, const char* what, const std::string& name) {
  const int id = mj_name2id(m, type, name.c_str());
  if (id < 0) {
    throw std::invalid_argument(std::string("xml_file: the model has no ") + what + " named '" +
                                name + "'");
  }
  return id;
}
inline int BodyId(const mjModel* m, const std::string& name) {
  return NameId(m, mjOBJ_BODY, "body", name);
}
inline int SiteId(const mjModel* m, const std::string& name) {
  return NameId(m, mjOBJ_SITE, "site", name);
}

// ---- mujoco_utils ----------------------------------------------------------------------------

// Where a joint's values are: qpos[qpos .. qpos + qpos_size), qvel[qvel .. qvel + qvel_size),
// as mujoco_utils' get/set_joint_qpos/qvel slice them (a free joint 7/6, a ball 4/3, hinges and
// slides 1/1). (get_joint_qvel slices 4 values of a ball joint's 3: no task reads one.)
struct Joint {
  int qpos, qvel, qpos_size, qvel_size;
};

inline Joint FindJoint(const mjModel* m, const std::string& name) {
  const int id = NameId(m, mjOBJ_JOINT, "joint", name);
  const int type = m->jnt_type[id];
  const int qpos_size = type == mjJNT_FREE ? 7 : type == mjJNT_BALL ? 4 : 1;
  const int qvel_size = type == mjJNT_FREE ? 6 : type == mjJNT_BALL ? 3 : 1;
  return {m->jnt_qposadr[id], m->jnt_dofadr[id], qpos_size, qvel_size};
}

// reset_mocap_welds' edit of the model: every weld's first seven eq_data values (anchor,
// relative position, first quaternion value) become 0, 0, 0, 0, 0, 0, 1. (The reference then
// calls mj_forward on its data; the env's setup does.)
inline void ResetMocapWelds(mjModel* m) {
  if (m->nmocap == 0) return;
  static const double kWeld[7] = {0, 0, 0, 0, 0, 0, 1};
  for (int i = 0; i < m->neq; ++i) {
    if (m->eq_type[i] != mjEQ_WELD) continue;
    for (int k = 0; k < 7; ++k) m->eq_data[i * mjNEQDATA + k] = kWeld[k];
  }
}

// reset_mocap2body_xpos: each weld's mocap body is put where the body welded to it is.
inline void ResetMocapToBodies(const mjModel* m, mjData* d) {
  for (int i = 0; i < m->neq; ++i) {
    if (m->eq_type[i] != mjEQ_WELD) continue;
    int mocap = m->body_mocapid[m->eq_obj1id[i]];
    int body = m->eq_obj2id[i];
    if (mocap == -1) {
      mocap = m->body_mocapid[m->eq_obj2id[i]];
      body = m->eq_obj1id[i];
    }
    if (mocap == -1) {
      throw std::invalid_argument("xml_file: a weld constraint joins no mocap body");
    }
    for (int k = 0; k < 3; ++k) d->mocap_pos[3 * mocap + k] = d->xpos[3 * body + k];
    for (int k = 0; k < 4; ++k) d->mocap_quat[4 * mocap + k] = d->xquat[4 * body + k];
  }
}

// get_site_xvelp / get_site_xvelr: the site's jacobian (mj_jacSite) times qvel, as NumPy's
// `jac @ data.qvel` computes it. `jac` is scratch of 3 * nv values.
inline void SiteVelocity(const mjModel* m, const mjData* d, int site, bool rotational, double* jac,
                         double* out) {
  if (rotational) {
    mj_jacSite(m, d, nullptr, jac, site);
  } else {
    mj_jacSite(m, d, jac, nullptr, site);
  }
  numpy_math::NpMatVec(jac, 3, m->nv, d->qvel, out);
}

// ---- Specs ------------------------------------------------------------------------------------

// The options every task of the family takes: where its model is, and envfleet's pixel
// options (render_width/height/camera_id: from_pixels' frames, as for the MuJoCo family).
inline void AddCommonDefaults(Config& config, const std::string& xml_file) {
  config.Set("assets_dir", std::string());
  config.Set("xml_file", xml_file);
  config.Set("render_fast", false);
  mujoco::AddPixelDefaults(config);
}

// Gymnasium's MujocoRenderer frames: 480x480 (robot_env.DEFAULT_SIZE) by default, any size on
// request, at the env's metadata["render_fps"], from the model's cameras or the free view.
inline RenderSpec RobotRenderSpec(const mjModel* m, double fps) {
  RenderSpec render;
  render.width = render.height = 480;
  render.resizable = true;
  render.fps = fps;
  render.num_cameras = m->ncam;
  return render;
}

// An info entry: a float64 or float32 scalar (shape ()) or a float64 vector.
struct InfoKey {
  std::string name;
  DType dtype = DType::kFloat64;
  int size = -1;  // -1: a scalar
};

inline std::vector<ArraySpec> InfoSpecs(const std::vector<InfoKey>& keys) {
  std::vector<ArraySpec> out;
  for (const InfoKey& key : keys) {
    std::vector<int64_t> shape;
    if (key.size >= 0) shape.push_back(key.size);
    out.push_back(Box(key.name, key.dtype, shape, {}, {}));
  }
  return out;
}

// A goal env's spec (GoalEnv): the observation dict {observation, achieved_goal,
// desired_goal} in the order the reference's _get_obs builds it, float64 and unbounded; the
// action Box(-1, 1, (n_actions,), float32).
inline EnvSpec GoalSpec(int64_t obs_size, int64_t goal_size, int64_t n_actions,
                        const std::vector<InfoKey>& info, RenderSpec render) {
  EnvSpec spec;
  spec.obs = {Box("observation", DType::kFloat64, {obs_size}, {}, {}),
              Box("achieved_goal", DType::kFloat64, {goal_size}, {}, {}),
              Box("desired_goal", DType::kFloat64, {goal_size}, {}, {})};
  spec.obs_layout = ObsLayout::kDict;
  spec.info = InfoSpecs(info);
  spec.action = Box("action", DType::kFloat32, {n_actions}, {-1.0}, {1.0});
  spec.render = render;
  return spec;
}

// ---- The base env -------------------------------------------------------------------------------

// A MuJoCo env of the family: its model and data, Gymnasium's rendering (free camera from the
// task's default_camera_config, or a model camera), and the observation keys' bookkeeping
// (under from_pixels the one observation is "pixels" and the info keys follow it).
class RobotEnv : public Env {
 public:
  ~RobotEnv() override {
    if (data_ != nullptr) mj_deleteData(data_);
  }

  int NumCameras() const { return model_->ncam; }

  // MujocoRenderer.render("rgb_array") after the env's _render_callback: camera -1 is the free
  // view made on the first render (InitialCamera), 0 .. ncam-1 the model's cameras.
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
    BeforeRender();
    if (!camera_ready_) {
      camera_ = mujoco::InitialCamera(model_, data_, default_camera_);
      camera_ready_ = true;
    }
    camera_.type = camera_id == -1 ? mjCAMERA_FREE : mjCAMERA_FIXED;
    camera_.fixedcamid = camera_id;
    mujoco::ThreadRenderer::Options options;
    options.fast = render_fast_;
    options.device = render_device_;
    options.edit_scene = [this](mjvScene* scene) { EditScene(scene); };
    mujoco::ThreadRenderer::OfThisThread().Draw(model_holder_, model_, data_, &camera_, options,
                                                width, height, rgb);
  }

 protected:
  // `num_obs_keys`: the observation's keys, which the info keys follow in the output slot
  // (3 for a goal env's dict, 1 for Adroit's array; "pixels" alone under from_pixels).
  RobotEnv(const Config& config, uint64_t seed, ModelPtr model, int n_substeps,
           int num_obs_keys = 3)
      : Env(seed),
        model_holder_(std::move(model)),
        model_(model_holder_.get()),
        n_substeps_(n_substeps),
        render_fast_(config.Get<bool>("render_fast")),
        render_device_(mujoco::ReadRenderDevice(config)),
        first_info_key_(config.Get<bool>("from_pixels") ? 1 : num_obs_keys) {
    if (n_substeps_ < 1) throw std::invalid_argument("n_substeps/frame_skip must be >= 1");
    data_ = mj_makeData(model_);
    if (data_ == nullptr) throw std::runtime_error("MuJoCo could not allocate mjData");
    jac_.resize(3 * static_cast<size_t>(model_->nv));
    dt_ = model_->opt.timestep * n_substeps_;
  }

  // MujocoRobotEnv._initialize_simulation, after _env_setup: the state every reset restores.
  void SaveInitialState() {
    initial_time_ = data_->time;
    initial_qpos_.assign(data_->qpos, data_->qpos + model_->nq);
    initial_qvel_.assign(data_->qvel, data_->qvel + model_->nv);
  }

  // MujocoRobotEnv._reset_sim up to its mj_forward: mj_resetData, then the saved time, qpos
  // and qvel (act set to NaN, `data.act[:] = None`, in a model with activations).
  void RestoreInitialState() {
    mj_resetData(model_, data_);
    data_->time = initial_time_;
    for (int i = 0; i < model_->nq; ++i) data_->qpos[i] = initial_qpos_[i];
    for (int i = 0; i < model_->nv; ++i) data_->qvel[i] = initial_qvel_[i];
    for (int i = 0; i < model_->na; ++i) data_->act[i] = std::numeric_limits<double>::quiet_NaN();
  }

  // MujocoRobotEnv._mujoco_step: mj_step(model, data, nstep=n_substeps).
  void StepSimulation() {
    for (int i = 0; i < n_substeps_; ++i) mj_step(model_, data_);
  }

  // The site's linear (get_site_xvelp) or angular (get_site_xvelr) velocity into out[3].
  void SiteVelocity(int site, bool rotational, double* out) {
    robotics::SiteVelocity(model_, data_, site, rotational, jac_.data(), out);
  }

  // What the env's _render_callback does to the data before a frame (Shadow Hand: the target
  // object shown at the goal); the default does nothing.
  virtual void BeforeRender() {}
  // What the env's _render_callback does to the model (goal markers moved, hidden geoms shown):
  // done to the frame's scene instead, since the model is shared. The default does nothing.
  virtual void EditScene(mjvScene* scene) { (void)scene; }

  // Moves the scene's geom of site `site` to `pos` (a marker the reference places by editing
  // model.site_pos and calling mj_forward).
  static void MoveSiteGeom(mjvScene* scene, int site, const double* pos) {
    for (int g = 0; g < scene->ngeom; ++g) {
      mjvGeom& geom = scene->geoms[g];
      if (geom.objtype == mjOBJ_SITE && geom.objid == site) {
        for (int k = 0; k < 3; ++k) geom.pos[k] = static_cast<float>(pos[k]);
      }
    }
  }

  // The first info key's index in the output slot (after the observation keys).
  int first_info_key() const { return first_info_key_; }

  ModelPtr model_holder_;
  const mjModel* model_;
  mjData* data_ = nullptr;
  int n_substeps_;
  double dt_ = 0;
  bool render_fast_;
  int render_device_;
  CameraConfig default_camera_;  // the task's DEFAULT_CAMERA_CONFIG (set by its constructor)
  double initial_time_ = 0;
  std::vector<double> initial_qpos_, initial_qvel_;
  std::vector<double> jac_;  // scratch for SiteVelocity

 private:
  int first_info_key_;
  mjvCamera camera_{};
  bool camera_ready_ = false;
};

// ---- Registration ------------------------------------------------------------------------------

// An env type of the family, E's options `defaults`. from_pixels=True wraps the env in
// mujoco::PixelEnv (its observation the frames, frame_stack of them; its info the env's);
// otherwise frame_stack > 1 wraps it in mujoco::StateStackEnv (every observation array, the
// goals included, stacked along a new leading axis, as EnvPool stacks them).
template <typename E>
EnvType MakeRobotType(Config defaults) {
  const auto full = [defaults](const Config& given) {
    Config config = defaults;
    for (const auto& [key, value] : given.values()) config.Set(key, value);
    return config;
  };
  return MakeCheckedType(
      defaults,
      [full](const Config& given) {
        const Config config = full(given);
        EnvSpec spec = E::Spec(config);
        if (config.Get<bool>("from_pixels")) {
          // The frames are the one observation, an array as for the MuJoCo family (a goal
          // env's goals are then not observed: compute_reward needs them, so a pixel goal
          // env suits learners with their own goal handling).
          spec = mujoco::PixelSpec(std::move(spec), config);
          spec.obs_layout = ObsLayout::kSingle;
          return spec;
        }
        const int frame_stack = mujoco::ReadFrameStack(config);
        return frame_stack > 1 ? mujoco::StateStackSpec(std::move(spec), frame_stack) : spec;
      },
      [full](const Config& given, uint64_t seed) -> std::unique_ptr<Env> {
        const Config config = full(given);
        if (config.Get<bool>("from_pixels")) {
          return std::make_unique<mujoco::PixelEnv<E>>(config, seed);
        }
        const int frame_stack = mujoco::ReadFrameStack(config);
        if (frame_stack > 1) {
          return std::make_unique<mujoco::StateStackEnv<E>>(E::Spec(config), frame_stack, config,
                                                            seed);
        }
        return std::make_unique<E>(config, seed);
      });
}

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_ROBOT_ENV_H_
