// _envfleet_testing's cpython_set_order, cpython_pair_hash and wfc_pattern_catalog: the pieces
// of the MiniGrid WFC levels that can be compared with the interpreter and with minigrid on
// their own: cpp/common/cpython/set_order.h (tests/core/test_cpython_set_order.py) and
// cpp/families/minigrid/wfc_patterns.h (tests/families/minigrid/test_minigrid_wfc.py).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/cpython/set_order.h"
#include "families/minigrid/wfc_patterns.h"
#include "families/minigrid/wfc_presets.h"

namespace nb = nanobind;

namespace envfleet {
namespace {

// The (a, b) pairs of `pairs`, added in order to a cpython::Set, in its iteration order.
nb::list CpythonSetOrder(nb::list pairs) {
  std::vector<std::pair<uint64_t, uint64_t>> items;
  for (nb::handle pair : pairs) {
    nb::tuple t = nb::cast<nb::tuple>(pair);
    items.emplace_back(nb::cast<uint64_t>(t[0]), nb::cast<uint64_t>(t[1]));
  }
  cpython::Set set(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    // Equal pairs must share a key: the first index holding the pair.
    size_t key = i;
    for (size_t j = 0; j < i; ++j) {
      if (items[j] == items[i]) {
        key = j;
        break;
      }
    }
    set.Add(static_cast<int32_t>(key), cpython::PairHash(items[i].first, items[i].second));
  }
  nb::list out;
  set.ForEach([&](int32_t key) {
    out.append(nb::make_tuple(items[static_cast<size_t>(key)].first,
                              items[static_cast<size_t>(key)].second));
  });
  return out;
}

nb::dict WfcPatternCatalog(const std::string& preset) {
  const minigrid::WfcPatternCatalog& catalog =
      minigrid::PatternCatalogOf(minigrid::WfcPresetIndex(preset, "preset"));
  nb::list weights, is_wall, allowed;
  for (int p = 0; p < catalog.count; ++p) {
    weights.append(catalog.weight[p]);
    is_wall.append(catalog.is_wall[p]);
  }
  for (int d = 0; d < minigrid::kNumWfcDirections; ++d) {
    nb::list rows;
    for (int q = 0; q < catalog.count; ++q) rows.append(catalog.allowed[d][q]);
    allowed.append(rows);
  }
  nb::dict out;
  out["count"] = catalog.count;
  out["weights"] = weights;
  out["is_wall"] = is_wall;
  out["allowed"] = allowed;
  return out;
}

}  // namespace

void BindMinigridWfcTesting(nanobind::module_& m) {
  m.def("cpython_set_order", &CpythonSetOrder, nb::arg("pairs"),
        nb::sig("def cpython_set_order(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]"),
        "The pairs, added in order to envfleet::cpython::Set, in its iteration order.");
  m.def("cpython_pair_hash", &cpython::PairHash, nb::arg("a"), nb::arg("b"),
        "envfleet::cpython::PairHash(a, b): hash((a, b)) as an unsigned 64-bit int.");
  m.def("wfc_pattern_catalog", &WfcPatternCatalog, nb::arg("preset"),
        nb::sig("def wfc_pattern_catalog(preset: str) -> dict[str, object]"),
        "The WFC preset's pattern catalogue (cpp/families/minigrid/wfc_patterns.h): count,\n"
        "weights, is_wall (per pattern, in minigrid's order) and allowed[d][q] (bit sets).");
}

}  // namespace envfleet
