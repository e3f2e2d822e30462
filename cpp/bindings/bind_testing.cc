#include <nanobind/nanobind.h>

void BindNumpyRandomTesting(nanobind::module_& m);

namespace envfleet {

void BindTesting(nanobind::module_& m) { ::BindNumpyRandomTesting(m); }

}  // namespace envfleet
