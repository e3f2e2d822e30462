// The extension module envfleet._core: the pool and env registry, plus a test-only
// submodule (_core._testing) that exposes C++ units to the Python test suite.
#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace envfleet {
void BindPool(nb::module_& m);
void BindBench(nb::module_& m);
void BindFunctionEnv(nb::module_& m);
void BindTesting(nb::module_& m);
}  // namespace envfleet

NB_MODULE(_core, m) {
  m.doc() = "envfleet's C++ core: environments stepped by a thread pool into zero-copy batches.";
  envfleet::BindPool(m);
  envfleet::BindBench(m);
  envfleet::BindFunctionEnv(m);
  nb::module_ testing = m.def_submodule("_testing", "C++ units exposed for tests only.");
  envfleet::BindTesting(testing);
}
