// NumPy's own inner loops of the ufuncs whose float32 results plain C++ does not reproduce,
// called from C++ so that the results are NumPy's by construction.
//
//   NpExpF   np.exp of a float32 array. NumPy computes it with its own SIMD kernel
//            (numpy/_core/src/umath/loops_exponent_log.dispatch.c.src, simd_exp_FLOAT, on
//            CPUs with AVX2 or AVX512F) or libm's expf, as its CPU dispatch chose at import.
//            On this project's x86-64 machines the kernel differs from glibc's expf in the
//            last bit for about 40% of arguments (MyoSuite's muscle sigmoid goes through it).
//   NpExp    np.exp of a float64 array: NumPy's own AVX512F kernel (simd_exp_f64) where the
//            CPU has it, libm's exp elsewhere (the leg tasks' sigmoid is float64).
//   NumpyDot a.dot(b) of two float64 vectors, and NumpyNorm, np.linalg.norm(v) with no axis,
//            which NumPy computes as sqrt(v.dot(v)), of any length and on any CPU by calling
//            NumPy's own function (math.h's NpDotSelf reproduces the short vectors' sums
//            without NumPy, for the modules that do not bind it). NumPy's float64 dot function
//            (DOUBLE_dot in numpy/_core/src/multiarray/arraytypes.c.src) adds cblas_ddot of
//            the OpenBLAS it ships (DYNAMIC_ARCH: a kernel the CPU chose) into a double; the
//            kernel's order of additions and its fused multiply-adds give another last bit
//            than a plain loop for about 20% of 3-vectors and 60% of 39-vectors (measured).
//            MyoSuite's KeyTurn rewards go through it.
//
// The loops are the ufunc's own function pointers for the float32 and float64 signatures, read
// from the np.exp object (PyUFuncObject.functions, the pointers NumPy's dispatch installed)
// once, by BindUfuncLoops() at a module's import with the GIL held; the dot function is
// float64's (PyDataType_GetArrFuncs(descr)->dotfunc), read there too. All are pure functions of
// their arguments, which NumPy itself calls with the GIL released: workers call them with no GIL,
// the loop on any number of elements at once (each element's result is the same whether it
// is computed alone or within an array: SIMD lanes are independent). Before BindUfuncLoops,
// NpExpF and NpExp are libm's and NumpyDot a plain loop.
#ifndef ENVFLEET_COMMON_NUMPY_UFUNC_LOOPS_H_
#define ENVFLEET_COMMON_NUMPY_UFUNC_LOOPS_H_

#include <atomic>
#include <cmath>
#include <cstdint>

namespace envfleet {
namespace numpy_math {

// NumPy's PyUFuncGenericFunction: (args, dimensions, steps, innerloopdata).
using UfuncLoop = void (*)(char** args, const intptr_t* dimensions, const intptr_t* steps,
                           void* data);

// NumPy's PyArray_DotFunc: (ip1, is1, ip2, is2, op, n, ignore), strides in bytes.
using DotFunc = void (*)(void* a, intptr_t a_stride, void* b, intptr_t b_stride, void* out,
                         intptr_t n, void* ignore);

namespace internal {
inline std::atomic<UfuncLoop>& ExpFloat32Loop() {
  static std::atomic<UfuncLoop> loop{nullptr};
  return loop;
}
inline std::atomic<UfuncLoop>& ExpFloat64Loop() {
  static std::atomic<UfuncLoop> loop{nullptr};
  return loop;
}
inline std::atomic<DotFunc>& DoubleDot() {
  static std::atomic<DotFunc> dot{nullptr};
  return dot;
}
}  // namespace internal

// out[i] = np.exp(in[i]) for i < n, as NumPy computes it for a float32 array (`in` and `out`
// may be the same array).
inline void NpExpF(const float* in, float* out, int64_t n) {
  const UfuncLoop loop = internal::ExpFloat32Loop().load(std::memory_order_acquire);
  if (loop == nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
    return;
  }
  char* args[2] = {reinterpret_cast<char*>(const_cast<float*>(in)), reinterpret_cast<char*>(out)};
  const intptr_t dimensions[1] = {static_cast<intptr_t>(n)};
  const intptr_t steps[2] = {sizeof(float), sizeof(float)};
  loop(args, dimensions, steps, nullptr);
}

// out[i] = np.exp(in[i]) for i < n, as NumPy computes it for a float64 array.
inline void NpExp(const double* in, double* out, int64_t n) {
  const UfuncLoop loop = internal::ExpFloat64Loop().load(std::memory_order_acquire);
  if (loop == nullptr) {
    for (int64_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
    return;
  }
  char* args[2] = {reinterpret_cast<char*>(const_cast<double*>(in)), reinterpret_cast<char*>(out)};
  const intptr_t dimensions[1] = {static_cast<intptr_t>(n)};
  const intptr_t steps[2] = {sizeof(double), sizeof(double)};
  loop(args, dimensions, steps, nullptr);
}

// a.dot(b) for two contiguous float64 vectors of n values, as NumPy computes it.
inline double NumpyDot(const double* a, const double* b, int64_t n) {
  const DotFunc dot = internal::DoubleDot().load(std::memory_order_acquire);
  double out = 0.0;
  if (dot == nullptr) {
    for (int64_t i = 0; i < n; ++i) out += a[i] * b[i];
    return out;
  }
  dot(const_cast<double*>(a), sizeof(double), const_cast<double*>(b), sizeof(double), &out,
      static_cast<intptr_t>(n), nullptr);
  return out;
}

// np.linalg.norm(v) of a float64 vector of n values (no axis: sqrt(v.dot(v))).
inline double NumpyNorm(const double* v, int64_t n) { return std::sqrt(NumpyDot(v, v, n)); }

// Installs the loops (called by BindUfuncLoops in cpp/bind/ufunc_loops.h, which reads them
// from NumPy's ufunc objects).
inline void SetExpFloat32Loop(UfuncLoop loop) {
  internal::ExpFloat32Loop().store(loop, std::memory_order_release);
}
inline void SetExpFloat64Loop(UfuncLoop loop) {
  internal::ExpFloat64Loop().store(loop, std::memory_order_release);
}
inline void SetDoubleDot(DotFunc dot) {
  internal::DoubleDot().store(dot, std::memory_order_release);
}

}  // namespace numpy_math
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_NUMPY_UFUNC_LOOPS_H_
