// Ant-v4 / Ant-v5: Gymnasium 1.4.0's gymnasium/envs/mujoco/ant_v4.py and ant_v5.py.
//
// v5: the observation includes the clipped external contact forces of every body but the
// world (include_cfrc_ext_in_observation), the contact cost always counts, the healthy reward
// is paid only while healthy, velocities come from `main_body` (a body id; Gymnasium also
// takes a name) and x/y_position are qpos[0:2].
// v4: contact forces only with use_contact_forces (then all bodies, world included, and the
// contact cost replaces info["reward_ctrl"], as in Gymnasium); the healthy reward is paid
// whenever terminate_when_unhealthy is set; positions are the torso's xpos; frame_skip 5.
#ifndef ENVFLEET_FAMILIES_MUJOCO_ANT_H_
#define ENVFLEET_FAMILIES_MUJOCO_ANT_H_

#include <string>
#include <vector>

#include "families/mujoco/mujoco_env.h"

namespace envfleet {
namespace mujoco {

class AntEnv : public MujocoEnv {
 public:
  static Config Defaults(int) {
    return {{"assets_dir", std::string()},
            {"xml_file", std::string("ant.xml")},
            {"frame_skip", int64_t{5}},
            {"forward_reward_weight", 1.0},
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
            {"use_contact_forces", false}};
  }
  static std::vector<std::string> Fixed(int version) {
    if (version == 4) {
      return {"frame_skip", "forward_reward_weight", "main_body",
              "include_cfrc_ext_in_observation"};
    }
    return {"use_contact_forces"};
  }
  static std::vector<InfoKey> Info(int version) {
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
    const bool exclude = config.Get<bool>("exclude_current_positions_from_observation");
    int64_t size = model.nq + model.nv - (exclude ? 2 : 0);
    if (version == 4) {
      if (config.Get<bool>("use_contact_forces")) size += 6 * model.nbody;
    } else if (config.Get<bool>("include_cfrc_ext_in_observation")) {
      size += 6 * (model.nbody - 1);
    }
    EnvSpec spec;
    spec.obs = {ObsSpec(size)};
    spec.info = InfoSpecs(Info(version));
    spec.action = ActionSpec(model);
    return spec;
  }

