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
// Elsewhere each product and sum is rounded on its own, as in NumPy: envfleet compiles with
// -ffp-contract=off (CMakeLists.txt), so no multiply-add is fused unless std::fma says so.
#ifndef ENVFLEET_COMMON_NUMPY_MATH_H_
#define ENVFLEET_COMMON_NUMPY_MATH_H_

#include <cctype>
#include <cmath>
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

}  // namespace internal

// v.dot(v) / np.dot(v, v) of a short float64 vector (n < 16): BLAS's ddot. OpenBLAS (NumPy's
// wheels, DYNAMIC_ARCH) sums a vector shorter than its 16-value block left to right; its
// kernel for AVX-512 CPUs (SkylakeX, used on Intel and AMD Zen 4 CPUs with AVX-512) fuses each
// multiply-add, the Haswell-class kernel for other x86-64 CPUs does not (measured against
// NumPy 2.4 / OpenBLAS 0.3.31 on both kinds of CPU). Longer vectors go through the block
// kernel, whose order is not reproduced here: the tasks' vectors are short.
inline double NpDotSelf(const double* v, int n) {
  static const bool fused = internal::HasOpenBlasFusedDdot();
  double dot = 0.0;
  for (int i = 0; i < n; ++i) dot = fused ? std::fma(v[i], v[i], dot) : dot + v[i] * v[i];
  return dot;
}

// np.linalg.norm(v) / norm(v, ord=2) of a short float64 vector: sqrt(v.dot(v)).
inline double NpNorm(const double* v, int n) { return std::sqrt(NpDotSelf(v, n)); }

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
