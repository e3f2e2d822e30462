// Ports of gymnasium-robotics 1.4.2's gymnasium_robotics/utils/rotations.py (itself from
// transforms3d) that the family's envs call, for one rotation at a time, in the reference's
// order of operations. np.sqrt, np.sin and np.cos on float64 are libm's (or exact) on x86-64;
// np.arctan2 is libm's too, except on CPUs with AVX-512, where NumPy runs Intel's SVML kernel
// (NpArctan2, cpp/common/numpy/svml.h).
#ifndef ENVFLEET_FAMILIES_ROBOTICS_ROTATIONS_H_
#define ENVFLEET_FAMILIES_ROBOTICS_ROTATIONS_H_

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "common/numpy/svml.h"

namespace envfleet {
namespace robotics {
namespace rotations {

using numpy_math::NpArctan2;  // NumPy's kernel (common/numpy/svml.h)

// _EPS4 = np.finfo(float).eps * 4.0
inline constexpr double kEps4 = std::numeric_limits<double>::epsilon() * 4.0;
// _FLOAT_EPS = np.finfo(np.float64).eps
inline constexpr double kFloatEps = std::numeric_limits<double>::epsilon();

// mat2euler(mat): the static-axes xyz Euler angles of a row-major 3x3 rotation matrix.
inline void Mat2Euler(const double* mat, double* euler) {
  const auto at = [mat](int row, int col) { return mat[3 * row + col]; };
  const double cy = std::sqrt(at(2, 2) * at(2, 2) + at(1, 2) * at(1, 2));
  if (cy > kEps4) {
    euler[2] = -NpArctan2(at(0, 1), at(0, 0));
    euler[1] = -NpArctan2(-at(0, 2), cy);
    euler[0] = -NpArctan2(at(1, 2), at(2, 2));
  } else {
    euler[2] = -NpArctan2(-at(1, 0), at(1, 1));
    euler[1] = -NpArctan2(-at(0, 2), cy);
    euler[0] = 0.0;
  }
}

// quat2mat(quat): the rotation matrix (row-major) of a quaternion (w, x, y, z), the identity
// for a quaternion of squared norm <= eps. Nq is np.sum(quat * quat, axis=-1): four values,
// NumPy's pairwise sum adds them left to right.
inline void Quat2Mat(const double* quat, double* mat) {
  const double w = quat[0], x = quat[1], y = quat[2], z = quat[3];
  const double nq = ((w * w + x * x) + y * y) + z * z;
  if (!(nq > kFloatEps)) {
    for (int k = 0; k < 9; ++k) mat[k] = k % 4 == 0 ? 1.0 : 0.0;
    return;
  }
  const double s = 2.0 / nq;
  const double X = x * s, Y = y * s, Z = z * s;
  const double wX = w * X, wY = w * Y, wZ = w * Z;
  const double xX = x * X, xY = x * Y, xZ = x * Z;
  const double yY = y * Y, yZ = y * Z, zZ = z * Z;
  mat[0] = 1.0 - (yY + zZ);
  mat[1] = xY - wZ;
  mat[2] = xZ + wY;
  mat[3] = xY + wZ;
  mat[4] = 1.0 - (xX + zZ);
  mat[5] = yZ - wX;
  mat[6] = xZ - wY;
  mat[7] = yZ + wX;
  mat[8] = 1.0 - (xX + yY);
}

// quat2euler(quat) = mat2euler(quat2mat(quat)).
inline void Quat2Euler(const double* quat, double* euler) {
  double mat[9];
  Quat2Mat(quat, mat);
  Mat2Euler(mat, euler);
}

// euler2quat(euler): the quaternion (w, x, y, z) of static-axes xyz Euler angles.
inline void Euler2Quat(const double* euler, double* quat) {
  const double ai = euler[2] / 2, aj = -euler[1] / 2, ak = euler[0] / 2;
  const double si = std::sin(ai), sj = std::sin(aj), sk = std::sin(ak);
  const double ci = std::cos(ai), cj = std::cos(aj), ck = std::cos(ak);
  const double cc = ci * ck, cs = ci * sk;
  const double sc = si * ck, ss = si * sk;
  quat[0] = cj * cc + sj * ss;
  quat[3] = cj * sc - sj * cs;
  quat[2] = -(cj * ss + sj * cc);
  quat[1] = cj * cs - sj * sc;
}

// ---- Appended for the Shadow Hand (cpp/families/robotics/hand_manipulate.h) ----------------

// quat_conjugate(q): (w, -x, -y, -z).
inline void QuatConjugate(const double* q, double* out) {
  out[0] = q[0];
  out[1] = -q[1];
  out[2] = -q[2];
  out[3] = -q[3];
}

// quat_mul(q0, q1): the Hamilton product, each component summed left to right as written.
// `out` may alias neither input.
inline void QuatMul(const double* q0, const double* q1, double* out) {
  const double w0 = q0[0], x0 = q0[1], y0 = q0[2], z0 = q0[3];
  const double w1 = q1[0], x1 = q1[1], y1 = q1[2], z1 = q1[3];
  out[0] = w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1;
  out[1] = w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1;
  out[2] = w0 * y1 + y0 * w1 + z0 * x1 - x0 * z1;
  out[3] = w0 * z1 + z0 * w1 + x0 * y1 - y0 * x1;
}

// euler2mat(euler): the rotation matrix (row-major) of static-axes xyz Euler angles.
inline void Euler2Mat(const double* euler, double* mat) {
  const double ai = -euler[2], aj = -euler[1], ak = -euler[0];
  const double si = std::sin(ai), sj = std::sin(aj), sk = std::sin(ak);
  const double ci = std::cos(ai), cj = std::cos(aj), ck = std::cos(ak);
  const double cc = ci * ck, cs = ci * sk;
  const double sc = si * ck, ss = si * sk;
  mat[8] = cj * ck;
  mat[7] = sj * sc - cs;
  mat[6] = sj * cc + ss;
  mat[5] = cj * sk;
  mat[4] = sj * ss + cc;
  mat[3] = sj * cs - sc;
  mat[2] = -sj;
  mat[1] = cj * si;
  mat[0] = cj * ci;
}

// get_parallel_rotations(): the 24 rotations whose axes are parallel to the world's, as
// canonical xyz Euler angles (multiples of pi/2), in the order the reference finds them: the
// Euler triples of {0, pi/2, -pi/2, pi}^3 in itertools.product order, each made canonical
// (mat2euler(euler2mat(.)), rounded to quarter turns half to even as np.round does, -2 turns
// about x or z taken as +2) and kept if no earlier one is equal. The rounding makes the result
// independent of the last bits of arctan2.
struct ParallelRotationTable {
  double euler[24][3];
};

inline const ParallelRotationTable& ParallelRotations() {
  static const ParallelRotationTable table = [] {
    ParallelRotationTable out{};
    const double half_pi = M_PI / 2;
    const double mult90[4] = {0.0, M_PI / 2, -M_PI / 2, M_PI};
    int found = 0;
    for (double a : mult90) {
      for (double b : mult90) {
        for (double c : mult90) {
          const double euler[3] = {a, b, c};
          double mat[9], canonical[3];
          Euler2Mat(euler, mat);
          Mat2Euler(mat, canonical);
          for (double& v : canonical) v = std::nearbyint(v / half_pi);
          if (canonical[0] == -2) canonical[0] = 2;
          if (canonical[2] == -2) canonical[2] = 2;
          for (double& v : canonical) v *= half_pi;
          bool is_new = true;
          for (int r = 0; r < found && is_new; ++r) {
            is_new = canonical[0] != out.euler[r][0] || canonical[1] != out.euler[r][1] ||
                     canonical[2] != out.euler[r][2];
          }
          if (!is_new || found == 24) continue;
          for (int k = 0; k < 3; ++k) out.euler[found][k] = canonical[k];
          ++found;
        }
      }
    }
    if (found != 24) std::abort();  // as the reference asserts: there are exactly 24
    return out;
  }();
  return table;
}

}  // namespace rotations
}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_ROTATIONS_H_
