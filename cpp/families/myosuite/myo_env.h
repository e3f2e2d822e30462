// The base of the MyoSuite family: myosuite 3.0.0's MyoGymnasiumEnv
// (myosuite/envs/gymnasium_env.py) with the muscle action map of its basic tasks
// (tasks/basic/muscle_mixin.py, terms/base_action.py) and the muscle conditions its myoSarc*,
// myoFati* and myoReaf* ids add as wrappers (envs/wrappers.py, envs/muscle_stages.py,
// core/muscle_conditions.py), run on the same libmujoco (4.0.0) as the reference.
//
// What the reference does that shapes this class:
// - Models are myo-sim's (read from the installed myo_sim package, the `assets_dir` option),
//   parsed into an mjSpec and compiled, as ModelBuilder.from_xml_file does; the elbow models
//   get the "wrist_target" site its resolver adds to the world body (`world_sites`), the motor
//   finger the gears its motor_finger recipe scales by 4 (`gear_scale`). The hand, which the
//   reference builds from an MjSpec recipe with myo-sim's builder, comes compiled: the family's
//   Python side runs the recipe and writes an .mjb file, loaded as it is.
// - Sarcopenia scales every actuator's peak force (gainprm[2]) by 0.5 once, on the model; a
//   muscle with an automatic force (gainprm[2] < 0) first gets its peak force gainprm[3] /
//   acc0. Models are loaded once per (file, sites, condition) and shared read-only; resets
//   edit site_pos (the targets), so each env steps a view of the shared model with its own
//   site_pos (see AdroitEnv for the view), except where a reset edits more (the elbow's
//   carried weight), which steps a copy of its own.
// - A step clips the float32 action to [-1, 1], maps it with normalize_act (muscles: the
//   sigmoid 1 / (1 + exp(-5 (a - 0.5))) in float32, through NumPy's float32 exp; other
//   actuators: the action itself; a model without muscles: mean(ctrlrange) + a * half-range
//   in float64), runs the condition's stage (fatigue on the muscles' excitations;
//   reafferentation: EIP's command drives EPL and EIP gets 0), then mj_step frame_skip times
//   and mj_forward.
// - The observation is the float64 vector of the task's obs keys, in order (the reference
//   returns it cast to float32: its values are these rounded); the dense reward is the
//   weighted sum of the task's reward terms in the order of weighted_reward_keys, as np.sum
//   adds a list; a step whose simulation warned of a bad qpos, qvel or qacc since the reset,
//   or whose state is not finite, terminates (MjInstabilityTerminationWrapper).
#ifndef ENVFLEET_FAMILIES_MYOSUITE_MYO_ENV_H_
#define ENVFLEET_FAMILIES_MYOSUITE_MYO_ENV_H_

#include <mujoco/mujoco.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/numpy/math.h"
#include "common/numpy/ufunc_loops.h"
#include "families/myosuite/fatigue.h"
#include "families/robotics/robot_env.h"

