// Ant-v3 / Ant-v4 / Ant-v5: Gymnasium 1.4.0's gymnasium/envs/mujoco/ant_v4.py and ant_v5.py,
// and gym's ant_v3.py.
//
// v5: the observation includes the clipped external contact forces of every body but the
// world (include_cfrc_ext_in_observation), the contact cost always counts, the healthy reward
// is paid only while healthy, velocities come from `main_body` (a body id; Gymnasium also
// takes a name) and x/y_position are qpos[0:2].
// v4: contact forces only with use_contact_forces (then all bodies, world included, and the
// contact cost replaces info["reward_ctrl"], as in Gymnasium); the healthy reward is paid
// whenever terminate_when_unhealthy is set; positions are the torso's xpos; frame_skip 5.
// v3 (Ant-v3, EnvPool's id): gym 0.23.1's gym/envs/mujoco/ant_v3.py, which Gymnasium's v4
// copied but for the contact forces: v3 always observes them (every body) and always counts
// their cost, reports it as info["reward_contact"] and keeps info["reward_ctrl"] the control
// cost. It takes v4's options but use_contact_forces.
#ifndef ENVFLEET_FAMILIES_MUJOCO_ANT_H_
#define ENVFLEET_FAMILIES_MUJOCO_ANT_H_

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

class AntEnv : public LocomotionEnv {
 public:
  static Config Defaults(int) {
    return TaskDefaults("ant.xml", 5,
                        {{"forward_reward_weight", 1.0},
                         {"ctrl_cost_weight", 0.5},
                         {"contact_cost_weight", 5e-4},
                         {"healthy_reward", 1.0},
                         {"main_body", int64_t{1}},
                         {"terminate_when_unhealthy", true},
                         {"healthy_z_range", std::vector<double>{0.2, 1.0}},
                         {"contact_force_range", std::vector<double>{-1.0, 1.0}},
                         {"reset_noise_scale", 0.1},
                         {"exclude_current_positions_from_observation", true},
                         {"include_cfrc_ext_in_observation", true},
                         {"use_contact_forces", false}});
  }
  static std::vector<std::string> Fixed(int version) {
    if (version == 3) {
      return {"frame_skip", "forward_reward_weight", "main_body", "include_cfrc_ext_in_observation",
              "use_contact_forces"};
    }
    if (version == 4) {
      return {"frame_skip", "forward_reward_weight", "main_body",
              "include_cfrc_ext_in_observation"};
    }
    return {"use_contact_forces"};
  }
  static std::vector<InfoKey> Info(int version) {
    if (version == 3) {
      return {{"reward_forward"}, {"reward_ctrl"},   {"reward_contact"},       {"reward_survive"},
              {"x_position"},     {"y_position"},    {"distance_from_origin"}, {"x_velocity"},
              {"y_velocity"},     {"forward_reward"}};
    }
    if (version == 4) {
      return {{"reward_forward"}, {"reward_ctrl"}, {"reward_survive"},
              {"x_position"},     {"y_position"},  {"distance_from_origin"},
              {"x_velocity"},     {"y_velocity"},  {"forward_reward"}};
    }
    return {{"x_position"},  {"y_position"},     {"distance_from_origin"},
            {"x_velocity"},  {"y_velocity"},     {"reward_forward"},
            {"reward_ctrl"}, {"reward_contact"}, {"reward_survive"}};
  }
  static EnvSpec Spec(const Config& config, int version) {
    const ModelInfo model = ProbeModel(config);
    RequireModel(model, "Ant", 3, 0, 1);  // qpos[2], the torso's height
    int64_t size = model.nq + model.nv - ExcludedQpos(config, 2);
    if (version == 3) {
      size += 6 * model.nbody;
    } else if (version == 4) {
      if (config.Get<bool>("use_contact_forces")) size += 6 * model.nbody;
    } else if (config.Get<bool>("include_cfrc_ext_in_observation")) {
      size += 6 * (model.nbody - 1);
    }
    return TaskSpec(model, size, Info(version));
  }

