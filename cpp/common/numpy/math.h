// The few NumPy operations that the references use and that plain C++ arithmetic does not
// reproduce bit for bit. Each function names the NumPy 2.x code it mirrors; the family tests
// compare against the installed NumPy through Gymnasium.
//
//   NpPow / NpPowF   `x ** 2` on an np.float64 / np.float32 scalar calls libm pow / powf
//                    (scalarmath.c.src: npy_pow), which is not always x*x rounded: glibc's pow
//                    differs from x*x for about 1 in 1000 doubles. The compiler would fold
//                    pow(x, 2.0) into x*x, so the exponent is kept opaque.
//   NpRemainder      `a % b` on np.float64 (npy_remainder: fmod, then Python's sign rule).
//   NpSinF / NpCosF  np.sin / np.cos on float32: NumPy's own vectorized Cody-Waite + polynomial
//                    kernel (loops_trigonometric.dispatch.cpp, simd_sincos_f32) on CPUs with
//                    FMA3 (+AVX2 or AVX512), libm sinf / cosf elsewhere. np.sin / np.cos on
//                    float64 are plain libm sin / cos on x86-64, i.e. std::sin / std::cos.
//   NpSum            np.sum of a float32 / float64 array: pairwise summation in NumPy's order.
//   NpSumOfSquares   np.sum(np.square(a)).
//   NpClip           np.clip on float64 (NaN stays NaN).
//   NpDotSelf/NpNorm v.dot(v) and np.linalg.norm of a short float64 vector (BLAS ddot, left to
//                    right, fused on CPUs where OpenBLAS's AVX-512 kernel runs).
//   NpEinsumDot      np.einsum("...i,...i", a, b) of a short float64 vector: two lanes.
//   NpMatVec         A @ x of a small C-contiguous float64 matrix and vector (e.g. jacp @ qvel):
//                    OpenBLAS's dgemv_t (ddot for one row) in its summation order.
// Elsewhere each product and sum is rounded on its own, as in NumPy: envfleet compiles with
// -ffp-contract=off (CMakeLists.txt), so no multiply-add is fused unless std::fma says so.
#ifndef ENVFLEET_COMMON_NUMPY_MATH_H_
#define ENVFLEET_COMMON_NUMPY_MATH_H_

#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace envfleet {
namespace numpy_math {

// Hides a value from the optimizer, so that calls such as pow(x, 2.0) stay libm calls and a
// product passed through it is rounded on its own before it is used, even where FMA is
// enabled (-march=native, -mfma).
template <typename T>
inline T Opaque(T value) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  __asm__("" : "+x"(value));
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
  __asm__("" : "+w"(value));
#else
  volatile T barrier = value;
  value = barrier;
#endif
  return value;
}

// np.float64 ** y (scalarmath double_ctype_power -> npy_pow -> pow).
inline double NpPow(double x, double y) { return std::pow(x, Opaque(y)); }

// np.float32 ** y (scalarmath float_ctype_power -> npy_powf -> powf).
inline float NpPowF(float x, float y) { return std::pow(x, Opaque(y)); }

// np.float64 % np.float64 (npy_remainder via npy_divmod): fmod, then the sign of the divisor.
inline double NpRemainder(double a, double b) {
  double mod = std::fmod(a, b);
  if (b == 0.0) return mod;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

// np.sum / ndarray.sum of a contiguous float32 or float64 array of n values, value(i) being
// the i-th: the add reduction starts from the identity 0 and adds pairwise_sum
// (numpy/_core/src/umath/loops_utils.h.src): below 8 values a plain loop, up to 128 eight
// accumulators combined as a tree, above that two halves split at a multiple of 8. float32
// accumulates in float32, as NumPy does.
template <typename T, typename F>
T PairwiseSum(const F& value, int64_t begin, int64_t n) {
  if (n < 8) {
    T res = 0;
    for (int64_t i = 0; i < n; ++i) res += value(begin + i);
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = value(begin + j);
    int64_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += value(begin + i + j);
    }
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += value(begin + i);
    return res;
  }
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSum<T>(value, begin, n2) + PairwiseSum<T>(value, begin + n2, n - n2);
}

