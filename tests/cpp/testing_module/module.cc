#include <nanobind/nanobind.h>

namespace envfleet {

void BindNumpyRandomTesting(nanobind::module_& m);
void BindCoreTesting(nanobind::module_& m);

void BindTesting(nanobind::module_& m) {
  BindNumpyRandomTesting(m);
  BindCoreTesting(m);
}

}  // namespace envfleet
