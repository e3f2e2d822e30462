// The arithmetic Meta-World's reward functions share: metaworld 3.1.1's
// metaworld/utils/reward_utils.py (tolerance, hamacher_product, rect_prism_tolerance, written
// after dm_control's rewards), SciPy's Rotation.from_matrix(...).as_quat() (the objects'
// orientation in most observations), and the vector norms the tasks take.
//
// Each function is the reference's NumPy arithmetic operation for operation: np.linalg.norm of
// a 1-d array is sqrt(x.dot(x)) (numpy_math::NpNorm), `y ** 2` on an np.float64 or Python float
// is libm pow (numpy_math::NpPow), and nothing is fused (-ffp-contract=off).
#ifndef ENVFLEET_FAMILIES_METAWORLD_REWARD_UTILS_H_
#define ENVFLEET_FAMILIES_METAWORLD_REWARD_UTILS_H_

#include <algorithm>
#include <cmath>

#include "common/numpy/math.h"
#include "common/numpy/svml.h"

namespace envfleet {
namespace metaworld {

// A point or direction in the world, as the tasks' 3-element arrays.
struct Vec3 {
  double v[3] = {0, 0, 0};
  double& operator[](int i) { return v[i]; }
  double operator[](int i) const { return v[i]; }
  static Vec3 Of(const double* p) { return {{p[0], p[1], p[2]}}; }
  friend Vec3 operator+(const Vec3& a, const Vec3& b) {
    return {{a[0] + b[0], a[1] + b[1], a[2] + b[2]}};
  }
  friend Vec3 operator-(const Vec3& a, const Vec3& b) {
    return {{a[0] - b[0], a[1] - b[1], a[2] - b[2]}};
  }
  friend Vec3 operator*(const Vec3& a, const Vec3& b) {
    return {{a[0] * b[0], a[1] * b[1], a[2] * b[2]}};
  }
  friend Vec3 operator*(const Vec3& a, double s) { return {{a[0] * s, a[1] * s, a[2] * s}}; }
  friend Vec3 operator/(const Vec3& a, double s) { return {{a[0] / s, a[1] / s, a[2] / s}}; }
};

// np.linalg.norm of a 1-d float64 array (any ord=None/2): sqrt of BLAS ddot.
inline double Norm(const double* v, int n) { return numpy_math::NpNorm(v, n); }
inline double Norm(const Vec3& v) { return Norm(v.v, 3); }
inline double Norm2(const Vec3& v) { return Norm(v.v, 2); }  // np.linalg.norm(v[:2])

// ---- NumPy's scalar types --------------------------------------------------------------------
//
// The action reaches the rewards as np.float32 scalars (action[-1], the gripper effort), and
// NumPy 2's promotion (NEP 50) keeps an np.float32 float32 against a Python float: a reward that
// mixes the effort in is computed in float32 from there on, while np.float64 operands promote
// it back to float64. Np carries a value with the type the reference's value has, and its
// operators compute in the type NumPy would.
enum class NpKind : unsigned char { kPy, kF64, kF32 };  // Python float (or int), np.float64/32

struct Np {
  double v = 0;
  NpKind kind = NpKind::kPy;
  Np() = default;
  Np(double value, NpKind k = NpKind::kPy) : v(value), kind(k) {}  // NOLINT: a Python float
  static Np F32(float value) { return {static_cast<double>(value), NpKind::kF32}; }
  static Np F64(double value) { return {value, NpKind::kF64}; }
  bool f32() const { return kind == NpKind::kF32; }
};

inline NpKind Promote(NpKind a, NpKind b) {
  if (a == NpKind::kF64 || b == NpKind::kF64) return NpKind::kF64;
  if (a == NpKind::kF32 || b == NpKind::kF32) return NpKind::kF32;
  return NpKind::kPy;
}

template <typename Op>
inline Np NpApply(const Np& a, const Np& b, Op op) {
  const NpKind kind = Promote(a.kind, b.kind);
  if (kind == NpKind::kF32) {
    const float x = static_cast<float>(a.v), y = static_cast<float>(b.v);
    return {static_cast<double>(static_cast<float>(op(x, y))), kind};
  }
  return {op(a.v, b.v), kind};
}
inline Np operator+(const Np& a, const Np& b) {
  return NpApply(a, b, [](auto x, auto y) { return x + y; });
}
inline Np operator-(const Np& a, const Np& b) {
  return NpApply(a, b, [](auto x, auto y) { return x - y; });
}
inline Np operator*(const Np& a, const Np& b) {
  return NpApply(a, b, [](auto x, auto y) { return x * y; });
}
inline Np operator/(const Np& a, const Np& b) {
  return NpApply(a, b, [](auto x, auto y) { return x / y; });
}
// a < b as NumPy compares them: in float32 when an np.float32 meets a Python float (NEP 50:
// np.float32(0.1) < 0.1 is False), else in float64.
inline bool NpLess(const Np& a, const Np& b) {
  if (Promote(a.kind, b.kind) == NpKind::kF32) {
    return static_cast<float>(a.v) < static_cast<float>(b.v);
  }
  return a.v < b.v;
}
// Python's max(a, b) / min(a, b): the first argument unless the second is strictly greater /
// smaller (so a NaN second argument is never chosen), with its type.
inline Np PyMax(const Np& a, const Np& b) { return NpLess(a, b) ? b : a; }
inline Np PyMin(const Np& a, const Np& b) { return NpLess(b, a) ? b : a; }

// reward_utils._sigmoids' two kinds the tasks use, value_at_1 = 0.1 (the default
// value_at_margin).
enum class Sigmoid { kLongTail, kGaussian };

// reward_utils.tolerance(x, bounds=(lower, upper), margin, sigmoid): 1 inside the bounds,
// else the sigmoid of the distance to the nearer bound over the margin.
inline double Tolerance(double x, double lower, double upper, double margin,
                        Sigmoid sigmoid = Sigmoid::kLongTail) {
  const bool in_bounds = lower <= x && x <= upper;
  if (margin == 0) return in_bounds ? 1.0 : 0.0;
  if (in_bounds) return 1.0;
  // d is an np.float64 scalar (a 0-d np.where over a margin), so `(d * scale) ** 2` is
  // NumPy's scalar power: libm pow, not always the rounded product.
  const double d = (x < lower ? lower - x : x - upper) / margin;
  if (sigmoid == Sigmoid::kLongTail) {
    const double scale = std::sqrt(1 / 0.1 - 1);
    return 1 / (numpy_math::NpPow(d * scale, 2.0) + 1);
  }
  // np.log and np.exp: NumPy's own kernels (SVML on AVX-512 CPUs), not always libm's.
  const double scale = std::sqrt(-2 * numpy_math::NpLog(0.1));
  return numpy_math::NpExp(-0.5 * numpy_math::NpPow(d * scale, 2.0));
}

// reward_utils.hamacher_product(a, b): the Hamacher t-norm (a * b) / (a + b - a * b), in the
// type NumPy computes it in (float32 when either is an np.float32 and neither an np.float64).
inline Np HamacherProduct(const Np& a, const Np& b) {
  const Np denominator = a + b - (a * b);
  return denominator.v > 0 ? (a * b) / denominator : Np(0.0);
}

// reward_utils.rect_prism_tolerance(curr, zero, one): the product of the scaled coordinates
// inside the prism, 1.0 outside it.
inline double RectPrismTolerance(const Vec3& curr, const Vec3& zero, const Vec3& one) {
  const auto in_range = [](double a, double b, double c) {
    return c >= b ? (b <= a && a <= c) : (c <= a && a <= b);
  };
  if (!(in_range(curr[0], zero[0], one[0]) && in_range(curr[1], zero[1], one[1]) &&
        in_range(curr[2], zero[2], one[2]))) {
    return 1.0;
  }
  const Vec3 diff = one - zero;
  const double x_scale = (curr[0] - zero[0]) / diff[0];
  const double y_scale = (curr[1] - zero[1]) / diff[1];
  const double z_scale = (curr[2] - zero[2]) / diff[2];
  return x_scale * y_scale * z_scale;
}

// scipy.spatial.transform.Rotation.from_matrix(m).as_quat(): (x, y, z, w) from a row-major
// 3x3 rotation matrix (MuJoCo's xmat), by the larger of the diagonal and the trace, then
// normalized (sqrt of the squares summed in order; checked against SciPy 1.17 on 20000
// random rotations). MuJoCo's matrices are orthogonal to rounding, so SciPy's projection of
// a non-orthogonal input (SVD) never runs.
inline void QuatFromMatrix(const double* m, double* quat) {
  const auto at = [m](int i, int j) { return m[3 * i + j]; };
  const double trace = at(0, 0) + at(1, 1) + at(2, 2);
  const double decision[4] = {at(0, 0), at(1, 1), at(2, 2), trace};
  int choice = 0;
  for (int i = 1; i < 4; ++i) {
    if (decision[i] > decision[choice]) choice = i;  // argmax: the first of equals
  }
  if (choice != 3) {
    const int i = choice, j = (i + 1) % 3, k = (j + 1) % 3;
    quat[i] = 1 - trace + 2 * at(i, i);
    quat[j] = at(j, i) + at(i, j);
    quat[k] = at(k, i) + at(i, k);
    quat[3] = at(k, j) - at(j, k);
  } else {
    quat[0] = at(2, 1) - at(1, 2);
    quat[1] = at(0, 2) - at(2, 0);
    quat[2] = at(1, 0) - at(0, 1);
    quat[3] = 1 + trace;
  }
  const double norm =
      std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
  for (int i = 0; i < 4; ++i) quat[i] = quat[i] / norm;
}

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_REWARD_UTILS_H_
