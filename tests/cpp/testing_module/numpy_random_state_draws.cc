// _envfleet_testing's numpy_random_state_draws, dm_control_tolerance and scipy_zoom_cubic:
// replay draws on envfleet::NumpyRandomState (cpp/common/numpy/random_state.h), evaluate
// envfleet::dm_control::Tolerance (cpp/families/dm_control/rewards.h) and CubicZoom
// (scipy_zoom.h), so that tests/core/test_numpy_random_state.py and
// tests/families/dm_control/test_rewards.py can compare them with live NumPy, dm_control and
// SciPy. None needs MuJoCo.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/numpy/random_state.h"
#include "families/dm_control/rewards.h"
#include "families/dm_control/scipy_zoom.h"

namespace nb = nanobind;

namespace envfleet {
namespace {

nb::list NumpyRandomStateDraws(uint32_t seed, nb::list program) {
  NumpyRandomState rng(seed);
  nb::list out;
  for (nb::handle entry : program) {
    nb::tuple step = nb::cast<nb::tuple>(entry);
    if (step.size() != 3) throw nb::value_error("program entries must be (kind, a, b)");
    const char* kind = nb::cast<const char*>(step[0]);
    if (std::strcmp(kind, "random_sample") == 0) {
      out.append(nb::float_(rng.RandomSample()));
    } else if (std::strcmp(kind, "uniform") == 0) {
      out.append(nb::float_(rng.Uniform(nb::cast<double>(step[1]), nb::cast<double>(step[2]))));
    } else if (std::strcmp(kind, "standard_normal") == 0) {
      out.append(nb::float_(rng.StandardNormal()));
    } else if (std::strcmp(kind, "normal") == 0) {
      out.append(nb::float_(rng.Normal(nb::cast<double>(step[1]), nb::cast<double>(step[2]))));
    } else if (std::strcmp(kind, "randint") == 0) {
      out.append(nb::int_(rng.RandInt(nb::cast<int64_t>(step[1]), nb::cast<int64_t>(step[2]))));
    } else if (std::strcmp(kind, "randint_inclusive") == 0) {
      out.append(
          nb::int_(rng.RandIntInclusive(nb::cast<int64_t>(step[1]), nb::cast<int64_t>(step[2]))));
    } else if (std::strcmp(kind, "choice_index") == 0) {
      out.append(nb::int_(rng.ChoiceIndex(nb::cast<int64_t>(step[1]))));
    } else if (std::strcmp(kind, "choice_p") == 0) {
      const std::vector<double> p = nb::cast<std::vector<double>>(step[1]);
      out.append(nb::int_(rng.ChoiceIndex(p.data(), static_cast<int>(p.size()))));
    } else if (std::strcmp(kind, "uint32") == 0) {
      out.append(nb::int_(rng.NextUint32()));
    } else {
      throw nb::value_error("unknown draw kind");
    }
  }
  return out;
}

double DmControlTolerance(double x, double lower, double upper, double margin,
                          const std::string& sigmoid, double value_at_margin, bool array_input) {
  return dm_control::Tolerance(
      x, lower, upper, margin, dm_control::SigmoidFromName(sigmoid), value_at_margin,
      array_input ? dm_control::Input::kArray : dm_control::Input::kScalar);
}

std::vector<double> ScipyZoomCubic(const std::vector<double>& input, int64_t rows, int64_t cols,
                                   int64_t out_rows, int64_t out_cols) {
  if (static_cast<int64_t>(input.size()) != rows * cols) throw nb::value_error("bad shape");
  std::vector<double> out(out_rows * out_cols);
  dm_control::CubicZoom(rows, cols, out_rows, out_cols).Apply(input.data(), out.data());
  return out;
}

}  // namespace

void BindNumpyRandomStateTesting(nanobind::module_& m) {
  m.def("numpy_random_state_draws", &NumpyRandomStateDraws, nb::arg("seed"), nb::arg("program"),
        nb::sig("def numpy_random_state_draws(seed: int, program: list[tuple[str, float, float]]) "
                "-> list[int | float]"),
        "Seeds envfleet::NumpyRandomState like np.random.RandomState(seed) and runs `program`:\n"
        "(kind, a, b) with kind in random_sample, uniform(a, b), standard_normal, normal(a, b),\n"
        "randint(a, b), randint_inclusive(a, b), choice_index(a), choice_p(a: probabilities),\n"
        "uint32. Integer kinds return int, the rest float.");
  m.def("dm_control_tolerance", &DmControlTolerance, nb::arg("x"), nb::arg("lower"),
        nb::arg("upper"), nb::arg("margin"), nb::arg("sigmoid"), nb::arg("value_at_margin"),
        nb::arg("array_input"),
        "envfleet::dm_control::Tolerance: dm_control's rewards.tolerance(x, (lower, upper),\n"
        "margin, sigmoid, value_at_margin) of a scalar, or of one element of an array.");
  m.def("scipy_zoom_cubic", &ScipyZoomCubic, nb::arg("input"), nb::arg("rows"), nb::arg("cols"),
        nb::arg("out_rows"), nb::arg("out_cols"),
        "envfleet::dm_control::CubicZoom: scipy.ndimage.zoom (order 3, mode 'constant') of\n"
        "a rows x cols array (flattened) to out_rows x out_cols, flattened.");
}

}  // namespace envfleet
