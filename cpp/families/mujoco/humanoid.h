// Humanoid-v4/v5 and HumanoidStandup-v4/v5: Gymnasium 1.4.0's
// gymnasium/envs/mujoco/humanoid_v*.py and humanoidstandup_v*.py.
//
// Both observe qpos (without x, y), qvel and the bodies' com inertia, com velocity, actuator
// forces and external contact forces. v5 leaves out the world body's rows and the free
// joint's actuator forces, and each block can be switched off (include_*_in_observation); v4
// keeps every row. Humanoid walks forward (progress of the mass centre, mj einsum order) with
// a healthy bonus, a control cost on data.ctrl (float64) and, in v5, a contact cost;
// HumanoidStandup rewards the torso height over the timestep. v5 reports positions, tendon
// lengths and velocities and the reward terms, v4 its own reward names.
#ifndef ENVFLEET_FAMILIES_MUJOCO_HUMANOID_H_
#define ENVFLEET_FAMILIES_MUJOCO_HUMANOID_H_

#include <limits>
#include <string>
#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

template <bool kStandup>
class HumanoidEnvT : public MujocoEnv {
 public:
  static Config Defaults(int) {
    const double inf = std::numeric_limits<double>::infinity();
    Config config = {{"assets_dir", std::string()},
                     {"frame_skip", int64_t{5}},
                     {"ctrl_cost_weight", 0.1},
                     {"reset_noise_scale", 1e-2},
                     {"exclude_current_positions_from_observation", true},
                     {"include_cinert_in_observation", true},
                     {"include_cvel_in_observation", true},
                     {"include_qfrc_actuator_in_observation", true},
                     {"include_cfrc_ext_in_observation", true}};
    if (kStandup) {
      config.Set("xml_file", std::string("humanoidstandup.xml"));
      config.Set("uph_cost_weight", 1.0);  // accepted and unused, as in Gymnasium's v5
      config.Set("impact_cost_weight", 0.5e-6);
      config.Set("impact_cost_range", std::vector<double>{-inf, 10.0});
    } else {
      config.Set("xml_file", std::string("humanoid.xml"));
      config.Set("forward_reward_weight", 1.25);
      config.Set("contact_cost_weight", 5e-7);
      config.Set("contact_cost_range", std::vector<double>{-inf, 10.0});
      config.Set("healthy_reward", 5.0);
      config.Set("terminate_when_unhealthy", true);
      config.Set("healthy_z_range", std::vector<double>{1.0, 2.0});
    }
    return config;
  }
  static std::vector<std::string> Fixed(int version) {
    if (version != 4) return {};
    if (kStandup) {
      // HumanoidStandup-v4 takes no options.
      std::vector<std::string> all;
      const Config defaults = Defaults(4);
      for (const auto& [key, value] : defaults.values()) {
        if (key != "assets_dir") all.push_back(key);
      }
      return all;
    }
    return {"xml_file",
            "frame_skip",
            "contact_cost_weight",
            "contact_cost_range",
            "include_cinert_in_observation",
            "include_cvel_in_observation",
            "include_qfrc_actuator_in_observation",
            "include_cfrc_ext_in_observation"};
  }
  static std::vector<InfoKey> Info(int version, int ntendon) {
    if (kStandup) {
      if (version == 4) return {{"reward_linup"}, {"reward_quadctrl"}, {"reward_impact"}};
      return {{"x_position"},
              {"y_position"},
              {"z_distance_from_origin"},
              {"tendon_length", ntendon},
              {"tendon_velocity", ntendon},
              {"reward_linup"},
              {"reward_quadctrl"},
              {"reward_impact"}};
    }
    if (version == 4) {
      return {{"reward_linvel"}, {"reward_quadctrl"}, {"reward_alive"},
              {"x_position"},    {"y_position"},      {"distance_from_origin"},
              {"x_velocity"},    {"y_velocity"},      {"forward_reward"}};
    }
    return {{"x_position"},
            {"y_position"},
            {"tendon_length", ntendon},
            {"tendon_velocity", ntendon},
            {"distance_from_origin"},
            {"x_velocity"},
            {"y_velocity"},
            {"reward_survive"},
            {"reward_forward"},
            {"reward_ctrl"},
            {"reward_contact"}};
  }

