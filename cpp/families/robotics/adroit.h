// What gymnasium-robotics 1.4.2's four Adroit hand tasks share
// (gymnasium_robotics/envs/adroit_hand/adroit_{door,hammer,pen,relocate}.py): the ShadowHand
// on an arm, position-controlled, run by Gymnasium's MujocoEnv (gymnasium 1.x,
// gymnasium/envs/mujoco/mujoco_env.py) rather than the family's goal-env base. Each task's
// header (adroit_door.h, ...) has its observation, reward and reset.
//
//   model: every constructor edits its model's actuators the same way (gainprm[:, :3] and
//          biasprm[:, :3] of the wrist and finger servos): done once to the shared model
//          (EditActuators). Resets edit the model too (a door, board, ball or target moved):
//          each env steps its own view of it, with its own body and site positions.
//   reset: mj_resetData; the task's draws from np_random, written into the env's model;
//          set_state(init_qpos, init_qvel) (MujocoEnv.set_state: mj_forward).
//   step:  np.clip(action, -1, 1) in float32, act_mean + action * act_rng in float64 (the
//          action widened exactly), frame_skip x mj_step, mj_rnePostConstraint.
//
// The reward is "dense" or "sparse" (the *Sparse ids): 10 on success and -0.1 otherwise. The
// reference's dense rewards are those of gymnasium-robotics >= 1.2.1 (it warns that they
// changed without a version bump): these are 1.4.2's. Its info holds "success" (a bool) after
// each step; its reset info is empty (success reads False there).
#ifndef ENVFLEET_FAMILIES_ROBOTICS_ADROIT_H_
#define ENVFLEET_FAMILIES_ROBOTICS_ADROIT_H_

#include <mujoco/mujoco.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/numpy/math.h"
#include "families/robotics/robot_env.h"

namespace envfleet {
namespace robotics {

class AdroitEnv : public RobotEnv {
 public:
  // The options of every task: the reference's reward_type, and EnvPool's frame_skip (fixed
  // at 5 in the reference, which checks that round(1 / dt) is its render_fps of 100).
  static Config Defaults(const char* xml_file) {
    Config config;
    AddCommonDefaults(config, xml_file);
    config.Set("reward_type", std::string("dense"));
    config.Set("frame_skip", int64_t{5});
    return config;
  }

  static ModelPtr Model(const Config& config) {
    return LoadModel(ModelPath(config), EditActuators);
  }

  void WriteInfo(const OutputSlot& out) const { *out.Get<bool>(first_info_key()) = success_; }

 protected:
  AdroitEnv(const Config& config, uint64_t seed)
      : RobotEnv(config, seed, Model(config), FrameSkip(config), /*num_obs_keys=*/1),
        sparse_(SparseReward(config)) {
    CheckActuators(model_);
    // The reference's model is its env's own: the edits of its resets stay in that env. Those
    // edits touch body_pos, body_quat and site_pos only, so the env's model is a view of the
    // shared one: the mjModel struct copied, its arrays (pointers into the shared model's
    // buffer, which MuJoCo's computations only read) the shared ones but for those three,
    // which point at the env's own copies. A deep copy (mj_copyModel) would cost each env
    // the hand's 6.8 MB of meshes. The view is never freed as a model (the shared one owns
    // the buffer); the shared model stays the renderer's context model (meshes, textures).
    const mjModel* shared = model_;
    own_model_ = *shared;
    body_pos_.assign(shared->body_pos, shared->body_pos + 3 * shared->nbody);
    body_quat_.assign(shared->body_quat, shared->body_quat + 4 * shared->nbody);
    site_pos_.assign(shared->site_pos, shared->site_pos + 3 * shared->nsite);
    own_model_.body_pos = body_pos_.data();
    own_model_.body_quat = body_quat_.data();
    own_model_.site_pos = site_pos_.data();
    model_ = &own_model_;
    // act_mean = np.mean(ctrlrange, axis=1), act_rng = 0.5 * (high - low).
    const int nu = model_->nu;
    act_mean_.resize(nu);
    act_rng_.resize(nu);
    for (int i = 0; i < nu; ++i) {
      const double low = model_->actuator_ctrlrange[2 * i];
      const double high = model_->actuator_ctrlrange[2 * i + 1];
      act_mean_[i] = (low + high) / 2.0;
      act_rng_[i] = 0.5 * (high - low);
    }
    SaveInitialState();  // MujocoEnv.init_qpos / init_qvel: the fresh mjData's
  }

  // The model the env steps, whose body_pos, body_quat and site_pos its resets edit.
  mjModel* own_model() { return &own_model_; }

  // The spec every task shares: a float64 observation of obs_size values, the info's
  // success, the action Box(-1, 1, (nu,), float32), frames at round(1 / dt) per second.
  static EnvSpec AdroitSpec(const Config& config, const mjModel* m, int64_t obs_size) {
    SparseReward(config);
    CheckActuators(m);
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kFloat64, {obs_size}, {}, {})};
    spec.obs_layout = ObsLayout::kSingle;
    spec.info = InfoSpecs({{"success", DType::kBool}});
    spec.action = Box("action", DType::kFloat32, {m->nu}, {-1.0}, {1.0});
    const double dt = m->opt.timestep * static_cast<double>(FrameSkip(config));
    spec.render = RobotRenderSpec(m, std::nearbyint(1.0 / dt));
    return spec;
  }

