// Humanoid-v3/v4/v5 and HumanoidStandup-v4/v5: Gymnasium 1.4.0's
// gymnasium/envs/mujoco/humanoid_v*.py and humanoidstandup_v*.py.
//
// Both observe qpos (without x, y), qvel and the bodies' com inertia, com velocity, actuator
// forces and external contact forces. v5 leaves out the world body's rows and the free
// joint's actuator forces, and each block can be switched off (include_*_in_observation); v4
// keeps every row. Humanoid walks forward (progress of the mass centre, mj einsum order) with
// a healthy bonus, a control cost on data.ctrl (float64) and, in v5, a contact cost;
// HumanoidStandup rewards the torso height over the timestep. v5 reports positions, tendon
// lengths and velocities and the reward terms, v4 its own reward names.
//
// Humanoid-v3 (EnvPool's id): gym 0.23.1's gym/envs/mujoco/humanoid_v3.py, which Gymnasium's
// v4 copied but for the contact cost: v3 subtracts it from the reward (as v5 does) and reports
// it as info["reward_impact"]; it takes xml_file, contact_cost_weight and contact_cost_range
// besides v4's options.
#ifndef ENVFLEET_FAMILIES_MUJOCO_HUMANOID_H_
#define ENVFLEET_FAMILIES_MUJOCO_HUMANOID_H_

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