  // Which blocks the observation has, and from which body row they start.
  struct Layout {
    bool exclude, cinert, cvel, qfrc, cfrc;
    int first_body, first_dof;
  };
  static Layout ObsLayout(const Config& config, int version) {
    const bool exclude = config.Get<bool>("exclude_current_positions_from_observation");
    if (version == 4) return {exclude, true, true, true, true, 0, 0};
    return {exclude,
            config.Get<bool>("include_cinert_in_observation"),
            config.Get<bool>("include_cvel_in_observation"),
            config.Get<bool>("include_qfrc_actuator_in_observation"),
            config.Get<bool>("include_cfrc_ext_in_observation"),
            1,
            6};
  }

  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    const Layout l = ObsLayout(config, version);
    const int64_t bodies = model.nbody - l.first_body;
    int64_t size = model.nq + model.nv - (l.exclude ? 2 : 0);
    size += (l.cinert ? 10 * bodies : 0) + (l.cvel ? 6 * bodies : 0);
    size += (l.qfrc ? model.nv - l.first_dof : 0) + (l.cfrc ? 6 * bodies : 0);
    EnvSpec spec;
    spec.obs = {ObsSpec(size)};
    spec.info = InfoSpecs(Info(version, model.ntendon));
    spec.action = ActionSpec(model);
    return spec;
  }

  HumanoidEnvT(const Config& config, uint64_t seed, int version)
      : MujocoEnv(config, seed, static_cast<int>(config.Get<int64_t>("frame_skip"))),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        layout_(ObsLayout(config, version)),
        v4_(version == 4) {
    if (kStandup) {
      contact_cost_weight_ = config.Get<double>("impact_cost_weight");
      contact_cost_range_ = RangeOption(config, "impact_cost_range");
    } else {
      forward_reward_weight_ = config.Get<double>("forward_reward_weight");
      contact_cost_weight_ = config.Get<double>("contact_cost_weight");
      contact_cost_range_ = RangeOption(config, "contact_cost_range");
      healthy_reward_ = config.Get<double>("healthy_reward");
      terminate_when_unhealthy_ = config.Get<bool>("terminate_when_unhealthy");
      healthy_z_range_ = RangeOption(config, "healthy_z_range");
    }
    nbody_ = static_cast<int>(model_->nbody);
    ntendon_ = static_cast<int>(model_->ntendon);
    // mass_center(): denom = model.body_mass.sum()
    total_mass_ = NumpySum(model_->body_mass, nbody_);
    DeclareInfo(Info(version, ntendon_));
    x_position_ = InfoSlot("x_position");
    y_position_ = InfoSlot("y_position");
    z_distance_ = InfoSlot("z_distance_from_origin");
    tendon_length_ = InfoSlot("tendon_length");
    tendon_velocity_ = InfoSlot("tendon_velocity");
    distance_ = InfoSlot("distance_from_origin");
    x_velocity_ = InfoSlot("x_velocity");
    y_velocity_ = InfoSlot("y_velocity");
    forward_reward_ = InfoSlot("forward_reward");
    reward_forward_ = InfoSlot(v4_ ? "reward_linvel" : "reward_forward");
    reward_ctrl_ = InfoSlot(v4_ || kStandup ? "reward_quadctrl" : "reward_ctrl");
    reward_survive_ = InfoSlot(v4_ ? "reward_alive" : "reward_survive");
    reward_contact_ = InfoSlot(kStandup ? "reward_impact" : "reward_contact");
    reward_linup_ = InfoSlot("reward_linup");
  }

  void Reset() override {
    ResetData();
    UniformQpos(-reset_noise_scale_, reset_noise_scale_);
    UniformQvel(-reset_noise_scale_, reset_noise_scale_);
    SetState();
    ClearInfo();
    if (!v4_) {
      Put(x_position_, data_->qpos[0]);
      Put(y_position_, data_->qpos[1]);
      Put(z_distance_, data_->qpos[2] - init_qpos_[2]);
      PutArray(tendon_length_, data_->ten_length, ntendon_);
      PutArray(tendon_velocity_, data_->ten_velocity, ntendon_);
      Put(distance_, Norm(data_->qpos, 2));
    }
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    if (kStandup) {
      StepStandup(action);
    } else {
      StepWalk(action);
    }
    if (!v4_) {
      Put(x_position_, data_->qpos[0]);
      Put(y_position_, data_->qpos[1]);
      PutArray(tendon_length_, data_->ten_length, ntendon_);
      PutArray(tendon_velocity_, data_->ten_velocity, ntendon_);
    }
  }

  void Write(const OutputSlot& out) const override {
    double* obs = out.Get<double>(0);
    for (int i = layout_.exclude ? 2 : 0; i < nq_; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < nv_; ++i) *obs++ = data_->qvel[i];
    const int b = layout_.first_body;
    if (layout_.cinert) obs = Copy(data_->cinert + 10 * b, 10 * (nbody_ - b), obs);
    if (layout_.cvel) obs = Copy(data_->cvel + 6 * b, 6 * (nbody_ - b), obs);
    if (layout_.qfrc) {
      obs = Copy(data_->qfrc_actuator + layout_.first_dof, nv_ - layout_.first_dof, obs);
    }
    if (layout_.cfrc) obs = Copy(data_->cfrc_ext + 6 * b, 6 * (nbody_ - b), obs);
    WriteInfo(out);
  }

 private:
  static double* Copy(const double* src, int n, double* dst) {
    for (int i = 0; i < n; ++i) dst[i] = src[i];
    return dst + n;
  }

  // mass_center(): np.einsum("b,bj->j", body_mass, xipos) / body_mass.sum(), x and y. The
  // einsum accumulates over bodies in order.
  void MassCenter(double* xy) const {
    double num[3] = {0.0, 0.0, 0.0};
    for (int b = 0; b < nbody_; ++b) {
      for (int j = 0; j < 3; ++j) num[j] += model_->body_mass[b] * data_->xipos[3 * b + j];
    }
    xy[0] = num[0] / total_mass_;
    xy[1] = num[1] / total_mass_;
  }

  // weight * np.sum(np.square(cfrc_ext)), clipped to the range.
  double ContactCost() const {
    const double cost = contact_cost_weight_ * NumpySumOfSquares(data_->cfrc_ext, 6 * nbody_);
    return Clip(cost, contact_cost_range_.first, contact_cost_range_.second);
  }

  void StepWalk(const float* action) {
    double xy_before[2], xy_after[2];
    MassCenter(xy_before);
    DoSimulation(action);
    MassCenter(xy_after);
    const double x_velocity = (xy_after[0] - xy_before[0]) / dt_;
    const double y_velocity = (xy_after[1] - xy_before[1]) / dt_;
    const double z = data_->qpos[2];
    const bool healthy = healthy_z_range_.first < z && z < healthy_z_range_.second;
    const double forward_reward = forward_reward_weight_ * x_velocity;
    const double healthy_reward =
        static_cast<double>(healthy || (v4_ && terminate_when_unhealthy_)) * healthy_reward_;
    const double rewards = forward_reward + healthy_reward;
    // control_cost uses data.ctrl (float64), not the float32 action.
    const double ctrl_cost = ctrl_cost_weight_ * NumpySumOfSquares(data_->ctrl, nu_);
    double contact_cost = 0.0;
    if (v4_) {
      reward_ = rewards - ctrl_cost;
    } else {
      contact_cost = ContactCost();
      reward_ = rewards - (ctrl_cost + contact_cost);
    }
    terminated_ = !healthy && terminate_when_unhealthy_;
    Put(reward_forward_, forward_reward);
    Put(forward_reward_, forward_reward);
    Put(reward_ctrl_, -ctrl_cost);
    Put(reward_survive_, healthy_reward);
    Put(reward_contact_, -contact_cost);
    Put(x_velocity_, x_velocity);
    Put(y_velocity_, y_velocity);
    if (v4_) {
      Put(x_position_, xy_after[0]);
      Put(y_position_, xy_after[1]);
      Put(distance_, Norm(xy_after, 2));
    } else {
      Put(distance_, Norm(data_->qpos, 2));
    }
  }

  void StepStandup(const float* action) {
    DoSimulation(action);
    const double pos_after = data_->qpos[2];
    const double uph_cost = (pos_after - 0) / model_->opt.timestep;
    const double quad_ctrl_cost = ctrl_cost_weight_ * NumpySumOfSquares(data_->ctrl, nu_);
    const double quad_impact_cost = ContactCost();  // v4: min(cost, 10)
    reward_ = ((uph_cost - quad_ctrl_cost) - quad_impact_cost) + 1;
    terminated_ = false;
    Put(z_distance_, pos_after - init_qpos_[2]);
    Put(reward_linup_, uph_cost);
    Put(reward_ctrl_, -quad_ctrl_cost);
    Put(reward_contact_, -quad_impact_cost);
  }

  double ctrl_cost_weight_, reset_noise_scale_;
  Layout layout_;
  bool v4_;
  double forward_reward_weight_ = 0, contact_cost_weight_ = 0, healthy_reward_ = 0;
  bool terminate_when_unhealthy_ = false;
  std::pair<double, double> contact_cost_range_, healthy_z_range_;
  int nbody_ = 0, ntendon_ = 0;
  double total_mass_ = 0;
  int x_position_, y_position_, z_distance_, tendon_length_, tendon_velocity_, distance_,
      x_velocity_, y_velocity_, forward_reward_, reward_forward_, reward_ctrl_, reward_survive_,
      reward_contact_, reward_linup_;
};

using HumanoidEnv = HumanoidEnvT<false>;
using HumanoidStandupEnv = HumanoidEnvT<true>;

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_HUMANOID_H_
