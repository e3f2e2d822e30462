// MountainCar-v0, a port of Gymnasium 1.4.0's
// gymnasium/envs/classic_control/mountain_car.py (MountainCarEnv). The state stays float64 as
// there (np.float64 scalars and Python floats); the observation is the state cast to float32.
// MountainCarTrack holds what MountainCarContinuous-v0 (continuous_mountain_car.h) shares.
#ifndef ENVFLEET_FAMILIES_CLASSIC_CONTROL_MOUNTAIN_CAR_H_
#define ENVFLEET_FAMILIES_CLASSIC_CONTROL_MOUNTAIN_CAR_H_

#include <cmath>
#include <cstdint>

#include "core/env.h"
#include "core/spec.h"

namespace envfleet::classic_control {

// What MountainCar and MountainCarContinuous share: the track's bounds, the goal_velocity
// option, the reset and the observation (the state cast to float32).
class MountainCarTrack : public Env {
 public:
  static Config DefaultConfig() { return {{"goal_velocity", 0.0}}; }

  void Reset() override {
    // np.array([np_random.uniform(low=-0.6, high=-0.4), 0])
    position_ = rng().Uniform(-0.6, -0.4);
    velocity_ = 0.0;
  }

  void Write(const OutputSlot& out) const override {
    float* obs = out.Get<float>(0);
    obs[0] = static_cast<float>(position_);
    obs[1] = static_cast<float>(velocity_);
  }

 protected:
  MountainCarTrack(const Config& config, uint64_t seed)
      : Env(seed), goal_velocity_(config.Get<double>("goal_velocity")) {}

  // low/high = np.array([min_position, -max_speed] / [max_position, max_speed], np.float32)
  static ArraySpec ObsSpec() {
    const double pos_low = static_cast<float>(kMinPosition);
    const double pos_high = static_cast<float>(kMaxPosition);
    const double speed = static_cast<float>(kMaxSpeed);
    return Box("obs", DType::kFloat32, {2}, {pos_low, -speed}, {pos_high, speed});
  }

  static constexpr double kMinPosition = -1.2;
  static constexpr double kMaxPosition = 0.6;
  static constexpr double kMaxSpeed = 0.07;

  double goal_velocity_;
  double position_ = 0.0;
  double velocity_ = 0.0;
};

class MountainCarEnv : public MountainCarTrack {
 public:
  static EnvSpec Spec(const Config&) {
    EnvSpec spec;
    spec.obs = {ObsSpec()};
    spec.action = Discrete("action", 3);
    return spec;
  }

  MountainCarEnv(const Config& config, uint64_t seed) : MountainCarTrack(config, seed) {}

  void Step(const void* action) override {
    const int64_t a = *static_cast<const int64_t*>(action);
    double position = position_, velocity = velocity_;
    // velocity += (action - 1) * force + math.cos(3 * position) * (-gravity)
    velocity += static_cast<double>(a - 1) * kForce + std::cos(3 * position) * (-kGravity);
    // np.clip(velocity, -max_speed, max_speed)
    velocity = std::fmin(std::fmax(velocity, -kMaxSpeed), kMaxSpeed);
    position += velocity;
    position = std::fmin(std::fmax(position, kMinPosition), kMaxPosition);
    if (position == kMinPosition && velocity < 0) velocity = 0;

    terminated_ = position >= kGoalPosition && velocity >= goal_velocity_;
    reward_ = -1.0;
    position_ = position;
    velocity_ = velocity;
  }

 private:
  static constexpr double kGoalPosition = 0.5;
  static constexpr double kForce = 0.001;
  static constexpr double kGravity = 0.0025;
};

}  // namespace envfleet::classic_control

#endif  // ENVFLEET_FAMILIES_CLASSIC_CONTROL_MOUNTAIN_CAR_H_