namespace envfleet {
namespace myosuite {

using robotics::ModelPtr;

enum class Condition { kNone, kSarcopenia, kFatigue, kReafferentation };

inline Condition ReadCondition(const Config& config) {
  const std::string& name = config.Get<std::string>("muscle_condition");
  if (name.empty()) return Condition::kNone;
  if (name == "sarcopenia") return Condition::kSarcopenia;
  if (name == "fatigue") return Condition::kFatigue;
  if (name == "reafferentation") return Condition::kReafferentation;
  throw std::invalid_argument(
      "muscle_condition must be '', 'sarcopenia', 'fatigue' or 'reafferentation', got '" + name +
      "'");
}

// ---- Models -------------------------------------------------------------------------------

// `world_sites`: {name: [x, y, z, size]}, sites added to the world body, in name order.
inline void CheckWorldSites(const ConfigTable& sites) {
  for (const auto& [name, values] : sites) {
    if (name.empty() || values.size() != 4) {
      throw std::invalid_argument("world_sites must map site names to [x, y, z, size], got '" +
                                  name + "' with " + std::to_string(values.size()) + " values");
    }
  }
}

// apply_sarcopenia_to_model(model, 0.5).
inline void ApplySarcopenia(mjModel* m) {
  for (int i = 0; i < m->nu; ++i) {
    double* gain = m->actuator_gainprm + i * mjNGAIN;
    double force = gain[2];
    if (force < 0 && m->actuator_gaintype[i] == mjGAIN_MUSCLE) {
      force = gain[3] / std::max(m->actuator_acc0[i], mjMINVAL);
    }
    gain[2] = force * 0.5;
  }
}

// A model file (MJCF) parsed into an mjSpec, edited (world sites, gear scale) and compiled.
inline mjModel* CompileModel(const std::string& path, const ConfigTable& sites, double gear_scale) {
  char error[1024] = "";
  mjSpec* spec = mj_parseXML(path.c_str(), nullptr, error, sizeof(error));
  if (spec == nullptr) {
    throw std::invalid_argument("MuJoCo could not load the model '" + path + "': " + error);
  }
  mjsBody* world = mjs_findBody(spec, "world");
  for (const auto& [name, values] : sites) {
    mjsSite* site = mjs_addSite(world, nullptr);
    mjs_setName(site->element, name.c_str());
    for (int k = 0; k < 3; ++k) site->pos[k] = values[k];
    site->size[0] = values[3];
  }
  if (gear_scale != 1.0) {  // the motor_finger recipe's _scale_motor_gears
    for (mjsElement* e = mjs_firstElement(spec, mjOBJ_ACTUATOR); e != nullptr;
         e = mjs_nextElement(spec, e)) {
      mjsActuator* actuator = mjs_asActuator(e);
      for (int k = 0; k < 6; ++k) actuator->gear[k] *= gear_scale;
    }
  }
  mjModel* raw = mj_compile(spec, nullptr);
  if (raw == nullptr) {
    const std::string why = mjs_getError(spec);
    mj_deleteSpec(spec);
    throw std::invalid_argument("MuJoCo could not compile the model '" + path + "': " + why);
  }
  mj_deleteSpec(spec);
  return raw;
}

// A compiled model (.mjb), which the family's Python side writes for the models the reference
// builds from MjSpec recipes (the hand): loaded as it is, so the XML edits do not apply.
inline bool IsCompiledModel(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".mjb") == 0;
}

inline mjModel* LoadCompiledModel(const std::string& path, const ConfigTable& sites,
                                  double gear_scale) {
  if (!sites.empty() || gear_scale != 1.0) {
    throw std::invalid_argument(
        "world_sites and gear_scale edit a model file before it is "
        "compiled; '" +
        path + "' is a compiled model (.mjb)");
  }
  mjModel* raw = mj_loadModel(path.c_str(), nullptr);
  if (raw == nullptr) {
    throw std::invalid_argument("MuJoCo could not load the compiled model '" + path + "'");
  }
  return raw;
}

// The model of `config`: its file parsed, the world sites added, compiled; sarcopenia applied
// for that condition. Cached per (file, sites, sarcopenia) while an env holds it.
inline ModelPtr LoadMyoModel(const Config& config) {
  const std::string& dir = config.Get<std::string>("assets_dir");
  const std::string& xml_file = config.Get<std::string>("xml_file");
  if (!xml_file.empty() && xml_file[0] != '/' &&
      (dir.empty() || ::access(dir.c_str(), F_OK) != 0)) {
    throw std::invalid_argument("xml_file '" + xml_file +
                                "' is relative to myo-sim's models folder, but assets_dir '" + dir +
                                "' " + (dir.empty() ? "is empty" : "does not exist") +
                                " (is myo-sim installed? pip install envfleet[myosuite])");
  }
  const std::string path = robotics::ModelPath(config);
  const ConfigTable& sites = config.Get<ConfigTable>("world_sites");
  CheckWorldSites(sites);
  const bool sarcopenia = ReadCondition(config) == Condition::kSarcopenia;
  const double gear_scale = config.Get<double>("gear_scale");
  if (!(gear_scale > 0) || !std::isfinite(gear_scale)) {
    throw std::invalid_argument("gear_scale must be a finite number > 0, got " +
                                std::to_string(gear_scale));
  }
  std::string key = path + (sarcopenia ? "|sarcopenia" : "|");
  {
    uint64_t bits;
    std::memcpy(&bits, &gear_scale, sizeof bits);
    key += "|gear" + std::to_string(bits);
  }
  for (const auto& [name, values] : sites) {
    key += '|';
    key += name;
    for (double v : values) {  // exactly: the value's bits
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      key += ',';
      key += std::to_string(bits);
    }
  }
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const mjModel>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::weak_ptr<const mjModel>& slot = cache[key];
  if (ModelPtr model = slot.lock()) return model;
  mjModel* raw = IsCompiledModel(path) ? LoadCompiledModel(path, sites, gear_scale)
                                       : CompileModel(path, sites, gear_scale);
  if (sarcopenia) ApplySarcopenia(raw);
  ModelPtr model(raw, [](const mjModel* m) { mj_deleteModel(const_cast<mjModel*>(m)); });
  slot = model;
  return model;
}

// ---- Options ---------------------------------------------------------------------------------

// The options every task takes, with the reference's defaults (frame_skip 10, normalize_act).
inline void AddMyoDefaults(Config& config, const std::string& xml_file) {
  robotics::AddCommonDefaults(config, xml_file);
  config.Set("world_sites", ConfigTable{});
  config.Set("gear_scale", 1.0);
  config.Set("frame_skip", int64_t{10});
  config.Set("normalize_act", true);
  config.Set("muscle_condition", std::string());
  // The side suffix of the actuators' names ("_r" in the recipe-built hand), which the
  // reafferentation stage appends to EPL and EIP.
  config.Set("actuator_suffix", std::string());
  config.Set("weighted_reward_keys", std::vector<std::string>{});
  config.Set("reward_weights", std::vector<double>{});
}

inline int ReadFrameSkip(const Config& config) {
  const int64_t frame_skip = config.Get<int64_t>("frame_skip");
  if (frame_skip < 1 || frame_skip > 100000) {
    throw std::invalid_argument("frame_skip must be in 1..100000, got " +
                                std::to_string(frame_skip));
  }
  return static_cast<int>(frame_skip);
}

// The weighted term "done": the reward dict's done flag (1 or 0), which weighted_reward_keys
// may name like any term (TorsoEnvV0's defaults weigh it 0); it is not an info key.
constexpr int kDoneTerm = -1;

// A reward term's index in the task's list of terms, by name (kDoneTerm for "done").
inline int TermIndex(const std::vector<const char*>& terms, const std::string& name) {
  if (name == "done") return kDoneTerm;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (name == terms[i]) return static_cast<int>(i);
  }
  std::string known;
  for (const char* term : terms) known += std::string(known.empty() ? "" : ", ") + term;
  known += ", done";
  throw std::invalid_argument("weighted_reward_keys: no reward term '" + name +
                              "' (this task's terms: " + known + ")");
}

