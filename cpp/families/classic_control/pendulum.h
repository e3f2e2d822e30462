// Pendulum-v1, a port of Gymnasium 1.4.0's gymnasium/envs/classic_control/pendulum.py
// (PendulumEnv). The state is a float64 array as there; the action arrives as float32 and
// np.clip keeps it float32, so the terms that involve it are computed in float32 exactly as
// NumPy 2 does (`3.0 * u` and `0.001 * (u**2)` are float32 products) before joining the
// float64 sums. `x ** 2` on NumPy scalars calls libm pow/powf (see cpp/common/numpy/math.h).
#ifndef ENVFLEET_FAMILIES_CLASSIC_CONTROL_PENDULUM_H_
#define ENVFLEET_FAMILIES_CLASSIC_CONTROL_PENDULUM_H_

#include <cmath>
#include <cstdint>

#include "common/numpy/math.h"
#include "core/env.h"
#include "core/spec.h"

namespace envfleet::classic_control {

class PendulumEnv : public Env {
 public:
  static Config DefaultConfig() { return {{"g", 10.0}}; }

  static EnvSpec Spec(const Config&) {
    // high = np.array([1.0, 1.0, self.max_speed], dtype=np.float32)
    const double speed = static_cast<float>(kMaxSpeed);
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kFloat32, {3}, {-1.0, -1.0, -speed}, {1.0, 1.0, speed})};
    spec.action = Box("action", DType::kFloat32, {1}, {-kMaxTorque}, {kMaxTorque});
    return spec;
  }

  PendulumEnv(const Config& config, uint64_t seed) : Env(seed), g_(config.Get<double>("g")) {}

  void Reset() override {
    // high = np.array([DEFAULT_X, DEFAULT_Y]); np_random.uniform(low=-high, high=high)
    th_ = rng().Uniform(-M_PI, M_PI);
    thdot_ = rng().Uniform(-1.0, 1.0);
  }

  void Step(const void* action) override {
    using numpy_math::NpPow;
    using numpy_math::NpPowF;
    const double th = th_, thdot = thdot_;

    // u = np.clip(u, -self.max_torque, self.max_torque)[0]: float32 in, float32 out.
    const float max_torque = static_cast<float>(kMaxTorque);
    float u = *static_cast<const float*>(action);
    u = u < -max_torque ? -max_torque : u;
    u = u > max_torque ? max_torque : u;

    // costs = angle_normalize(th) ** 2 + 0.1 * thdot**2 + 0.001 * (u**2)
    const float u_cost = static_cast<float>(0.001) * NpPowF(u, 2.0f);
    const double costs =
        NpPow(AngleNormalize(th), 2.0) + 0.1 * NpPow(thdot, 2.0) + static_cast<double>(u_cost);

    // newthdot = thdot + (3 * g / (2 * l) * np.sin(th) + 3.0 / (m * l**2) * u) * dt
    const float u_term = static_cast<float>(3.0 / (kM * (kL * kL))) * u;
    double newthdot =
        thdot + (3 * g_ / (2 * kL) * std::sin(th) + static_cast<double>(u_term)) * kDt;
    // np.clip(newthdot, -self.max_speed, self.max_speed)
    newthdot = std::fmin(std::fmax(newthdot, -kMaxSpeed), kMaxSpeed);
    const double newth = th + newthdot * kDt;

    th_ = newth;
    thdot_ = newthdot;
    reward_ = -costs;
  }

  void Write(const OutputSlot& out) const override {
    // np.array([np.cos(theta), np.sin(theta), thetadot], dtype=np.float32)
    float* obs = out.Get<float>(0);
    obs[0] = static_cast<float>(std::cos(th_));
    obs[1] = static_cast<float>(std::sin(th_));
    obs[2] = static_cast<float>(thdot_);
  }

 private:
  // ((x + np.pi) % (2 * np.pi)) - np.pi
  static double AngleNormalize(double x) {
    return numpy_math::NpRemainder(x + M_PI, 2 * M_PI) - M_PI;
  }

  static constexpr double kMaxSpeed = 8;
  static constexpr double kMaxTorque = 2.0;
  static constexpr double kDt = 0.05;
  static constexpr double kM = 1.0;
  static constexpr double kL = 1.0;

  double g_;
  double th_ = 0.0;
  double thdot_ = 0.0;
};

}  // namespace envfleet::classic_control

#endif  // ENVFLEET_FAMILIES_CLASSIC_CONTROL_PENDULUM_H_
