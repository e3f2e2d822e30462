// MountainCarContinuous-v0, a port of Gymnasium 1.4.0's
// gymnasium/envs/classic_control/continuous_mountain_car.py (Continuous_MountainCarEnv).
//
// The reference mixes three kinds of numbers and NumPy 2 (NEP 50) rounds each differently:
//  - reset() stores the state as a float64 array, so the first step after a reset works on
//    np.float64 scalars; every step stores np.array([position, velocity], dtype=np.float32),
//    so later steps work on np.float32 scalars;
//  - the action element is np.float32, while the clipped bounds and the assignments in the
//    clamps (velocity = self.max_speed, position = self.max_position, ...) are Python floats;
//  - np.float32 <op> Python float first rounds the Python float to float32 and then works in
//    float32, comparisons included; np.float64 <op> anything works in float64.
// PyScalar below carries that kind along so each operation rounds exactly as in the reference.
#ifndef ENVFLEET_FAMILIES_CLASSIC_CONTROL_CONTINUOUS_MOUNTAIN_CAR_H_
#define ENVFLEET_FAMILIES_CLASSIC_CONTROL_CONTINUOUS_MOUNTAIN_CAR_H_

#include <cmath>
#include <cstdint>

#include "common/numpy/math.h"
#include "core/spec.h"
#include "families/classic_control/mountain_car.h"

namespace envfleet::classic_control {

namespace continuous_mountain_car_internal {

// A Python-level number: an np.float32 scalar, an np.float64 scalar, or a Python float/int
// (the value is exact in a double in all three cases).
struct PyScalar {
  enum Kind : uint8_t { kF32, kF64, kPy };
  double value;
  Kind kind;

  static PyScalar F32(float v) { return {v, kF32}; }
  static PyScalar F64(double v) { return {v, kF64}; }
  static PyScalar Py(double v) { return {v, kPy}; }

  // NEP 50 promotion of a binary operation: float64 wins, then float32 (a Python float is
  // rounded to float32 first), and two Python numbers stay Python floats.
  static Kind Promote(const PyScalar& a, const PyScalar& b) {
    if (a.kind == kF64 || b.kind == kF64) return kF64;
    if (a.kind == kF32 || b.kind == kF32) return kF32;
    return kPy;
  }
  template <typename Op>
  static PyScalar Apply(const PyScalar& a, const PyScalar& b, Op op) {
    const Kind kind = Promote(a, b);
    if (kind == kF32) {
      return {op(static_cast<float>(a.value), static_cast<float>(b.value)), kF32};
    }
    return {op(a.value, b.value), kind};
  }
  template <typename Cmp>
  static bool Compare(const PyScalar& a, const PyScalar& b, Cmp cmp) {
    if (Promote(a, b) == kF32) return cmp(static_cast<float>(a.value), static_cast<float>(b.value));
    return cmp(a.value, b.value);
  }

  friend PyScalar operator+(const PyScalar& a, const PyScalar& b) {
    return Apply(a, b, [](auto x, auto y) { return x + y; });
  }
  friend PyScalar operator-(const PyScalar& a, const PyScalar& b) {
    return Apply(a, b, [](auto x, auto y) { return x - y; });
  }
  friend PyScalar operator*(const PyScalar& a, const PyScalar& b) {
    return Apply(a, b, [](auto x, auto y) { return x * y; });
  }
  friend bool operator>(const PyScalar& a, const PyScalar& b) {
    return Compare(a, b, [](auto x, auto y) { return x > y; });
  }
  friend bool operator<(const PyScalar& a, const PyScalar& b) {
    return Compare(a, b, [](auto x, auto y) { return x < y; });
  }
  friend bool operator>=(const PyScalar& a, const PyScalar& b) {
    return Compare(a, b, [](auto x, auto y) { return x >= y; });
  }
  friend bool operator==(const PyScalar& a, const PyScalar& b) {
    return Compare(a, b, [](auto x, auto y) { return x == y; });
  }
};

}  // namespace continuous_mountain_car_internal

class MountainCarContinuousEnv : public MountainCarTrack {
 public:
  static EnvSpec Spec(const Config&) {
    EnvSpec spec;
    spec.obs = {ObsSpec()};
    spec.action = Box("action", DType::kFloat32, {1}, {kMinAction}, {kMaxAction});
    spec.render = ScreenSpec();
    return spec;
  }

