// CartPole-v0 / CartPole-v1, a port of Gymnasium 1.4.0's
// gymnasium/envs/classic_control/cartpole.py (CartPoleEnv). The arithmetic is written in the
// reference's order, in double precision, so states match bit for bit; the observation is the
// float64 state cast to float32, as there.
#ifndef ENVFLEET_FAMILIES_CLASSIC_CONTROL_CARTPOLE_H_
#define ENVFLEET_FAMILIES_CLASSIC_CONTROL_CARTPOLE_H_

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/env.h"
#include "core/spec.h"

namespace envfleet::classic_control {

class CartPoleEnv : public Env {
 public:
  static Config DefaultConfig() { return {{"sutton_barto_reward", false}}; }

  static EnvSpec Spec(const Config&) {
    const double inf = std::numeric_limits<double>::infinity();
    const double x = static_cast<float>(kXThreshold * 2);
    const double theta = static_cast<float>(kThetaThreshold * 2);
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kFloat32, {4}, {-x, -inf, -theta, -inf}, {x, inf, theta, inf})};
    spec.action = Discrete("action", 2);
    return spec;
  }

  CartPoleEnv(const Config& config, uint64_t seed)
      : Env(seed), sutton_barto_reward_(config.Get<bool>("sutton_barto_reward")) {}

  void Reset() override {
    // np_random.uniform(low=-0.05, high=0.05, size=(4,))
    for (double& s : state_) s = rng().Uniform(-0.05, 0.05);
    steps_beyond_terminated_ = -1;
  }

  void Step(const void* action) override {
    const int64_t a = *static_cast<const int64_t*>(action);
    double x = state_[0], x_dot = state_[1], theta = state_[2], theta_dot = state_[3];
    const double force = a == 1 ? kForceMag : -kForceMag;
    const double costheta = std::cos(theta);
    const double sintheta = std::sin(theta);
    const double temp = (force + kPolemassLength * (theta_dot * theta_dot) * sintheta) / kTotalMass;
    const double thetaacc =
        (kGravity * sintheta - costheta * temp) /
        (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
    const double xacc = temp - kPolemassLength * thetaacc * costheta / kTotalMass;
    x = x + kTau * x_dot;
    x_dot = x_dot + kTau * xacc;
    theta = theta + kTau * theta_dot;
    theta_dot = theta_dot + kTau * thetaacc;
    state_[0] = x;
    state_[1] = x_dot;
    state_[2] = theta;
    state_[3] = theta_dot;

    terminated_ =
        x < -kXThreshold || x > kXThreshold || theta < -kThetaThreshold || theta > kThetaThreshold;
    if (!terminated_) {
      reward_ = sutton_barto_reward_ ? 0.0 : 1.0;
    } else if (steps_beyond_terminated_ < 0) {
      steps_beyond_terminated_ = 0;
      reward_ = sutton_barto_reward_ ? -1.0 : 1.0;
    } else {
      ++steps_beyond_terminated_;
      reward_ = sutton_barto_reward_ ? -1.0 : 0.0;
    }
  }

  void Write(const OutputSlot& out) const override {
    float* obs = out.Get<float>(0);
    for (int i = 0; i < 4; ++i) obs[i] = static_cast<float>(state_[i]);
  }

 private:
  static constexpr double kGravity = 9.8;
  static constexpr double kMassCart = 1.0;
  static constexpr double kMassPole = 0.1;
  static constexpr double kTotalMass = kMassPole + kMassCart;
  static constexpr double kLength = 0.5;
  static constexpr double kPolemassLength = kMassPole * kLength;
  static constexpr double kForceMag = 10.0;
  static constexpr double kTau = 0.02;
  static constexpr double kThetaThreshold = 12 * 2 * M_PI / 360;
  static constexpr double kXThreshold = 2.4;

  bool sutton_barto_reward_;
  double state_[4] = {0, 0, 0, 0};
  int64_t steps_beyond_terminated_ = -1;
};

}  // namespace envfleet::classic_control

#endif  // ENVFLEET_FAMILIES_CLASSIC_CONTROL_CARTPOLE_H_