  // MujocoEnv.reset up to reset_model.
  void ResetData() { mj_resetData(model_, data_); }

  // set_state(init_qpos, init_qvel) (its `data.act[:] = None` runs only for a model without
  // activations, where it changes nothing).
  void SetInitialState() {
    for (int i = 0; i < model_->nq; ++i) data_->qpos[i] = initial_qpos_[i];
    for (int i = 0; i < model_->nv; ++i) data_->qvel[i] = initial_qvel_[i];
    mj_forward(model_, data_);
  }

  // step's a = np.clip(a, -1.0, 1.0) (float32; NaN stays NaN), a = act_mean + a * act_rng, and
  // do_simulation(a, frame_skip).
  void Simulate(const float* action) {
    for (int i = 0; i < model_->nu; ++i) {
      const double a = numpy_math::NpClip(static_cast<double>(action[i]), -1.0, 1.0);
      data_->ctrl[i] = act_mean_[i] + a * act_rng_[i];
    }
    StepSimulation();
    mj_rnePostConstraint(model_, data_);
  }

  // np.linalg.norm(v) of any length: sqrt(v.dot(v)), the dot being NumPy's 0.0 + cblas_ddot
  // (NpMatVec's one-row case; NpNorm's own loop covers vectors under 16 values only).
  static double LongNorm(const double* v, int n) {
    double dot = 0.0;
    numpy_math::NpMatVec(v, 1, n, v, &dot);
    return std::sqrt(dot);
  }

  // np.linalg.norm(a - b) of two positions.
  static double Distance(const double* a, const double* b) {
    const double diff[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return NpNorm(diff, 3);
  }

  const double* site_xpos(int site) const { return data_->site_xpos + 3 * site; }
  const double* body_xpos(int body) const { return data_->xpos + 3 * body; }

  // Throws unless the model has at least `nq` positions and `nv` velocities (the tasks slice
  // qpos[:-6] and the like).
  static void RequireState(const mjModel* m, const char* task, int nq, int nv) {
    if (m->nq < nq || m->nv < nv) {
      throw std::invalid_argument(std::string("xml_file: ") + task + " reads at least " +
                                  std::to_string(nq) + " positions and " + std::to_string(nv) +
                                  " velocities; the model has " + std::to_string(m->nq) + " and " +
                                  std::to_string(m->nv));
    }
  }

  bool sparse_;
  bool success_ = false;  // info["success"]

 private:
  static int FrameSkip(const Config& config) {
    const int64_t frame_skip = config.Get<int64_t>("frame_skip");
    if (frame_skip < 1 || frame_skip > 1000000) {
      throw std::invalid_argument("frame_skip must be in 1..1000000, got " +
                                  std::to_string(frame_skip));
    }
    return static_cast<int>(frame_skip);
  }

  // reward_type.lower() must be "dense" or "sparse".
  static bool SparseReward(const Config& config) {
    std::string type = config.Get<std::string>("reward_type");
    for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (type != "dense" && type != "sparse") {
      throw std::invalid_argument("reward_type must be 'dense' or 'sparse', got '" +
                                  config.Get<std::string>("reward_type") + "'");
    }
    return type == "sparse";
  }

  // The actuators whose servos the constructor retunes: ids first .. last of each range.
  static constexpr const char* kWrist[2] = {"A_WRJ1", "A_WRJ0"};
  static constexpr const char* kFingers[2] = {"A_FFJ3", "A_THJ0"};

  // The constructor's "change actuator sensitivity": gainprm[ids, :3] = (gain, 0, 0) and
  // biasprm[ids, :3] = (0, -gain, 0), gain 10 for the wrist and 1 for the fingers. A model
  // without those actuators is left as it is, and refused by CheckActuators: the edit must not
  // throw, since it runs inside LoadModel, before the model is owned.
  static void EditActuators(mjModel* m) {
    const auto retune = [m](const char* const* names, double gain) {
      const int first = mj_name2id(m, mjOBJ_ACTUATOR, names[0]);
      const int last = mj_name2id(m, mjOBJ_ACTUATOR, names[1]);
      if (first < 0 || last < first) return;
      for (int i = first; i <= last; ++i) {
        double* gainprm = m->actuator_gainprm + mjNGAIN * i;
        double* biasprm = m->actuator_biasprm + mjNBIAS * i;
        gainprm[0] = gain, gainprm[1] = 0.0, gainprm[2] = 0.0;
        biasprm[0] = 0.0, biasprm[1] = -gain, biasprm[2] = 0.0;
      }
    };
    retune(kWrist, 10.0);
    retune(kFingers, 1.0);
  }

  static void CheckActuators(const mjModel* m) {
    for (const char* const* names : {kWrist, kFingers}) {
      const int first = NameId(m, mjOBJ_ACTUATOR, "actuator", names[0]);
      const int last = NameId(m, mjOBJ_ACTUATOR, "actuator", names[1]);
      if (last < first) {
        throw std::invalid_argument(std::string("xml_file: actuator '") + names[1] +
                                    "' must come after '" + names[0] + "'");
      }
    }
  }

  mjModel own_model_;  // a view of the shared model (see the constructor)
  std::vector<double> body_pos_, body_quat_, site_pos_;
  std::vector<double> act_mean_, act_rng_;
};

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_ADROIT_H_
