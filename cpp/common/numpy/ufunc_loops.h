// NumPy's own inner loops of the ufuncs whose float32 results plain C++ does not reproduce,
// called from C++ so that the results are NumPy's by construction.
//
//   NpExpF   np.exp of a float32 array. NumPy computes it with its own SIMD kernel
//            (numpy/_core/src/umath/loops_exponent_log.dispatch.c.src, simd_exp_FLOAT, on
//            CPUs with AVX2 or AVX512F) or libm's expf, as its CPU dispatch chose at import.
//            On this project's x86-64 machines the kernel differs from glibc's expf in the
//            last bit for about 40% of arguments (MyoSuite's muscle sigmoid goes through it).
//
// The loop is the ufunc's own function pointer for the float32 signature, read from the
// np.exp object (PyUFuncObject.functions, the pointer NumPy's dispatch installed) once, by
// BindUfuncLoops() at a module's import with the GIL held. The loop is a pure function of its
// arguments: workers call it with no GIL, on any number of elements at once (each element's
// result is the same whether it is computed alone or within an array: SIMD lanes are
// independent). Before BindUfuncLoops, or where np.exp has no float32 loop, NpExpF is libm's.
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

namespace internal {
inline std::atomic<UfuncLoop>& ExpFloat32Loop() {
  static std::atomic<UfuncLoop> loop{nullptr};
  return loop;
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

// Installs the loops (called by BindUfuncLoops in cpp/bind/ufunc_loops.h, which reads them
// from NumPy's ufunc objects).
inline void SetExpFloat32Loop(UfuncLoop loop) {
  internal::ExpFloat32Loop().store(loop, std::memory_order_release);
}

}  // namespace numpy_math
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_NUMPY_UFUNC_LOOPS_H_
