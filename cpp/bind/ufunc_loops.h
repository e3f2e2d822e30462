// BindUfuncLoops(): reads NumPy's float32 and float64 exp loops from the np.exp ufunc object,
// its float64 dot function from the float64 dtype, and installs them for
// cpp/common/numpy/ufunc_loops.h (NpExpF, NpExp, NumpyDot). Called by a module's NB_MODULE body
// (GIL held); a module whose envs compute np.exp or float64 dot products calls it once. It uses
// NumPy's C-API table, which the including translation unit holds (bind/env_module.h: no
// PY_ARRAY_UNIQUE_SYMBOL), and imports it.
#ifndef ENVFLEET_BIND_UFUNC_LOOPS_H_
#define ENVFLEET_BIND_UFUNC_LOOPS_H_

#include <nanobind/nanobind.h>

#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>

#include <cstring>

#include "common/numpy/ufunc_loops.h"

namespace envfleet {
namespace bind {

// The loop of `ufunc` (a one-input, one-output ufunc) for input and output type `type_num`,
// or null: the first entry of its type table with that signature, the one NumPy's own type
// resolution picks for an array of that type.
inline numpy_math::UfuncLoop UnaryUfuncLoop(PyObject* ufunc, int type_num) {
  // (The type is checked by name: PyUFunc_Type is reached through NumPy's umath C-API table,
  // which this module does not import.)
  if (std::strcmp(Py_TYPE(ufunc)->tp_name, "numpy.ufunc") != 0) return nullptr;
  const auto* object = reinterpret_cast<const PyUFuncObject*>(ufunc);
  if (object->nin != 1 || object->nout != 1 || object->functions == nullptr) return nullptr;
  for (int i = 0; i < object->ntypes; ++i) {
    if (object->types[2 * i] == type_num && object->types[2 * i + 1] == type_num) {
      return reinterpret_cast<numpy_math::UfuncLoop>(object->functions[i]);
    }
  }
  return nullptr;
}

inline void BindUfuncLoops() {
  namespace nb = nanobind;
  nb::object exp = nb::module_::import_("numpy").attr("exp");
  numpy_math::SetExpFloat32Loop(UnaryUfuncLoop(exp.ptr(), NPY_FLOAT));
  numpy_math::SetExpFloat64Loop(UnaryUfuncLoop(exp.ptr(), NPY_DOUBLE));
  if (_import_array() < 0) throw nb::python_error();
  PyArray_Descr* float64 = PyArray_DescrFromType(NPY_DOUBLE);  // a new reference
  if (float64 == nullptr) throw nb::python_error();
  numpy_math::SetDoubleDot(
      reinterpret_cast<numpy_math::DotFunc>(PyDataType_GetArrFuncs(float64)->dotfunc));
  Py_DECREF(float64);
}

}  // namespace bind
}  // namespace envfleet

#endif  // ENVFLEET_BIND_UFUNC_LOOPS_H_