  AntEnv(const Config& config, uint64_t seed, int version)
      : MujocoEnv(config, seed, static_cast<int>(config.Get<int64_t>("frame_skip"))),
        forward_reward_weight_(config.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        contact_cost_weight_(config.Get<double>("contact_cost_weight")),
        healthy_reward_(config.Get<double>("healthy_reward")),
        terminate_when_unhealthy_(config.Get<bool>("terminate_when_unhealthy")),
        healthy_z_range_(RangeOption(config, "healthy_z_range")),
        contact_force_range_(RangeOption(config, "contact_force_range")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        exclude_(config.Get<bool>("exclude_current_positions_from_observation")),
        v4_(version == 4) {
    if (v4_) {
      main_body_ = BodyId(model_, "torso");  // get_body_com("torso")
      contact_in_obs_ = config.Get<bool>("use_contact_forces");
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
    DeclareInfo(Info(version));
    x_position_ = InfoSlot("x_position");
    y_position_ = InfoSlot("y_position");
    distance_ = InfoSlot("distance_from_origin");
    x_velocity_ = InfoSlot("x_velocity");
    y_velocity_ = InfoSlot("y_velocity");
    reward_forward_ = InfoSlot("reward_forward");
    reward_ctrl_ = InfoSlot("reward_ctrl");
    reward_contact_ = InfoSlot("reward_contact");
    reward_survive_ = InfoSlot("reward_survive");
    forward_reward_ = InfoSlot("forward_reward");
  }

  void Reset() override {
    ResetData();
    UniformQpos(-reset_noise_scale_, reset_noise_scale_);
    NormalQvel(reset_noise_scale_);
    SetState();
    ClipContactForces();
    ClearInfo();
    if (!v4_) {
      Put(x_position_, data_->qpos[0]);
      Put(y_position_, data_->qpos[1]);
      Put(distance_, Norm(data_->qpos, 2));
    }
  }

  void Step(const void* action_ptr) override {
    const float* action = static_cast<const float*>(action_ptr);
    const double* body = data_->xpos + 3 * main_body_;
    const double xy_before[2] = {body[0], body[1]};
    DoSimulation(action);
    const double xy_after[2] = {body[0], body[1]};
    const double x_velocity = (xy_after[0] - xy_before[0]) / dt_;
    const double y_velocity = (xy_after[1] - xy_before[1]) / dt_;
    ClipContactForces();

    const bool healthy = IsHealthy();
    const float ctrl_cost = ActionCost(ctrl_cost_weight_, action);
    double forward_reward, healthy_reward, contact_cost = 0.0;
    if (v4_) {
      forward_reward = x_velocity;
      // float(is_healthy or terminate_when_unhealthy) * healthy_reward
      healthy_reward = static_cast<double>(healthy || terminate_when_unhealthy_) * healthy_reward_;
    } else {
      forward_reward = x_velocity * forward_reward_weight_;
      healthy_reward = static_cast<double>(healthy) * healthy_reward_;  // is_healthy * reward
    }
    const double rewards = forward_reward + healthy_reward;
    if (contact_in_reward_) {
      contact_cost = contact_cost_weight_ *
                     NumpySumOfSquares(forces_.data(), static_cast<int64_t>(forces_.size()));
      // costs = ctrl_cost + contact_cost, float32 promoted to float64
      reward_ = rewards - (static_cast<double>(ctrl_cost) + contact_cost);
    } else {
      reward_ = rewards - ctrl_cost;
    }
    terminated_ = !healthy && terminate_when_unhealthy_;

    if (v4_) {
      Put(reward_forward_, forward_reward);
      Put(reward_ctrl_, contact_in_reward_ ? -contact_cost : -ctrl_cost);
      Put(reward_survive_, healthy_reward);
      Put(x_position_, xy_after[0]);
      Put(y_position_, xy_after[1]);
      Put(distance_, Norm(xy_after, 2));
      Put(x_velocity_, x_velocity);
      Put(y_velocity_, y_velocity);
      Put(forward_reward_, forward_reward);
    } else {
      Put(x_position_, data_->qpos[0]);
      Put(y_position_, data_->qpos[1]);
      Put(distance_, Norm(data_->qpos, 2));
      Put(x_velocity_, x_velocity);
      Put(y_velocity_, y_velocity);
      Put(reward_forward_, forward_reward);
      Put(reward_ctrl_, -ctrl_cost);
      Put(reward_contact_, -contact_cost);
      Put(reward_survive_, healthy_reward);
    }
  }

  void Write(const OutputSlot& out) const override {
    double* obs = out.Get<double>(0);
    for (int i = exclude_ ? 2 : 0; i < nq_; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < nv_; ++i) *obs++ = data_->qvel[i];
    if (contact_in_obs_) {
      for (size_t i = 6 * contact_first_body_; i < forces_.size(); ++i) *obs++ = forces_[i];
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
    for (size_t i = 0; i < forces_.size(); ++i) forces_[i] = Clip(data_->cfrc_ext[i], low, high);
  }

  double forward_reward_weight_, ctrl_cost_weight_, contact_cost_weight_, healthy_reward_;
  bool terminate_when_unhealthy_;
  std::pair<double, double> healthy_z_range_, contact_force_range_;
  double reset_noise_scale_;
  bool exclude_, v4_;
  int main_body_ = 1;
  bool contact_in_obs_ = false, contact_in_reward_ = false;
  size_t contact_first_body_ = 1;
  std::vector<double> forces_;
  int x_position_, y_position_, distance_, x_velocity_, y_velocity_, reward_forward_, reward_ctrl_,
      reward_contact_, reward_survive_, forward_reward_;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_ANT_H_