// ---- Pose targets (PoseEnvV0, TorsoEnvV0) -----------------------------------------------------

// reset_type: "init" (false) or "random" (true: every joint drawn in its range).
inline bool ReadRandomReset(const Config& config) {
  const std::string& type = config.Get<std::string>("reset_type");
  if (type != "init" && type != "random") {
    throw std::invalid_argument("reset_type must be 'init' or 'random', got '" + type + "'");
  }
  return type == "random";
}

// target_jnt_names, target_jnt_low and target_jnt_high (the reference's target_jnt_range, in
// its order): one length >= 1, every joint in the model, low <= high. Returns the joints' ids.
inline std::vector<int> ReadTargetJoints(const Config& config, const mjModel* m) {
  const auto& names = config.Get<std::vector<std::string>>("target_jnt_names");
  const auto& low = config.Get<std::vector<double>>("target_jnt_low");
  const auto& high = config.Get<std::vector<double>>("target_jnt_high");
  if (names.empty() || low.size() != names.size() || high.size() != names.size()) {
    throw std::invalid_argument(
        "target_jnt_names, target_jnt_low and target_jnt_high must be of one length >= 1, "
        "got " +
        std::to_string(names.size()) + ", " + std::to_string(low.size()) + " and " +
        std::to_string(high.size()));
  }
  std::vector<int> joints;
  for (size_t i = 0; i < names.size(); ++i) {
    joints.push_back(robotics::NameId(m, mjOBJ_JOINT, "joint", names[i]));
    if (!(low[i] <= high[i])) {
      throw std::invalid_argument("target_jnt_low must not exceed target_jnt_high (joint '" +
                                  names[i] + "')");
    }
  }
  return joints;
}