  MountainCarContinuousEnv(const Config& config, uint64_t seed) : MountainCarTrack(config, seed) {}

  void Reset() override {
    MountainCarTrack::Reset();  // float64 until the first step
    state_is_float32_ = false;
  }

  void Step(const void* action) override {
    using continuous_mountain_car_internal::PyScalar;
    const float a = *static_cast<const float*>(action);
    const auto state = [this](double v) {
      return state_is_float32_ ? PyScalar::F32(static_cast<float>(v)) : PyScalar::F64(v);
    };
    PyScalar position = state(position_);
    PyScalar velocity = state(velocity_);
    const PyScalar min_position = PyScalar::Py(kMinPosition);
    const PyScalar max_position = PyScalar::Py(kMaxPosition);
    const PyScalar max_speed = PyScalar::Py(kMaxSpeed);
    const PyScalar neg_max_speed = PyScalar::Py(-kMaxSpeed);

    // force = min(max(action[0], self.min_action), self.max_action): Python's max/min keep
    // the np.float32 element unless a bound (a Python float) wins.
    PyScalar force = PyScalar::F32(a);
    if (PyScalar::Py(kMinAction) > force) force = PyScalar::Py(kMinAction);
    if (PyScalar::Py(kMaxAction) < force) force = PyScalar::Py(kMaxAction);

    // velocity += force * self.power - 0.0025 * math.cos(3 * position)
    const PyScalar angle = PyScalar::Py(3) * position;
    const PyScalar gravity_term = PyScalar::Py(0.0025 * std::cos(angle.value));
    velocity = velocity + (force * PyScalar::Py(kPower) - gravity_term);
    if (velocity > max_speed) velocity = max_speed;
    if (velocity < neg_max_speed) velocity = neg_max_speed;
    position = position + velocity;
    if (position > max_position) position = max_position;
    if (position < min_position) position = min_position;
    if (position == min_position && velocity < PyScalar::Py(0)) velocity = PyScalar::Py(0);

    terminated_ =
        position >= PyScalar::Py(kGoalPosition) && velocity >= PyScalar::Py(goal_velocity_);

    // reward = 0 (or 100.0); reward -= math.pow(action[0], 2) * 0.1, on the unclipped action.
    double reward = terminated_ ? 100.0 : 0.0;
    reward -= numpy_math::NpPow(static_cast<double>(a), 2.0) * 0.1;
    reward_ = reward;

    // self.state = np.array([position, velocity], dtype=np.float32)
    position_ = static_cast<float>(position.value);
    velocity_ = static_cast<float>(velocity.value);
    state_is_float32_ = true;
  }

  // Continuous_MountainCarEnv.render(): MountainCar's drawing with the goal at 0.45, on a
  // float32 position once a step has stored the state as float32.
  void Render(int, int width, int height, uint8_t* rgb) override {
    if (state_is_float32_) {
      DrawScene<float>(width, height, rgb, kGoalPosition);
    } else {
      DrawScene<double>(width, height, rgb, kGoalPosition);
    }
  }

 private:
  static constexpr double kMinAction = -1.0;
  static constexpr double kMaxAction = 1.0;
  static constexpr double kGoalPosition = 0.45;
  static constexpr double kPower = 0.0015;

  bool state_is_float32_ = false;
};

}  // namespace envfleet::classic_control

#endif  // ENVFLEET_FAMILIES_CLASSIC_CONTROL_CONTINUOUS_MOUNTAIN_CAR_H_
