// np.arctan2, np.arccos, np.log, np.exp and np.expm1 of float64 values, bit for bit with
// NumPy 2.x: the references compute angles, logs and exponentials with NumPy (rotations, touch
// sensors, dense rewards), and on some CPUs NumPy's results are not libm's.
//
// NumPy's float64 loops for these functions run, for a 0-d array as for any other, the kernel
// of the best CPU target available at run time: on Linux x86-64 wheels with the X86_V4 target
// (AVX-512 F/CD/VL/BW/DQ), Intel's SVML kernels __svml_atan28_ha, __svml_acos8_ha,
// __svml_log8_ha, __svml_exp8_ha and __svml_expm18_ha
// (numpy/_core/src/umath/loops_umath_fp.dispatch.c.src, loops_exponent_log.dispatch.c.src);
// elsewhere libm's atan2, acos, log, exp and expm1. The SVML
// results differ from libm's in the last bit for a few percent of arguments (about 7% for
// atan2, 10% for acos, 5% for exp). The kernels are exported symbols of NumPy's own extension
// module, which every process running envfleet from Python has loaded: those very functions
// are called, one lane at a time, so the results are NumPy's by construction (each was
// checked against NumPy on hundreds of thousands of arguments, zeros, infinities, NaNs and
// subnormals included, by the tests of the envs that use it). Without NumPy loaded, on other
// CPUs, or when NPY_DISABLE_CPU_FEATURES turns X86_V4 off (as NumPy reads it once, at import),
// NumPy's loops are libm's, and so are these.
#ifndef ENVFLEET_COMMON_NUMPY_SVML_H_
#define ENVFLEET_COMMON_NUMPY_SVML_H_

#include <cmath>
#include <cstdlib>
#include <cstring>

#if defined(__linux__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <dlfcn.h>
#include <immintrin.h>
#include <link.h>
#define ENVFLEET_NUMPY_SVML 1
#endif

namespace envfleet {
namespace numpy_math {

#if ENVFLEET_NUMPY_SVML
namespace internal {

// dl_iterate_phdr's callback: the path of NumPy's _multiarray_umath module, if loaded.
inline int FindUmath(dl_phdr_info* info, size_t, void* found) {
  if (std::strstr(info->dlpi_name, "/_multiarray_umath") != nullptr) {
    *static_cast<const char**>(found) = info->dlpi_name;
    return 1;
  }
  return 0;
}

// Whether NPY_DISABLE_CPU_FEATURES names X86_V4 (a list separated by spaces, commas or tabs).
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

// The address of NumPy's SVML kernel `symbol`, or null where NumPy's loop for it is libm's.
inline void* NumpySvmlKernel(const char* symbol) {
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
  return module == nullptr ? nullptr : dlsym(module, symbol);
}

// One lane of a kernel of one or two __m512d arguments: NumPy fills the lanes past an array's
// end with 1.0 (the lanes are independent).
__attribute__((target("avx512f"))) inline double SvmlUnary(void* kernel, double x) {
  using Kernel = __m512d (*)(__m512d);
  const __m512d vx = _mm512_mask_mov_pd(_mm512_set1_pd(1.0), 1, _mm512_set1_pd(x));
  return _mm512_cvtsd_f64(reinterpret_cast<Kernel>(kernel)(vx));
}
__attribute__((target("avx512f"))) inline double SvmlBinary(void* kernel, double y, double x) {
  using Kernel = __m512d (*)(__m512d, __m512d);
  const __m512d ones = _mm512_set1_pd(1.0);
  const __m512d vy = _mm512_mask_mov_pd(ones, 1, _mm512_set1_pd(y));
  const __m512d vx = _mm512_mask_mov_pd(ones, 1, _mm512_set1_pd(x));
  return _mm512_cvtsd_f64(reinterpret_cast<Kernel>(kernel)(vy, vx));
}

}  // namespace internal
#endif

// np.arctan2(y, x) on float64 values (0-d arrays or array elements).
inline double NpArctan2(double y, double x) {
#if ENVFLEET_NUMPY_SVML
  static void* const kernel = internal::NumpySvmlKernel("__svml_atan28_ha");
  if (kernel != nullptr) return internal::SvmlBinary(kernel, y, x);
#endif
  return std::atan2(y, x);
}

// np.arccos(x) on a float64.
inline double NpArccos(double x) {
#if ENVFLEET_NUMPY_SVML
  static void* const kernel = internal::NumpySvmlKernel("__svml_acos8_ha");
  if (kernel != nullptr) return internal::SvmlUnary(kernel, x);
#endif
  return std::acos(x);
}

// np.log(x) on a float64.
inline double NpLog(double x) {
#if ENVFLEET_NUMPY_SVML
  static void* const kernel = internal::NumpySvmlKernel("__svml_log8_ha");
  if (kernel != nullptr) return internal::SvmlUnary(kernel, x);
#endif
  return std::log(x);
}

// np.exp(x) on a float64.
inline double NpExp(double x) {
#if ENVFLEET_NUMPY_SVML
  static void* const kernel = internal::NumpySvmlKernel("__svml_exp8_ha");
  if (kernel != nullptr) return internal::SvmlUnary(kernel, x);
#endif
  return std::exp(x);
}

// np.expm1(x) on a float64.
inline double NpExpm1(double x) {
#if ENVFLEET_NUMPY_SVML
  static void* const kernel = internal::NumpySvmlKernel("__svml_expm18_ha");
  if (kernel != nullptr) return internal::SvmlUnary(kernel, x);
#endif
  return std::expm1(x);
}

}  // namespace numpy_math
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_NUMPY_SVML_H_