// ---- Reach targets (ReachEnvV0, LegReachEnvV0) ---------------------------------------------

// The reach tasks' reward terms, in their reward dict's order.
inline std::vector<const char*> ReachTerms() {
  return {"reach", "bonus", "act_reg", "penalty", "sparse"};
}

// Sites reached for, each with a "<site>_target" site.
struct ReachSites {
  std::vector<int> tips, targets;
};

// target_sites, target_low and target_high (the reference's target_reach_range: a box of 3
// values per site): >= 1 site, each with its target site in the model, low <= high.
inline ReachSites ReadReachSites(const Config& config, const mjModel* m) {
  const auto& sites = config.Get<std::vector<std::string>>("target_sites");
  const auto& low = config.Get<std::vector<double>>("target_low");
  const auto& high = config.Get<std::vector<double>>("target_high");
  if (sites.empty() || low.size() != 3 * sites.size() || high.size() != 3 * sites.size()) {
    throw std::invalid_argument(
        "target_sites must name >= 1 tip site, and target_low and target_high give 3 values "
        "per site; got " +
        std::to_string(sites.size()) + " sites, " + std::to_string(low.size()) + " and " +
        std::to_string(high.size()) + " values");
  }
  for (size_t i = 0; i < low.size(); ++i) {
    if (!(low[i] <= high[i])) throw std::invalid_argument("target_low must not exceed target_high");
  }
  ReachSites out;
  for (const std::string& site : sites) {
    out.tips.push_back(robotics::SiteId(m, site));
    out.targets.push_back(robotics::SiteId(m, site + "_target"));
  }
  return out;
}

// The pose tasks' reward terms, in their reward dict's order (MyoEnv::SetPoseTerms).
inline std::vector<const char*> PoseTerms() {
  return {"pose", "bonus", "penalty", "act_reg", "sparse"};
}

// ---- The base env ----------------------------------------------------------------------------

