// Ports of gymnasium-robotics 1.4.2's gymnasium_robotics/utils/rotations.py (itself from
// transforms3d) that the family's envs call, for one rotation at a time, in the reference's
// order of operations. np.sqrt, np.sin and np.cos on float64 are libm's (or exact) on x86-64;
// np.arctan2 is libm's too, except on CPUs with AVX-512, where NumPy runs Intel's SVML kernel
// (NpArctan2 below).
#ifndef ENVFLEET_FAMILIES_ROBOTICS_ROTATIONS_H_
#define ENVFLEET_FAMILIES_ROBOTICS_ROTATIONS_H_

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#if defined(__linux__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <dlfcn.h>
#include <immintrin.h>
#include <link.h>
#define ENVFLEET_NUMPY_SVML 1
#endif

namespace envfleet {
namespace robotics {
namespace rotations {

#if ENVFLEET_NUMPY_SVML
namespace internal {

// NumPy (2.x wheels on Linux x86-64) computes np.arctan2 of float64 arrays, 0-d ones included,
// with SVML's __svml_atan28_ha wherever its X86_V4 (AVX-512 F/CD/VL/BW/DQ) code path runs
// (numpy/_core/src/umath/loops_umath_fp.dispatch.c.src); it differs from libm's atan2 in the
// last bit for about 7% of inputs. The kernel is an exported symbol of NumPy's own extension
// module, which every process running envfleet from Python has loaded: that very function is
// called, so the results are NumPy's by construction (checked on 220,000 pairs, zeros,
// infinities, NaNs and subnormals included). Without NumPy loaded, on other CPUs, or when
// NPY_DISABLE_CPU_FEATURES turns X86_V4 off (as NumPy reads it), NumPy's loop is libm's.
inline int FindUmath(dl_phdr_info* info, size_t, void* found) {
  if (std::strstr(info->dlpi_name, "/_multiarray_umath") != nullptr) {
    *static_cast<const char**>(found) = info->dlpi_name;
    return 1;
  }
  return 0;
}

inline bool NumpyDisablesX86V4() {
  const char* disabled = std::getenv("NPY_DISABLE_CPU_FEATURES");
  if (disabled == nullptr) return false;
  const char* at = disabled;
  while ((at = std::strstr(at, "X86_V4")) != nullptr) {
    const bool starts = at == disabled || at[-1] == ' ' || at[-1] == ',' || at[-1] == '\t';
    const char end = at[6];
    if (starts && (end == '\0' || end == ' ' || end == ',' || end == '\t')) return true;
    at += 6;
  }
  return false;
}

// The address of NumPy's __svml_atan28_ha, or null where NumPy's arctan2 loop is libm's.
inline void* NumpySvmlAtan2() {
  if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq")) ||
      NumpyDisablesX86V4()) {
    return nullptr;
  }
  const char* path = nullptr;
  dl_iterate_phdr(FindUmath, &path);
  if (path == nullptr) return nullptr;
  void* module = dlopen(path, RTLD_NOW | RTLD_NOLOAD);  // a reference NumPy holds anyway
  return module == nullptr ? nullptr : dlsym(module, "__svml_atan28_ha");
}

// One lane of the kernel: NumPy fills the lanes past the array's end with 1.0 (lanes are
// independent).
__attribute__((target("avx512f"))) inline double SvmlAtan2(void* kernel, double y, double x) {
  using Kernel = __m512d (*)(__m512d, __m512d);
  const __m512d ones = _mm512_set1_pd(1.0);
  const __m512d vy = _mm512_mask_mov_pd(ones, 1, _mm512_set1_pd(y));
  const __m512d vx = _mm512_mask_mov_pd(ones, 1, _mm512_set1_pd(x));
  return _mm512_cvtsd_f64(reinterpret_cast<Kernel>(kernel)(vy, vx));
}

}  // namespace internal
#endif

// np.arctan2(y, x) on float64 arrays (0-d ones too: the reference's mat2euler indexes a matrix
// with `...`, which leaves arrays).
inline double NpArctan2(double y, double x) {
#if ENVFLEET_NUMPY_SVML
  static void* const kernel = internal::NumpySvmlAtan2();
  if (kernel != nullptr) return internal::SvmlAtan2(kernel, y, x);
#endif
  return std::atan2(y, x);
}

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