// np.sum(a).
template <typename T>
T NpSum(const T* a, int64_t n) {
  return T(0) + PairwiseSum<T>([a](int64_t i) { return a[i]; }, 0, n);
}

// np.sum(np.square(a)): each square rounded to T, then summed as above.
template <typename T>
T NpSumOfSquares(const T* a, int64_t n) {
  return T(0) + PairwiseSum<T>([a](int64_t i) -> T { return a[i] * a[i]; }, 0, n);
}

// np.clip(x, low, high) on float64: NaN stays NaN.
inline double NpClip(double x, double low, double high) {
  const double lower = x < low ? low : x;
  return high < lower ? high : lower;
}

namespace internal {

// Whether OpenBLAS's ddot runs its AVX-512 kernel here (see NpDotSelf). OpenBLAS's
// DYNAMIC_ARCH picks a SkylakeX-class core where the CPU has AVX-512F (and the OS saves its
// registers), unless OPENBLAS_CORETYPE names the core to use (driver/others/dynamic.c reads it
// once, case-insensitively, when the library loads; some machines set it to Haswell on AVX-512
// CPUs): the AVX-512 ddot is then run only by the cores that name it, SkylakeX and its
// successors Cooperlake and SapphireRapids.
inline bool HasOpenBlasFusedDdot() {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  static const bool has = [] {
    if (const char* forced = std::getenv("OPENBLAS_CORETYPE"); forced != nullptr && *forced) {
      std::string core(forced);
      for (char& c : core) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return core == "skylakex" || core == "cooperlake" || core == "sapphirerapids";
    }
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  }();
  return has;
#else
  return false;
#endif
}

// NumPy dispatches its float32 sin/cos kernel only where the CPU has FMA3 (the AVX2+FMA3 and
// AVX512 targets); the kernel's multiply-adds are fused there, which std::fma reproduces.
inline bool HasNumpyFma3Kernel() {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  static const bool has = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  return has;
#elif defined(__aarch64__)
  return true;  // NEON_VFPV4 target: fused multiply-add
#else
  return false;
#endif
}

// simd_sincos_f32 for one lane, non-NaN input.
inline float SinCosF32(float x, bool cosine) {
  const float max_cody = cosine ? 71476.0625f : 117435.992f;
  if (!(std::fabs(x) <= max_cody)) return cosine ? std::cos(x) : std::sin(x);  // libm fallback
  const float two_over_pi = 0x1.45f306p-1f;
  const float pio2_high = -0x1.921fb0p+00f;
  const float pio2_med = -0x1.5110b4p-22f;
  const float pio2_low = -0x1.846988p-48f;
  const float rint_cvt_magic = 0x1.800000p+23f;

  // NumPy writes Mul then Add (round to nearest integer by the magic constant); its build
  // contracts the pair into one fused multiply-add, so the product is not rounded first.
  float quadrant = Opaque(std::fma(x, two_over_pi, rint_cvt_magic));
  quadrant = quadrant - rint_cvt_magic;

  float r = std::fma(quadrant, pio2_high, x);
  r = std::fma(quadrant, pio2_med, r);
  r = std::fma(quadrant, pio2_low, r);
  const float r2 = r * r;

  float c = std::fma(0x1.98e616p-16f, r2, -0x1.6c06dcp-10f);
  c = std::fma(c, r2, 0x1.55553cp-05f);
  c = std::fma(c, r2, -0x1.000000p-01f);
  c = std::fma(c, r2, 0x1.000000p+00f);

  float s = std::fma(0x1.7d3bbcp-19f, r2, -0x1.a06bbap-13f);
  s = std::fma(s, r2, 0x1.11119ap-07f);
  s = std::fma(s, r2, -0x1.555556p-03f);
  s = std::fma(s, r2, 0.0f);
  s = std::fma(s, r, r);

  int32_t iquadrant = static_cast<int32_t>(quadrant);  // already integral
  if (cosine) iquadrant += 1;
  float result = (iquadrant & 1) == 0 ? s : c;
  if ((iquadrant & 2) == 2) result = 0.0f - result;
  return result;
}

// OpenBLAS's ddot of two contiguous float64 vectors of n < 10000 values (single-threaded):
// kernel/x86_64/ddot.c (dot_compute) with ddot_microk_haswell-2.c (Haswell, Zen cores) or
// ddot_microk_skylakex-2.c (SkylakeX-class cores, `fused`). The first n & -16 values go
// through the block kernel, whose 16 accumulators acc[4q + l] (register q, lane l) each fuse
// the values i = 4q + l (mod 16) in order; the rest are added left to right, fused only where
// the kernel file is compiled for AVX-512 (as in NpDotSelf).
//   Haswell: each register is folded to (l0 + l2, l1 + l3), the four summed as
//     (q0 + q1) + (q2 + q3), then the two lanes added.
//   SkylakeX (its __AVX512CD__ path): while 32 values of the block are left, 32 accumulators
//     wide[k] (four zmm registers) fuse the values i = k (mod 32) instead; they are folded into
//     the 16 as acc[4q + l] = wide[8q + l] + wide[8q + l + 4] before the last 16 values of the
//     block, if any, are fused into those. The registers are then summed ((q0 + q1) + q2) + q3
//     lane by lane, folded to (l0 + l2, l1 + l3), and the two lanes added.
// The block's sum is added to 0.0, then the rest of the values to it.
inline double OpenBlasDdot(const double* a, const double* b, int n, bool fused) {
  const int block = n & -16;
  double dot = 0.0;
  if (block > 0) {
    double acc[16] = {};
    int i = 0;
    if (fused && block >= 32) {
      double wide[32] = {};
      for (; i + 32 <= block; i += 32) {
        for (int k = 0; k < 32; ++k) wide[k] = std::fma(a[i + k], b[i + k], wide[k]);
      }
      for (int q = 0; q < 4; ++q) {
        for (int l = 0; l < 4; ++l) acc[4 * q + l] = wide[8 * q + l] + wide[8 * q + l + 4];
      }
    }
    for (; i < block; i += 16) {
      for (int k = 0; k < 16; ++k) acc[k] = std::fma(a[i + k], b[i + k], acc[k]);
    }
    double lane0, lane1;
    if (fused) {
      double sum[4];
      for (int l = 0; l < 4; ++l) sum[l] = ((acc[l] + acc[4 + l]) + acc[8 + l]) + acc[12 + l];
      lane0 = sum[0] + sum[2];
      lane1 = sum[1] + sum[3];
    } else {
      double fold[4][2];
      for (int q = 0; q < 4; ++q) {
        fold[q][0] = acc[4 * q] + acc[4 * q + 2];
        fold[q][1] = acc[4 * q + 1] + acc[4 * q + 3];
      }
      lane0 = (fold[0][0] + fold[1][0]) + (fold[2][0] + fold[3][0]);
      lane1 = (fold[0][1] + fold[1][1]) + (fold[2][1] + fold[3][1]);
    }
    dot += lane0 + lane1;
  }
  for (int i = block; i < n; ++i) dot = fused ? std::fma(a[i], b[i], dot) : dot + a[i] * b[i];
  return dot;
}

// One dot product of OpenBLAS's dgemv_t over the first `body` values (a multiple of 4) of a
// row, by the kernel that sums that row (4: dgemv_kernel_4x4, 2: 4x2, 1: 4x1; see NpMatVec):
// partial sums per lane, lane l taking the values i = l (mod lanes) in order, starting from
// +0.0, then combined as the kernel's horizontal adds do.
inline double DgemvTRowDot(const double* a, const double* x, int body, int kernel) {
  if (kernel == 4) {  // dgemv_kernel_4x4 (dgemv_t_microk_haswell-4.c): fused, 4 lanes
    double lane[4] = {};
    for (int i = 0; i < body; i += 4) {
      for (int l = 0; l < 4; ++l) lane[l] = std::fma(a[i + l], x[i + l], lane[l]);
    }
    return (lane[0] + lane[2]) + (lane[1] + lane[3]);
  }
  if (kernel == 2) {  // dgemv_kernel_4x2 (SSE2): rounded products, 2 lanes
    double lane[2] = {};
    for (int i = 0; i < body; i += 2) {
      for (int l = 0; l < 2; ++l) lane[l] = lane[l] + a[i + l] * x[i + l];
    }
    return lane[0] + lane[1];
  }
  // dgemv_kernel_4x1 (SSE2): rounded products, 4 lanes in two registers.
  double lane[4] = {};
  for (int i = 0; i < body; i += 4) {
    for (int l = 0; l < 4; ++l) lane[l] = lane[l] + a[i + l] * x[i + l];
  }
  return (lane[0] + lane[2]) + (lane[1] + lane[3]);
}

}  // namespace internal

