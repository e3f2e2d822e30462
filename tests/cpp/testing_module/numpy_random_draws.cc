// _envfleet_testing's numpy_generator_draws: replays a program of draws on
// envfleet::NumpyGenerator (cpp/common/numpy/random.h) so tests/core/test_numpy_random.py can
// compare it with live numpy.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/numpy/random.h"

namespace nb = nanobind;

namespace envfleet {
namespace {

// Integer arguments may arrive as Python ints (exact, needed beyond 2^53) or floats.
int64_t ArgToInt64(nb::handle value) {
  if (nb::isinstance<nb::float_>(value)) return static_cast<int64_t>(nb::cast<double>(value));
  return nb::cast<int64_t>(value);
}

nb::list NumpyGeneratorDraws(uint64_t seed, nb::list program) {
  NumpyGenerator rng(seed);
  nb::list out;
  for (nb::handle entry : program) {
    nb::tuple step = nb::cast<nb::tuple>(entry);
    if (step.size() != 3) throw nb::value_error("program entries must be (kind, a, b)");
    const char* kind = nb::cast<const char*>(step[0]);
    if (std::strcmp(kind, "random") == 0) {
      out.append(nb::float_(rng.Random()));
    } else if (std::strcmp(kind, "uniform") == 0) {
      out.append(nb::float_(rng.Uniform(nb::cast<double>(step[1]), nb::cast<double>(step[2]))));
    } else if (std::strcmp(kind, "integers") == 0) {
      out.append(nb::int_(rng.Integers(ArgToInt64(step[1]), ArgToInt64(step[2]))));
    } else if (std::strcmp(kind, "choice_index") == 0) {
      out.append(nb::int_(rng.ChoiceIndex(ArgToInt64(step[1]))));
    } else if (std::strcmp(kind, "standard_normal") == 0) {
      out.append(nb::float_(rng.StandardNormal()));
    } else if (std::strcmp(kind, "interval") == 0) {
      out.append(nb::int_(rng.Interval(static_cast<uint64_t>(ArgToInt64(step[1])))));
    } else if (std::strcmp(kind, "shuffle") == 0) {
      std::vector<int64_t> items(static_cast<size_t>(ArgToInt64(step[1])));
      for (size_t i = 0; i < items.size(); ++i) items[i] = static_cast<int64_t>(i);
      rng.Shuffle(items.data(), items.size());
      nb::list shuffled;
      for (int64_t item : items) shuffled.append(nb::int_(item));
      out.append(shuffled);
    } else if (std::strcmp(kind, "choice_p") == 0) {
      const std::vector<double> p = nb::cast<std::vector<double>>(step[1]);
      out.append(nb::int_(rng.ChoiceIndex(p.data(), p.size())));
    } else if (std::strcmp(kind, "permutation") == 0) {
      std::vector<int64_t> items(static_cast<size_t>(ArgToInt64(step[1])));
      rng.Permutation(items.data(), items.size());
      nb::list permuted;
      for (int64_t item : items) permuted.append(nb::int_(item));
      out.append(permuted);
    } else if (std::strcmp(kind, "uint32") == 0) {
      out.append(nb::int_(rng.NextUint32()));
    } else if (std::strcmp(kind, "uint64") == 0) {
      out.append(nb::int_(rng.NextUint64()));
    } else {
      throw nb::value_error("unknown draw kind");
    }
  }
  return out;
}

}  // namespace

void BindNumpyRandomTesting(nanobind::module_& m) {
  m.def("numpy_generator_draws", &NumpyGeneratorDraws, nb::arg("seed"), nb::arg("program"),
        nb::sig("def numpy_generator_draws(seed: int, program: list[tuple[str, object, float]]) "
                "-> list[int | float | list[int]]"),
        "Seeds envfleet::NumpyGenerator like gymnasium.utils.seeding.np_random(seed) and runs\n"
        "`program`: (kind, a, b) with kind in random, uniform(a, b), integers(a, b),\n"
        "choice_index(a), choice_p(a: probabilities), interval(a), shuffle(a) (of range(a):\n"
        "a list), permutation(a) (a list), standard_normal, uint32, uint64. Integer kinds\n"
        "return int, the rest float; numpy's errors on p raise ValueError.");
}

}  // namespace envfleet
