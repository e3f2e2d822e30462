// dm_control 1.0.50's reward shaping, dm_control/utils/rewards.py: tolerance() and its eight
// sigmoids, ported operation by operation so that rewards match the suite's bit for bit.
//
// NumPy's arithmetic decides two details. `y ** 2` on a NumPy float64 scalar is libm pow (see
// common/numpy/math.h: NpPow), while on an array NumPy squares (y * y): tolerance() of a
// scalar and of an array element differ there, so each call site says which it is (Input).
// The sigmoid's scale is computed from value_at_margin in float64 exactly as written.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_REWARDS_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_REWARDS_H_

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/numpy/math.h"

namespace envfleet {
namespace dm_control {

enum class Sigmoid {
  kGaussian,
  kHyperbolic,
  kLongTail,
  kReciprocal,
  kCosine,
  kLinear,
  kQuadratic,
  kTanhSquared
};

// rewards.py's names of the sigmoids.
inline Sigmoid SigmoidFromName(const std::string& name) {
  static const std::pair<const char*, Sigmoid> kNames[] = {
      {"gaussian", Sigmoid::kGaussian},   {"hyperbolic", Sigmoid::kHyperbolic},
      {"long_tail", Sigmoid::kLongTail},  {"reciprocal", Sigmoid::kReciprocal},
      {"cosine", Sigmoid::kCosine},       {"linear", Sigmoid::kLinear},
      {"quadratic", Sigmoid::kQuadratic}, {"tanh_squared", Sigmoid::kTanhSquared}};
  for (const auto& [n, s] : kNames) {
    if (name == n) return s;
  }
  throw std::invalid_argument("Unknown sigmoid type '" + name + "'.");
}

// Whether tolerance() was given a Python/NumPy scalar or an array (of which x is one element).
enum class Input { kScalar, kArray };

// rewards.py's _DEFAULT_VALUE_AT_MARGIN.
constexpr double kDefaultValueAtMargin = 0.1;

namespace rewards_internal {

// `y ** 2` as NumPy computes it for that input (see the top comment).
inline double Square(double y, Input input) {
  return input == Input::kScalar ? numpy_math::NpPow(y, 2.0) : y * y;
}

}  // namespace rewards_internal

// rewards._sigmoids(x, value_at_1, sigmoid) for x >= 0: 1 at 0, value_at_1 at 1. The suite's
// value_at_1 are constants inside the valid range (rewards.py raises outside (0, 1)).
inline double SigmoidValue(double x, double value_at_1, Sigmoid sigmoid, Input input) {
  using rewards_internal::Square;
  constexpr double kPi = 3.141592653589793;  // np.pi
  switch (sigmoid) {
    case Sigmoid::kGaussian: {
      const double scale = std::sqrt(-2 * std::log(value_at_1));
      return std::exp(-0.5 * Square(x * scale, input));
    }
    case Sigmoid::kHyperbolic: {
      const double scale = std::acosh(1 / value_at_1);
      return 1 / std::cosh(x * scale);
    }
    case Sigmoid::kLongTail: {
      const double scale = std::sqrt(1 / value_at_1 - 1);
      return 1 / (Square(x * scale, input) + 1);
    }
    case Sigmoid::kReciprocal: {
      const double scale = 1 / value_at_1 - 1;
      return 1 / (std::fabs(x) * scale + 1);
    }
    case Sigmoid::kCosine: {
      const double scale = std::acos(2 * value_at_1 - 1) / kPi;
      const double scaled_x = x * scale;
      return std::fabs(scaled_x) < 1 ? (1 + std::cos(kPi * scaled_x)) / 2 : 0.0;
    }
    case Sigmoid::kLinear: {
      const double scale = 1 - value_at_1;
      const double scaled_x = x * scale;
      return std::fabs(scaled_x) < 1 ? 1 - scaled_x : 0.0;
    }
    case Sigmoid::kQuadratic: {
      const double scale = std::sqrt(1 - value_at_1);
      const double scaled_x = x * scale;
      return std::fabs(scaled_x) < 1 ? 1 - Square(scaled_x, input) : 0.0;
    }
    case Sigmoid::kTanhSquared: {
      const double scale = std::atanh(std::sqrt(1 - value_at_1));
      return 1 - Square(std::tanh(x * scale), input);
    }
  }
  return 0.0;
}

// rewards.tolerance(x, bounds=(lower, upper), margin, sigmoid, value_at_margin): 1 inside the
// bounds; outside, 0 when margin is 0, else the sigmoid of the distance to the nearest bound
// in units of margin. The suite's arguments are constants, valid by construction (rewards.py
// raises for lower > upper, margin < 0 or value_at_margin outside (0, 1)).
inline double Tolerance(double x, double lower, double upper, double margin = 0.0,
                        Sigmoid sigmoid = Sigmoid::kGaussian,
                        double value_at_margin = kDefaultValueAtMargin,
                        Input input = Input::kScalar) {
  const bool in_bounds = lower <= x && x <= upper;
  if (in_bounds) return 1.0;
  if (margin == 0) return 0.0;
  const double d = (x < lower ? lower - x : x - upper) / margin;
  return SigmoidValue(d, value_at_margin, sigmoid, input);
}

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_REWARDS_H_