template <bool kStandup>
class HumanoidEnvT : public LocomotionEnv {
 public:
  static Config Defaults(int) {
    const double inf = std::numeric_limits<double>::infinity();
    Config config = TaskDefaults(kStandup ? "humanoidstandup.xml" : "humanoid.xml", 5,
                                 {{"ctrl_cost_weight", 0.1},
                                  {"reset_noise_scale", 1e-2},
                                  {"exclude_current_positions_from_observation", true},
                                  {"include_cinert_in_observation", true},
                                  {"include_cvel_in_observation", true},
                                  {"include_qfrc_actuator_in_observation", true},
                                  {"include_cfrc_ext_in_observation", true}});
    if (kStandup) {
      config.Set("uph_cost_weight", 1.0);  // accepted and unused, as in Gymnasium's v5
      config.Set("impact_cost_weight", 0.5e-6);
      config.Set("impact_cost_range", std::vector<double>{-inf, 10.0});
    } else {
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
    if (version == 3) {
      return {"frame_skip", "include_cinert_in_observation", "include_cvel_in_observation",
              "include_qfrc_actuator_in_observation", "include_cfrc_ext_in_observation"};
    }
    if (version != 4) return {};
    if (kStandup) return AllOptions(Defaults(version));  // HumanoidStandup-v4 takes none
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
    if (version == 3) {
      return {{"reward_linvel"}, {"reward_quadctrl"}, {"reward_alive"},         {"reward_impact"},
              {"x_position"},    {"y_position"},      {"distance_from_origin"}, {"x_velocity"},
              {"y_velocity"},    {"forward_reward"}};
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
    bool cinert, cvel, qfrc, cfrc;
    int first_body, first_dof;
  };
  static Layout ObsLayout(const Config& config, int version) {
    if (version <= 4) return {true, true, true, true, 0, 0};
    return {config.Get<bool>("include_cinert_in_observation"),
            config.Get<bool>("include_cvel_in_observation"),
            config.Get<bool>("include_qfrc_actuator_in_observation"),
            config.Get<bool>("include_cfrc_ext_in_observation"),
            1,
            6};
  }

  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    const Layout l = ObsLayout(config, version);
    RequireModel(model, "Humanoid", 3, l.first_dof, l.first_body);  // qpos[2]: the height
    const int64_t bodies = model.nbody - l.first_body;
    int64_t size = model.nq + model.nv - ExcludedQpos(config, 2);
    size += (l.cinert ? 10 * bodies : 0) + (l.cvel ? 6 * bodies : 0);
    size += (l.qfrc ? model.nv - l.first_dof : 0) + (l.cfrc ? 6 * bodies : 0);
    return TaskSpec(model, size, Info(version, model.ntendon));
  }

  HumanoidEnvT(const Config& config, uint64_t seed, int version)
      // The model is cached: the one loaded here for its tendon count stays alive until the
      // base has loaded it too.
      : LocomotionEnv(config, seed, version, Info(version, LoadModel(config)->ntendon), 2),
        layout_(ObsLayout(config, version)),
        // HumanoidStandup's impact cost is Humanoid's contact cost under other names.
        contact_cost_weight_(
            config.Get<double>(kStandup ? "impact_cost_weight" : "contact_cost_weight")),
        contact_cost_range_(
            RangeOption(config, kStandup ? "impact_cost_range" : "contact_cost_range")),
        nbody_(static_cast<int>(model_->nbody)),
        ntendon_(static_cast<int>(model_->ntendon)),
        // mass_center(): denom = model.body_mass.sum()
        total_mass_(NpSum(model_->body_mass, nbody_)),
        contact_cost_counts_(!v4_ || version == 3) {
    if (v4_) {
      slot_.reward_forward = InfoSlot("reward_linvel");
      slot_.reward_survive = InfoSlot("reward_alive");
    }
    if (v4_ || kStandup) slot_.reward_ctrl = InfoSlot("reward_quadctrl");
    if (kStandup || version == 3) slot_.reward_contact = InfoSlot("reward_impact");
    tendon_length_ = InfoSlot("tendon_length");
    tendon_velocity_ = InfoSlot("tendon_velocity");
    reward_linup_ = InfoSlot("reward_linup");
    // humanoid_v4/v5.py and humanoidstandup_v4/v5.py DEFAULT_CAMERA_CONFIG.
    default_camera_.trackbodyid = 1;
    default_camera_.distance = 4.0;
    default_camera_.lookat = {0.0, 0.0, kStandup ? 0.8925 : 2.0};
    default_camera_.elevation = -20.0;
  }

  void Reset() override {
    ResetWithNoise(reset_noise_scale_, QvelNoise::kUniform);
    if (!v4_) {
      PutPosition(data_->qpos);
      Put(slot_.z_distance_from_origin, data_->qpos[2] - init_qpos_[2]);
      PutTendons();
    }
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    if (kStandup) {
      StepStandup(action);
    } else {
      StepWalk(action);
    }
    if (!v4_) PutTendons();
  }

  void Write(const OutputSlot& out) const override {
    double* obs = AppendState(out.Get<double>(0), first_qpos_);
    const int b = layout_.first_body;
    if (layout_.cinert) obs = Append(obs, data_->cinert + 10 * b, 10 * (nbody_ - b));
    if (layout_.cvel) obs = Append(obs, data_->cvel + 6 * b, 6 * (nbody_ - b));
    if (layout_.qfrc) {
      obs = Append(obs, data_->qfrc_actuator + layout_.first_dof, nv_ - layout_.first_dof);
    }
    if (layout_.cfrc) obs = Append(obs, data_->cfrc_ext + 6 * b, 6 * (nbody_ - b));
    WriteInfo(out);
  }

 private:
  void PutTendons() {
    PutArray(tendon_length_, data_->ten_length, ntendon_);
    PutArray(tendon_velocity_, data_->ten_velocity, ntendon_);
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
    const double cost = contact_cost_weight_ * NpSumOfSquares(data_->cfrc_ext, 6 * nbody_);
    return NpClip(cost, contact_cost_range_.first, contact_cost_range_.second);
  }

  // control_cost uses data.ctrl (float64), not the float32 action.
  double CtrlCost() const { return ctrl_cost_weight_ * NpSumOfSquares(data_->ctrl, nu_); }

  void StepWalk(const float* action) {
    const Move move = SimulateTracking(action, [this](double* xy) { MassCenter(xy); });
    const double z = data_->qpos[2];
    const bool healthy = healthy_z_range_.first < z && z < healthy_z_range_.second;
    const double forward_reward = forward_reward_weight_ * move.velocity[0];
    const double healthy_reward = HealthyReward(healthy);
    const double rewards = forward_reward + healthy_reward;
    const double ctrl_cost = CtrlCost();
    double contact_cost = 0.0;
    if (contact_cost_counts_) {
      contact_cost = ContactCost();
      reward_ = rewards - (ctrl_cost + contact_cost);
    } else {
      reward_ = rewards - ctrl_cost;
    }
    terminated_ = Terminated(healthy);
    Put(slot_.reward_forward, forward_reward);
    Put(slot_.forward_reward, forward_reward);
    Put(slot_.reward_ctrl, -ctrl_cost);
    Put(slot_.reward_survive, healthy_reward);
    Put(slot_.reward_contact, -contact_cost);
    PutVelocity(move);
    PutPosition(v4_ ? move.position : data_->qpos);  // v4: the mass centre; v5: qpos[0:2]
  }

  void StepStandup(const float* action) {
    DoSimulation(action);
    const double pos_after = data_->qpos[2];
    const double uph_cost = (pos_after - 0) / model_->opt.timestep;
    const double quad_ctrl_cost = CtrlCost();
    const double quad_impact_cost = ContactCost();  // v4: min(cost, 10)
    reward_ = ((uph_cost - quad_ctrl_cost) - quad_impact_cost) + 1;
    terminated_ = false;
    PutPosition(data_->qpos);  // v5 only: v4 reports no position
    Put(slot_.z_distance_from_origin, pos_after - init_qpos_[2]);
    Put(reward_linup_, uph_cost);
    Put(slot_.reward_ctrl, -quad_ctrl_cost);
    Put(slot_.reward_contact, -quad_impact_cost);
  }

  Layout layout_;
  double contact_cost_weight_;
  std::pair<double, double> contact_cost_range_;
  int nbody_, ntendon_;
  double total_mass_;
  bool contact_cost_counts_;  // Humanoid v3 and v5
  int tendon_length_, tendon_velocity_, reward_linup_;
};

using HumanoidEnv = HumanoidEnvT<false>;
using HumanoidStandupEnv = HumanoidEnvT<true>;

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_HUMANOID_H_