// v.dot(v) / np.dot(v, v) of a short float64 vector (n < 16): BLAS's ddot. OpenBLAS (NumPy's
// wheels, DYNAMIC_ARCH) sums a vector shorter than its 16-value block left to right; its
// kernel for AVX-512 CPUs (SkylakeX, used on Intel and AMD Zen 4 CPUs with AVX-512) fuses each
// multiply-add, the Haswell-class kernel for other x86-64 CPUs does not (measured against
// NumPy 2.4 / OpenBLAS 0.3.31 on both kinds of CPU). Longer vectors go through the block
// kernel, whose order is not reproduced here: the tasks' vectors are short. (A module that
// binds NumPy's own functions, bind/ufunc_loops.h, calls NumPy's dot for any length instead:
// NumpyDot in common/numpy/ufunc_loops.h.)
inline double NpDotSelf(const double* v, int n) {
  static const bool fused = internal::HasOpenBlasFusedDdot();
  double dot = 0.0;
  for (int i = 0; i < n; ++i) dot = fused ? std::fma(v[i], v[i], dot) : dot + v[i] * v[i];
  return dot;
}

// np.einsum("...i,...i", a, b) of two short contiguous float64 vectors (n < 8): NumPy's
// sum_of_products_contig_contig_outstride0_two (einsum_sumprod.c.src), which is compiled for
// the wheels' baseline (X86_V2, not dispatched), so its vectors have two lanes on every
// x86-64 CPU: lane 0 sums the products of the even elements, lane 1 of the odd ones, in order
// from 0.0 (the tail's missing lane adds a 0.0), and the result is 0.0 + (lane 0 + lane 1).
// (From 8 values on, an unrolled loop of four vectors changes the order; not needed here.)
inline double NpEinsumDot(const double* a, const double* b, int n) {
  double lane[2] = {0.0, 0.0};
  for (int i = 0; i < n; i += 2) {
    lane[0] = lane[0] + a[i] * b[i];
    lane[1] = lane[1] + (i + 1 < n ? a[i + 1] * b[i + 1] : 0.0);
  }
  return 0.0 + (lane[0] + lane[1]);
}

