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
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/env.h"
#include "core/spec.h"

namespace envfleet {
namespace mujoco {

// ---- MuJoCo's error and warning handlers ----------------------------------------------------

[[noreturn]] inline void ThrowMujocoError(const char* message) {
  throw std::runtime_error(std::string("MuJoCo error: ") + message);
}

inline void IgnoreMujocoWarning(const char*) {}

// Idempotent. libmujoco 4.0.0 routes errors and warnings to its default log handler, which
// calls these legacy hooks when set (the Python bindings use thread-local handlers of their
// own only during their calls, so they do not interfere).
inline void InstallMujocoHandlers() {
  mju_user_error = ThrowMujocoError;
  mju_user_warning = IgnoreMujocoWarning;
}

// ---- Models -------------------------------------------------------------------------------

// Gymnasium's expand_model_path(): a name starting with '.' or '/' is used as is, one starting
// with '~' is expanded, anything else is a file in Gymnasium's assets folder, which the Python
// registration passes as the `assets_dir` option (the XML files are never copied here).
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
    path = dir + "/" + name;
  }
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

// ---- NumPy's arithmetic, where the references use it ----------------------------------------
// Each product and sum below is rounded on its own, as in NumPy: _core is compiled with
// -ffp-contract=off (CMakeLists.txt), so no multiply-add is fused.

// np.sum / ndarray.sum of a contiguous float32 or float64 array of n values, value(i) being
// the i-th: the add reduction starts from the identity 0 and adds pairwise_sum
// (numpy/_core/src/umath/loops_utils.h.src): below 8 values a plain loop, up to 128 eight
// accumulators combined as a tree, above that two halves split at a multiple of 8. float32
// accumulates in float32, as NumPy does.
template <typename T, typename F>
T PairwiseSum(const F& value, int64_t begin, int64_t n) {
  if (n < 8) {
    T res = 0;
    for (int64_t i = 0; i < n; ++i) res += value(begin + i);
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = value(begin + j);
    int64_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += value(begin + i + j);
    }
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += value(begin + i);
    return res;
  }
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSum<T>(value, begin, n2) + PairwiseSum<T>(value, begin + n2, n - n2);
}

// np.sum(a).
template <typename T>
T NumpySum(const T* a, int64_t n) {
  return T(0) + PairwiseSum<T>([a](int64_t i) { return a[i]; }, 0, n);
}

// np.sum(np.square(a)): each square rounded to T, then summed as above.
template <typename T>
T NumpySumOfSquares(const T* a, int64_t n) {
  return T(0) + PairwiseSum<T>([a](int64_t i) -> T { return a[i] * a[i]; }, 0, n);
}

// np.clip(x, low, high) on float64: NaN stays NaN.
inline double Clip(double x, double low, double high) {
  const double lower = x < low ? low : x;
  return high < lower ? high : lower;
}

// np.linalg.norm(v) / norm(v, ord=2) of a short float64 vector: sqrt(v.dot(v)), and BLAS's
// ddot (OpenBLAS) sums short vectors left to right with separate multiplies and adds.
inline double Norm(const double* v, int n) {
  double dot = 0.0;
  for (int i = 0; i < n; ++i) dot += v[i] * v[i];
  return std::sqrt(dot);
}

// ---- The base env ---------------------------------------------------------------------------

// What Spec() needs to know about a model: loaded through the shared cache.
struct ModelInfo {
  int nq, nv, nu, nbody, ntendon;
  std::vector<double> ctrl_low, ctrl_high;
  double timestep;
};

inline ModelInfo ProbeModel(const Config& config) {
  ModelPtr model = LoadModel(config);
  ModelInfo info{static_cast<int>(model->nq),
                 static_cast<int>(model->nv),
                 static_cast<int>(model->nu),
                 static_cast<int>(model->nbody),
                 static_cast<int>(model->ntendon),
                 {},
                 {},
                 model->opt.timestep};
  for (int i = 0; i < model->nu; ++i) {
    // Gymnasium: Box(low, high) from model.actuator_ctrlrange.astype(np.float32).
    info.ctrl_low.push_back(static_cast<float>(model->actuator_ctrlrange[2 * i]));
    info.ctrl_high.push_back(static_cast<float>(model->actuator_ctrlrange[2 * i + 1]));
  }
  return info;
}

// The action: float32, one value per actuator, bounded by the ctrlrange.
inline ArraySpec ActionSpec(const ModelInfo& info) {
  return Box("action", DType::kFloat32, {info.nu}, info.ctrl_low, info.ctrl_high);
}

inline ArraySpec ObsSpec(int64_t size) { return Box("obs", DType::kFloat64, {size}, {}, {}); }

// One float64 info entry: a scalar, or an array of `size` values (size >= 0).
struct InfoKey {
  std::string name;
  int size = -1;  // -1: a scalar
};

inline std::vector<ArraySpec> InfoSpecs(const std::vector<InfoKey>& keys) {
  std::vector<ArraySpec> specs;
  for (const InfoKey& key : keys) {
    std::vector<int64_t> shape;
    if (key.size >= 0) shape.push_back(key.size);
    specs.push_back(Box(key.name, DType::kFloat64, shape, {}, {}));
  }
  return specs;
}

class MujocoEnv : public Env {
 public:
  ~MujocoEnv() override {
    if (data_ != nullptr) mj_deleteData(data_);
  }

 protected:
  // `frame_skip` is the version's fixed value or the option.
  MujocoEnv(const Config& config, uint64_t seed, int frame_skip)
      : Env(seed),
        model_holder_(LoadModel(config)),
        model_(model_holder_.get()),
        frame_skip_(frame_skip) {
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
  }

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

  // weight * np.sum(np.square(action)) on the float32 action: NumPy computes it in float32
  // (NEP 50: a Python float meeting a float32 scalar takes its dtype), rounding the weight.
  float ActionCost(double weight, const float* action) const {
    return static_cast<float>(weight) * NumpySumOfSquares(action, nu_);
  }

  // The info entries this env reports (its Spec's info keys, in order). Step and Reset fill
  // them by slot; a key the version lacks has slot -1 and is skipped. Reset zeroes them first:
  // keys that Gymnasium's reset info lacks read 0.
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
  }
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
  int nq_ = 0, nv_ = 0, nu_ = 0;
  double dt_ = 0;
  std::vector<double> init_qpos_, init_qvel_;
  std::vector<double> qpos_, qvel_;  // the state reset_model() builds

 private:
  std::vector<std::string> info_names_;
  std::vector<int> info_offsets_, info_sizes_;
  std::vector<double> info_;
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
