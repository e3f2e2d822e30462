// np.exp of a float64, bit for bit with NumPy 2.x on x86-64 (first used by the dense PointMaze
// reward, np.exp(-distance)). A header of its own beside math.h: its kernel and table are
// long, and only envs that call np.exp need them.
//
// NumPy's DOUBLE_exp loop (numpy/_core/src/umath/loops_exponent_log.dispatch.c.src) runs,
// for a scalar as for an array, the kernel of the best CPU target available at run time:
//   X86_V4 (AVX512F/CD/VL/BW/DQ, i.e. AVX512_SKX), where NumPy links Intel's SVML (the Linux
//     x86-64 wheels): simd_exp_f64, i.e. __svml_exp8_ha, whose one lane SvmlExp8Ha is below;
//   every other x86-64 CPU and other architectures: npy_exp, i.e. libm's exp (std::exp).
// SvmlExp8Ha differs from glibc's exp in the last bit for about 1 in 20 arguments; it was
// checked bit for bit against np.exp (NumPy 2.4) on 2.5 million arguments in [-700, 700].
// (NPY_DISABLE_CPU_FEATURES, which can switch the X86_V4 target off, is not read.)
#ifndef ENVFLEET_COMMON_NUMPY_EXP_H_
#define ENVFLEET_COMMON_NUMPY_EXP_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace envfleet {
namespace numpy_math {
namespace internal {

// Whether NumPy dispatches its X86_V4 (AVX512_SKX) kernels here.
inline bool HasNumpyX86V4() {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                          __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  return has;
#else
  return false;
#endif
}

// __svml_exp8_ha's data (__svml_dexp_ha_data_internal_avx512, as NumPy 2.4's
// _multiarray_umath holds it): 2^(j/16) as a double head and tail, j = 0 .. 15.
inline constexpr double kSvmlExpHead[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
inline constexpr double kSvmlExpTail[16] = {
    0x0.0000000000000p+0,   0x1.79aa65d837b6dp-54,  -0x1.01b15eaa59348p-55, 0x1.68efde3a8a894p-54,
    0x1.34d754db0abb6p-55,  0x1.59f48a72a4c6dp-55,  0x1.690cebb7aafb0p-56,  0x1.063e1e21c5409p-54,
    -0x1.3b3efbf5e2228p-54, -0x1.b32dcb94da51dp-56, 0x1.db72fc1f0eab4p-55,  0x1.1affc2b91ce27p-56,
    0x1.c1a7792cb3387p-55,  0x1.36eae30af0cb3p-56,  0x1.4a385a63d07a7p-56,  -0x1.ff7128fd391f0p-55};

// One lane of __svml_exp8_ha (Intel SVML, AVX-512, "high accuracy"), operation by operation:
//   s = x * log2(e) + shifter, one fused multiply-add rounded toward zero: the shifter
//       (1.5 * 2^48 + 1023) leaves 4 fraction bits, so s holds floor(16 x log2(e)) / 16 and
//       its low 4 mantissa bits are j, the sixteenths;
//   n = s - shifter (exact);
//   r = x - n ln2, in two fused steps (ln2 as a head and a tail);
//   p = (e^r - 1) / r as the kernel's degree-5 minimax polynomial, in its order of operations;
//   exp(x) = 2^floor(n) * (Th + Th * (p r + Tl)) (vscalefpd: exact for these normal results).
// |x| >= 707.70... (and NaN) go to the kernel's scalar routine for overflow, underflow and
// special values instead, which this does not port: those arguments take libm's exp.
inline double SvmlExp8Ha(double x) {
  if (!(std::fabs(x) < 0x1.61da04cbafe44p+9)) return std::exp(x);
  constexpr double kLog2E = 0x1.71547652b82fep+0;
  constexpr double kShifter = 0x1.8000000003ff0p+48;
  constexpr double kLn2Head = 0x1.62e42fefa39efp-1;
  constexpr double kLn2Tail = 0x1.abc9e3b39803fp-56;
  // The fused multiply-add rounded toward zero, from the one rounded to nearest: s is positive
  // (about 1.5 * 2^48), so it is one step too far from zero when the exact sum lies below it.
  // That difference, x log2(e) + (shifter - s), is summed exactly but for one rounding, which
  // keeps its sign (shifter - s is exact: the two are within a factor of 2).
  double s = std::fma(x, kLog2E, kShifter);
  if (std::fma(x, kLog2E, kShifter - s) < 0.0) s = std::nextafter(s, 0.0);
  const double n = s - kShifter;
  uint64_t s_bits;
  std::memcpy(&s_bits, &s, sizeof(s));
  const int j = static_cast<int>(s_bits & 15);
  double r = std::fma(-n, kLn2Head, x);
  r = std::fma(-n, kLn2Tail, r);
  // (The kernel masks r with 0xbfff...ff, clearing bit 62: a no-op for |r| < 2.)
  const double r2 = r * r;
  const double c54 = std::fma(0x1.7411836940c04p-10, r, 0x1.1101cbbc265c0p-7);
  const double c32 = std::fma(0x1.55557242d68fep-5, r, 0x1.5555553939732p-3);
  const double c10 = std::fma(0x1.000000000d008p-1, r, 0x1.fffffffffff70p-1);
  double poly = std::fma(r2, c54, c32);
  poly = std::fma(r2, poly, c10);
  double result = std::fma(poly, r, kSvmlExpTail[j]);
  result = std::fma(kSvmlExpHead[j], result, kSvmlExpHead[j]);
  return std::ldexp(result, static_cast<int>(std::floor(n)));
}

}  // namespace internal

// np.exp(x) of a float64 scalar or array element.
inline double NpExp(double x) {
  return internal::HasNumpyX86V4() ? internal::SvmlExp8Ha(x) : std::exp(x);
}

}  // namespace numpy_math
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_NUMPY_EXP_H_