// np.linalg.norm(v) / norm(v, ord=2) of a short float64 vector: sqrt(v.dot(v)).
inline double NpNorm(const double* v, int n) { return std::sqrt(NpDotSelf(v, n)); }

// y = A @ x for a C-contiguous float64 matrix a (rows x cols, row r at a + r * cols) and a
// contiguous float64 vector x of cols values, as NumPy 2.x's matmul computes it
// (numpy/_core/src/umath/matmul.c.src, DOUBLE_matmul) with OpenBLAS on x86-64 Haswell, Zen
// and SkylakeX-class cores. Measured bit for bit against NumPy 2.4 / OpenBLAS 0.3.31 for rows
// 1..6 and cols 1..64 on both core types; written for any rows and cols < 2048 (OpenBLAS's
// NBMAX block; the sizes stay far below its threading thresholds).
//   rows == 1: a scalar output, DOUBLE_dot: 0.0 + cblas_ddot(cols, a, x) (OpenBlasDdot, the
//     one case where the core type matters).
//   cols == 1, rows > 1: no BLAS (DOUBLE_matmul_inner_noblas): y[r] = 0.0 + a[r] * x[0].
//   otherwise cblas_dgemv(ColMajor, Trans, cols, rows, 1.0, a, cols, x, 1, 0.0, y, 1), i.e.
//     OpenBLAS's dgemv_t (kernel/x86_64/dgemv_t_4.c, the same kernel on all three core types)
//     with the dot length m = cols and n = rows dot products. interface/gemv.c first zeroes y
//     (dscal with beta 0 stores +0.0). The kernel sums the first m - m % 4 values of each row
//     (none when cols < 4) in blocks of rows: four at a time with dgemv_kernel_4x4
//     (dgemv_t_microk_haswell-4.c: 4 lanes, fused), then two with dgemv_kernel_4x2 (SSE2: 2
//     lanes, rounded products), then one with dgemv_kernel_4x1 (SSE2: 4 lanes, rounded), lane
//     l taking the values i = l (mod lanes) in order (DgemvTRowDot); each sum t is stored as
//     y[r] += t * alpha, i.e. 0.0 + t (so -0.0 becomes +0.0). The last m % 4 values are then
//     added per row by plain C, y[r] += a0 * x0 + a1 * x1 + a2 * x2, which kernel/Makefile.L2
//     compiles with -mfma (FMAFLAG) and GCC contracts on every core type: y[r] + fma(a2, x2,
//     fma(a0, x0, a1 * x1)) for three values, y[r] + fma(a0, x0, a1 * x1) for two, fma(a0, x0,
//     y[r]) for one.
// Other BLAS builds (pre-Haswell x86-64 cores without FMA, aarch64, MKL, Accelerate) sum in
// other orders, which this does not reproduce. Allocation-free.
inline void NpMatVec(const double* a, int rows, int cols, const double* x, double* y) {
  if (rows <= 0) return;
  if (cols <= 0) {
    for (int r = 0; r < rows; ++r) y[r] = 0.0;
    return;
  }
  if (rows == 1) {
    static const bool fused = internal::HasOpenBlasFusedDdot();
    y[0] = 0.0 + internal::OpenBlasDdot(a, x, cols, fused);
    return;
  }
  if (cols == 1) {
    for (int r = 0; r < rows; ++r) y[r] = 0.0 + a[r] * x[0];
    return;
  }
  const int tail = cols & 3;
  const int body = cols - tail;
  const int quads = rows & -4;  // rows summed four at a time
  for (int r = 0; r < rows; ++r) {
    const int kernel = r < quads ? 4 : ((rows & 2) != 0 && r < quads + 2) ? 2 : 1;
    const double* row = a + static_cast<std::ptrdiff_t>(r) * cols;
    double sum = 0.0;
    if (body > 0) sum = 0.0 + internal::DgemvTRowDot(row, x, body, kernel);
    const double* ta = row + body;
    const double* tx = x + body;
    if (tail == 1) {
      sum = std::fma(ta[0], tx[0], sum);
    } else if (tail == 2) {
      sum = sum + std::fma(ta[0], tx[0], ta[1] * tx[1]);
    } else if (tail == 3) {
      sum = sum + std::fma(ta[2], tx[2], std::fma(ta[0], tx[0], ta[1] * tx[1]));
    }
    y[r] = sum;
  }
}

// np.sin on a float32 scalar or array element.
inline float NpSinF(float x) {
  if (std::isnan(x)) return x;
  return internal::HasNumpyFma3Kernel() ? internal::SinCosF32(x, false) : std::sin(x);
}

// np.cos on a float32 scalar or array element.
inline float NpCosF(float x) {
  if (std::isnan(x)) return x;
  return internal::HasNumpyFma3Kernel() ? internal::SinCosF32(x, true) : std::cos(x);
}

}  // namespace numpy_math
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_NUMPY_MATH_H_