class MyoEnv : public robotics::RobotEnv {
 public:
  // The spec every task shares: a float64 observation of obs_size values (unbounded), the
  // action Box(-1, 1, (nu,), float32) (normalize_act; else the actuators' ctrlrange), the
  // info's reward terms (float64, `solved` a bool), frames of 640x480 at the reference's 50
  // per second.
  static EnvSpec MyoSpec(const Config& config, const mjModel* m, int64_t obs_size,
                         const std::vector<const char*>& terms) {
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kFloat64, {obs_size}, {}, {})};
    spec.obs_layout = ObsLayout::kSingle;
    std::vector<robotics::InfoKey> info;
    for (const char* term : terms) info.push_back({term});
    info.push_back({"solved", DType::kBool});
    spec.info = robotics::InfoSpecs(info);
    if (config.Get<bool>("normalize_act")) {
      spec.action = Box("action", DType::kFloat32, {m->nu}, {-1.0}, {1.0});
    } else {
      std::vector<double> low(m->nu), high(m->nu);
      for (int i = 0; i < m->nu; ++i) {
        low[i] = static_cast<float>(m->actuator_ctrlrange[2 * i]);
        high[i] = static_cast<float>(m->actuator_ctrlrange[2 * i + 1]);
      }
      spec.action = Box("action", DType::kFloat32, {m->nu}, low, high);
    }
    spec.render = robotics::RobotRenderSpec(m, 50);
    spec.render.width = 640;
    spec.render.height = 480;
    return spec;
  }

  // A step: the action simulated (Simulate), the task's reward terms of the new state
  // (Evaluate), the reward and termination.
  void Step(const void* action) override {
    Simulate(static_cast<const float*>(action));
    Evaluate();
    FinishStep();
  }

 protected:
  // `terms`: the task's reward terms (info keys and weighted_reward_keys' names), in the
  // order of its reward dict; `default_weights`: the task's DEFAULT_RWD_KEYS_AND_WEIGHTS.
  MyoEnv(const Config& config, uint64_t seed, ModelPtr model, std::vector<const char*> terms,
         const std::vector<std::pair<const char*, double>>& default_weights)
      : RobotEnv(config, seed, std::move(model), ReadFrameSkip(config), /*num_obs_keys=*/1),
        normalize_act_(config.Get<bool>("normalize_act")),
        condition_(ReadCondition(config)),
        terms_(std::move(terms)) {
    const mjModel* shared = model_;
    own_model_ = *shared;
    site_pos_.assign(shared->site_pos, shared->site_pos + 3 * shared->nsite);
    own_model_.site_pos = site_pos_.data();
    model_ = &own_model_;
    // Gymnasium's MujocoRenderer with no default camera config: the free camera.
    for (int i = 0; i < model_->nu; ++i) {
      if (model_->actuator_dyntype[i] == mjDYN_MUSCLE) muscles_.push_back(i);
    }
    ctrl_.resize(model_->nu);
    ctrl64_.resize(model_->nu);
    excitation_.resize(muscles_.size());
    excitation64_.resize(muscles_.size());
    ReadRewardWeights(config, default_weights);
    if (condition_ == Condition::kFatigue) fatigue_.emplace(model_, n_substeps_);
    if (condition_ == Condition::kReafferentation) {
      const std::string& side = config.Get<std::string>("actuator_suffix");
      epl_ = robotics::NameId(model_, mjOBJ_ACTUATOR, "actuator", "EPL" + side);
      eip_ = robotics::NameId(model_, mjOBJ_ACTUATOR, "actuator", "EIP" + side);
    }
  }

  // The constructor's init_qpos: the model's qpos after mj_forward, with every hinge or slide
  // joint that an actuator drives through a joint transmission at the middle of its range
  // (normalize_act only); init_qvel: the model's zeros.
  void ComputeInitialState() {
    mj_forward(model_, data_);
    initial_qpos_.assign(data_->qpos, data_->qpos + model_->nq);
    initial_qvel_.assign(data_->qvel, data_->qvel + model_->nv);
    if (!normalize_act_) return;
    std::vector<bool> actuated(model_->njnt, false);
    for (int i = 0; i < model_->nu; ++i) {
      if (model_->actuator_trntype[i] == mjTRN_JOINT)
        actuated[model_->actuator_trnid[2 * i]] = true;
    }
    for (int j = 0; j < model_->njnt; ++j) {
      const int type = model_->jnt_type[j];
      if (!actuated[j] || (type != mjJNT_SLIDE && type != mjJNT_HINGE)) continue;
      const double* range = model_->jnt_range + 2 * j;
      initial_qpos_[model_->jnt_qposadr[j]] = (range[0] + range[1]) / 2.0;
    }
  }

  // The start of every task's reset: the condition's reset stage (fatigue: its compartments
  // emptied), mj_resetData, init_qpos and init_qvel.
  void ResetState() {
    if (fatigue_) fatigue_->Reset();
    mj_resetData(model_, data_);
    for (int i = 0; i < model_->nq; ++i) data_->qpos[i] = initial_qpos_[i];
    for (int i = 0; i < model_->nv; ++i) data_->qvel[i] = initial_qvel_[i];
  }

  // get_reward_dict of the current state: the task's terms (SetTerms).
  virtual void Evaluate() = 0;

  // The step up to the observation: the action mapped and staged into ctrl, mj_step
  // frame_skip times, mj_forward.
  void Simulate(const float* action) {
    const int nu = model_->nu;
    for (int i = 0; i < nu; ++i) {
      // np.clip(action, -1, 1) in float32 (NaN stays NaN)
      const float a = action[i];
      ctrl_[i] = a < -1.0f ? -1.0f : (a > 1.0f ? 1.0f : a);
    }
    // ctrl is float64: the task's (UseFloat64Controls), or a model without muscles'.
    bool wide = float64_controls_;
    if (wide) {
      for (int i = 0; i < nu; ++i) ctrl64_[i] = ctrl_[i];
    }
    const size_t n = muscles_.size();
    if (model_->na > 0 && normalize_act_) {
      if (wide) {
        for (size_t k = 0; k < n; ++k) excitation64_[k] = -5.0 * (ctrl64_[muscles_[k]] - 0.5);
        numpy_math::NpExp(excitation64_.data(), excitation64_.data(), static_cast<int64_t>(n));
        for (size_t k = 0; k < n; ++k) ctrl64_[muscles_[k]] = 1.0 / (1.0 + excitation64_[k]);
      } else {
        for (size_t k = 0; k < n; ++k) excitation_[k] = -5.0f * (ctrl_[muscles_[k]] - 0.5f);
        numpy_math::NpExpF(excitation_.data(), excitation_.data(), static_cast<int64_t>(n));
        for (size_t k = 0; k < n; ++k) ctrl_[muscles_[k]] = 1.0f / (1.0f + excitation_[k]);
      }
    } else if (normalize_act_) {
      wide = true;
      for (int i = 0; i < nu; ++i) {
        const double low = model_->actuator_ctrlrange[2 * i];
        const double high = model_->actuator_ctrlrange[2 * i + 1];
        ctrl64_[i] = (low + high) / 2.0 + static_cast<double>(ctrl_[i]) * (high - low) / 2.0;
      }
    }
    if (fatigue_ && fatigue_->size() > 0) {
      if (wide) {
        for (size_t k = 0; k < n; ++k) excitation64_[k] = ctrl64_[muscles_[k]];
        fatigue_->Apply(excitation64_.data());
        for (size_t k = 0; k < n; ++k) ctrl64_[muscles_[k]] = excitation64_[k];
      } else {
        for (size_t k = 0; k < n; ++k) excitation_[k] = ctrl_[muscles_[k]];
        fatigue_->Apply(excitation_.data());
        for (size_t k = 0; k < n; ++k) ctrl_[muscles_[k]] = excitation_[k];
      }
    }
    if (condition_ == Condition::kReafferentation) {
      if (wide) {
        ctrl64_[epl_] = ctrl64_[eip_], ctrl64_[eip_] = 0.0;
      } else {
        ctrl_[epl_] = ctrl_[eip_], ctrl_[eip_] = 0.0f;
      }
    }
    for (int i = 0; i < nu; ++i) data_->ctrl[i] = wide ? ctrl64_[i] : ctrl_[i];
    StepSimulation();
    mj_forward(model_, data_);
  }

  // _check_mj_instability_termination.
  bool Unstable() const {
    for (int w : {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC}) {
      if (data_->warning[w].number > 0) return true;
    }
    for (int i = 0; i < model_->nq; ++i) {
      if (!std::isfinite(data_->qpos[i])) return true;
    }
    for (int i = 0; i < model_->nv; ++i) {
      if (!std::isfinite(data_->qvel[i])) return true;
    }
    return false;
  }

  // The reward dict's terms (in terms_' order) and flags, computed by the task.
  // (An initializer list, copied into the terms' array sized at construction: a step
  // allocates nothing.)
  void SetTerms(std::initializer_list<double> values, bool solved, bool done) {
    std::copy(values.begin(), values.end(), terms_values_.begin());
    solved_ = solved;
    done_ = done;
  }

  // `dense`: np.sum([wt * rwd[key] for key, wt in weighted_reward_keys]), a plain
  // left-to-right sum below 8 terms (NumPy's pairwise sum beyond).
  double Dense() const {
    return numpy_math::PairwiseSum<double>(
        [this](int64_t k) {
          const int term = weight_terms_[k];
          return weights_[k] * (term == kDoneTerm ? 1.0 * done_ : terms_values_[term]);
        },
        0, static_cast<int64_t>(weights_.size()));
  }

  // The end of a step: reward, termination (the task's done, or instability).
  void FinishStep() {
    reward_ = Dense();
    terminated_ = done_ || Unstable();
  }

  // The control step: timestep * frame_skip (obs_dict["qvel"] is qvel * dt).
  double dt() const { return dt_; }

  // np.linalg.norm(data.act) / na (0 for a model without activations), as the tasks'
  // act_reg computes it: sqrt(add.reduce(act * act)).
  double ActMagnitude() const {
    const int na = model_->na;
    if (na == 0) return 0.0;
    const double sq = numpy_math::PairwiseSum<double>(
        [this](int64_t i) { return data_->act[i] * data_->act[i]; }, 0, na);
    return std::sqrt(sq) / na;
  }

  // reset_type "random": every joint's qpos uniform in its range, joint after joint (a model
  // whose joints are each one qpos value, checked by the task).
  void DrawRandomPose() {
    for (int j = 0; j < model_->njnt; ++j) {
      const double* range = model_->jnt_range + 2 * j;
      data_->qpos[j] = rng().Uniform(range[0], range[1]);
    }
  }

  // The pose tasks' distance: np.linalg.norm(target - qpos[:n], axis=-1), a pairwise sum.
  double PoseDistance(const std::vector<double>& target) const {
    const double sq = numpy_math::PairwiseSum<double>(
        [this, &target](int64_t i) {
          const double err = target[i] - data_->qpos[i];
          return err * err;
        },
        0, static_cast<int64_t>(target.size()));
    return std::sqrt(sq);
  }

  // pose_err (target - qpos[:n]) written at `obs`; returns where the next key goes.
  double* WritePoseError(double* obs, const std::vector<double>& target) const {
    for (size_t i = 0; i < target.size(); ++i) *obs++ = target[i] - data_->qpos[i];
    return obs;
  }

  // The pose tasks' reward dict (pose_reward) for distance `dist`, threshold `thd` and the
  // distance `far` past which the episode ends: pose and sparse -dist, bonus [dist < thd] +
  // [dist < 1.5 thd], penalty -[dist > far], act_reg -|act| / na (terms in that order:
  // pose, bonus, penalty, act_reg, sparse); solved dist < thd; done dist > far.
  void SetPoseTerms(double dist, double thd, double far) {
    const double bonus = 1.0 * (dist < thd) + 1.0 * (dist < 1.5 * thd);
    const double penalty = -1.0 * (dist > far);
    const double act_reg = -1.0 * ActMagnitude();
    SetTerms({-1.0 * dist, bonus, penalty, act_reg, -1.0 * dist}, dist<thd, dist> far);
  }

  // The reach tasks' tip_pos (each tip's position) and reach_err (each target minus its tip),
  // written at `obs`; returns where the next key goes.
  double* WriteTipsAndErrors(double* obs, const ReachSites& sites) const {
    for (int tip : sites.tips) obs = Put(obs, data_->site_xpos + 3 * tip, 3);
    for (size_t s = 0; s < sites.tips.size(); ++s) {
      for (int a = 0; a < 3; ++a) {
        *obs++ =
            data_->site_xpos[3 * sites.targets[s] + a] - data_->site_xpos[3 * sites.tips[s] + a];
      }
    }
    return obs;
  }

  // Writes n values from `values` at `at`; returns at + n.
  static double* Put(double* at, const double* values, int n) {
    for (int i = 0; i < n; ++i) at[i] = values[i];
    return at + n;
  }

  // The observation's first keys, qpos and qvel * dt; returns where the task's keys go.
  double* WriteJointState(const OutputSlot& out) const {
    double* obs = Put(out.Get<double>(0), data_->qpos, model_->nq);
    for (int i = 0; i < model_->nv; ++i) *obs++ = data_->qvel[i] * dt_;
    return obs;
  }

  // The observation's last key, act (when the model has activations), and the info.
  void WriteActAndInfo(double* obs, const OutputSlot& out) const {
    Put(obs, data_->act, model_->na);
    WriteInfo(out);
  }

  void WriteInfo(const OutputSlot& out) const {
    const int first = first_info_key();
    for (size_t k = 0; k < terms_values_.size(); ++k) {
      *out.Get<double>(first + k) = terms_values_[k];
    }
    *out.Get<bool>(first + terms_values_.size()) = solved_;
  }

  // The env's model, whose site_pos (and body_pos or body_quat after OwnBodyPos or
  // OwnBodyQuat, or every field after OwnWholeModel) is its own.
  mjModel* own_model() { return whole_model_ ? whole_model_.get() : &own_model_; }

  // From here on the env's body_pos (or body_quat) is its own too: a task whose resets move a
  // body (the KeyTurn key) or turn one (the PenTwirl target). Called before OwnWholeModel, if
  // at all.
  void OwnBodyPos() {
    body_pos_.assign(model_->body_pos, model_->body_pos + 3 * model_->nbody);
    own_model_.body_pos = body_pos_.data();
  }
  void OwnBodyQuat() {
    body_quat_.assign(model_->body_quat, model_->body_quat + 4 * model_->nbody);
    own_model_.body_quat = body_quat_.data();
  }

  // From here on the env steps a deep copy of the model (mj_copyModel), for the tasks whose
  // resets edit more than site_pos (the elbow's carried weight: masses, sizes, inertias and
  // mj_setConst's constants).
  void OwnWholeModel() {
    whole_model_.reset(mj_copyModel(nullptr, model_));
    if (!whole_model_) throw std::runtime_error("MuJoCo could not copy the model");
    model_ = whole_model_.get();
  }

  // The task maps its actions in float64 (the clipped float32 action cast first, then the
  // sigmoid, the stages): LegReachEnvV0's _apply_action. Set by its constructor.
  void UseFloat64Controls() { float64_controls_ = true; }

  bool normalize_act_;
  Condition condition_;

 private:
  void ReadRewardWeights(const Config& config,
                         const std::vector<std::pair<const char*, double>>& defaults) {
    const auto& keys = config.Get<std::vector<std::string>>("weighted_reward_keys");
    const auto& weights = config.Get<std::vector<double>>("reward_weights");
    if (keys.size() != weights.size()) {
      throw std::invalid_argument(
          "weighted_reward_keys and reward_weights must have the same "
          "length, got " +
          std::to_string(keys.size()) + " and " + std::to_string(weights.size()));
    }
    if (keys.empty()) {
      for (const auto& [key, weight] : defaults) {
        weight_terms_.push_back(TermIndex(terms_, key));
        weights_.push_back(weight);
      }
    } else {
      for (size_t k = 0; k < keys.size(); ++k) {
        if (!std::isfinite(weights[k])) {
          throw std::invalid_argument("reward_weights must be finite, got " +
                                      std::to_string(weights[k]) + " for '" + keys[k] + "'");
        }
        weight_terms_.push_back(TermIndex(terms_, keys[k]));
        weights_.push_back(weights[k]);
      }
    }
    terms_values_.assign(terms_.size(), 0.0);
  }

  mjModel own_model_;
  std::vector<double> site_pos_, body_pos_, body_quat_;
  std::unique_ptr<mjModel, void (*)(mjModel*)> whole_model_{nullptr, mj_deleteModel};
  std::vector<int> muscles_;
  bool float64_controls_ = false;
  std::vector<float> ctrl_, excitation_;
  std::vector<double> ctrl64_, excitation64_;
  std::optional<CumulativeFatigue> fatigue_;
  int epl_ = -1, eip_ = -1;
  std::vector<const char*> terms_;
  std::vector<int> weight_terms_;
  std::vector<double> weights_;
  std::vector<double> terms_values_;
  bool solved_ = false, done_ = false;
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_MYO_ENV_H_