  AntEnv(const Config& config, uint64_t seed, int version)
      : LocomotionEnv(config, seed, version, Info(version), 2),
        contact_cost_weight_(config.Get<double>("contact_cost_weight")),
        contact_force_range_(RangeOption(config, "contact_force_range")),
        contact_replaces_ctrl_(version == 4) {
    if (v4_) {
      main_body_ = BodyId(model_, "torso");  // get_body_com("torso")
      contact_in_obs_ = version == 3 || config.Get<bool>("use_contact_forces");
      contact_in_reward_ = contact_in_obs_;
      contact_first_body_ = 0;  // contact_forces.flat: every body
    } else {
      main_body_ = static_cast<int>(config.Get<int64_t>("main_body"));
      if (main_body_ < 0 || main_body_ >= model_->nbody) {
        throw std::invalid_argument("main_body must be a body id in [0, " +
                                    std::to_string(model_->nbody) + ")");
      }
      contact_in_obs_ = config.Get<bool>("include_cfrc_ext_in_observation");
      contact_in_reward_ = true;
      contact_first_body_ = 1;  // contact_forces[1:]
    }
    forces_.resize(6 * static_cast<size_t>(model_->nbody));
    default_camera_.distance = 4.0;  // ant_v4/v5.py DEFAULT_CAMERA_CONFIG
  }

  void Reset() override {
    ResetWithNoise(reset_noise_scale_, QvelNoise::kNormal);
    ClipContactForces();
    if (!v4_) PutPosition(data_->qpos);
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    const Move move = SimulateTracking(action, data_->xpos + 3 * main_body_);
    ClipContactForces();

    const bool healthy = IsHealthy();
    const float ctrl_cost = ActionCost(ctrl_cost_weight_, action);
    // v4: forward_reward = x_velocity, unweighted.
    const double forward_reward =
        v4_ ? move.velocity[0] : move.velocity[0] * forward_reward_weight_;
    const double healthy_reward = HealthyReward(healthy);
    const double rewards = forward_reward + healthy_reward;
    double contact_cost = 0.0;
    if (contact_in_reward_) {
      contact_cost = contact_cost_weight_ *
                     NpSumOfSquares(forces_.data(), static_cast<int64_t>(forces_.size()));
      // costs = ctrl_cost + contact_cost, float32 promoted to float64
      reward_ = rewards - (static_cast<double>(ctrl_cost) + contact_cost);
    } else {
      reward_ = rewards - ctrl_cost;
    }
    terminated_ = Terminated(healthy);

    PutPosition(v4_ ? move.position : data_->qpos);  // v4: the torso's; v5: qpos[0:2]
    PutVelocity(move);
    Put(slot_.reward_forward, forward_reward);
    Put(slot_.forward_reward, forward_reward);
    Put(slot_.reward_survive, healthy_reward);
    // v4: the contact cost, if it counts, replaces the control cost.
    Put(slot_.reward_ctrl,
        contact_replaces_ctrl_ && contact_in_reward_ ? -contact_cost : -ctrl_cost);
    Put(slot_.reward_contact, -contact_cost);
  }

  void Write(const OutputSlot& out) const override {
    double* obs = AppendState(out.Get<double>(0), first_qpos_);
    if (contact_in_obs_) {
      const size_t first = 6 * contact_first_body_;
      Append(obs, forces_.data() + first, static_cast<int>(forces_.size() - first));
    }
    WriteInfo(out);
  }

 private:
  // is_healthy: np.isfinite(state_vector()).all() and min_z <= qpos[2] <= max_z.
  bool IsHealthy() const {
    const double z = data_->qpos[2];
    return StateFinite() && healthy_z_range_.first <= z && z <= healthy_z_range_.second;
  }

  // contact_forces = np.clip(cfrc_ext, min, max), for the observation and the contact cost.
  void ClipContactForces() {
    const double low = contact_force_range_.first, high = contact_force_range_.second;
    for (size_t i = 0; i < forces_.size(); ++i) forces_[i] = NpClip(data_->cfrc_ext[i], low, high);
  }

  double contact_cost_weight_;
  std::pair<double, double> contact_force_range_;
  bool contact_replaces_ctrl_;  // in info["reward_ctrl"]: v4's quirk
  int main_body_ = 1;
  bool contact_in_obs_ = false, contact_in_reward_ = false;
  size_t contact_first_body_ = 1;
  std::vector<double> forces_;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_ANT_H_
