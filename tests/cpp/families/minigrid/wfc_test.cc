// The MiniGrid WFC mazes' pieces (cpp/families/minigrid/wfc_*.h, cpp/common/cpython/): what
// holds whatever minigrid does: a solved wave obeys the adjacency everywhere, the level keeps
// one connected area holding the start and the goal, the set replay keeps set semantics and
// its bounds. The levels themselves are compared with minigrid 3.2.0 in
// tests/families/minigrid/test_minigrid_wfc.py, the set order with CPython in
// tests/core/test_cpython_set_order.py.
#include "families/minigrid/wfc.h"

#include <array>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "common/cpython/set_order.h"
#include "common/numpy/random.h"
#include "families/minigrid/wfc_level.h"
#include "families/minigrid/wfc_patterns.h"
#include "families/minigrid/wfc_presets.h"
#include "families/minigrid/wfc_solver.h"

namespace envfleet::minigrid {
namespace {

TEST(MiniGridWfc, SolvedWavesObeyTheAdjacencyEverywhere) {
  for (size_t preset = 0; preset < kWfcPresets.size(); ++preset) {
    const WfcPatternCatalog& catalog = PatternCatalogOf(preset);
    const bool wraps = kWfcPresets[preset].output_periodic;
    for (const int side : {4, 11, 23}) {
      WfcSolver solver(catalog, side, side, wraps);
      int solved = 0;
      for (uint64_t seed = 0; seed < 6; ++seed) {
        NumpyGenerator rng(seed);
        if (!solver.Solve(rng, 1000)) continue;
        ++solved;
        for (int r = 0; r < side; ++r) {
          for (int c = 0; c < side; ++c) {
            const int q = solver.PatternAt(r, c);
            for (int d = 0; d < kNumWfcDirections; ++d) {
              int nr = r + kWfcDirections[d][0], nc = c + kWfcDirections[d][1];
              if (wraps) {
                nr = (nr + side) % side;
                nc = (nc + side) % side;
              } else if (nr < 0 || nr >= side || nc < 0 || nc >= side) {
                continue;
              }
              const int p = solver.PatternAt(nr, nc);
              CHECK(((catalog.allowed[d][q] >> p) & 1) != 0);
            }
          }
        }
      }
      CHECK_GT(solved, 0);
    }
  }
}

TEST(MiniGridWfc, CataloguesAreBuiltOncePerPreset) {
  CHECK(&PatternCatalogOf(2) == &PatternCatalogOf(2));
  for (size_t preset = 0; preset < kWfcPresets.size(); ++preset) {
    const WfcPatternCatalog& catalog = PatternCatalogOf(preset);
    CHECK_GT(catalog.count, 1);
    CHECK_LE(catalog.count, kMaxPatterns);
    for (int p = 0; p < catalog.count; ++p) {
      CHECK_GE(catalog.weight[p], 1.0);  // each pattern occurs in 1 to 8 of the images
      CHECK_LE(catalog.weight[p], 8.0);
    }
  }
  CHECK_THROWS_WITH(std::invalid_argument, "'MazeSimple', 'DungeonMazeScaled'",
                    WfcPresetIndex("Maze", "wfc_config"));
  CHECK_THROWS_WITH(std::invalid_argument, "wfc_preset 'Spirals'",
                    WfcPresetIndex("Spirals", "wfc_preset"));
}

constexpr std::array<std::array<int, 2>, 4> kSteps = {{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}};

// The size of the 4-connected area of `open` cells around `from`.
size_t AreaSize(const std::vector<bool>& open, int rows, int cols, int from) {
  std::set<int> seen = {from};
  std::vector<int> todo = {from};
  while (!todo.empty()) {
    const int cell = todo.back();
    todo.pop_back();
    for (const auto [dr, dc] : kSteps) {
      const int r = cell / cols + dr, c = cell % cols + dc;
      if (r < 0 || r >= rows || c < 0 || c >= cols || !open[r * cols + c]) continue;
      if (seen.insert(r * cols + c).second) todo.push_back(r * cols + c);
    }
  }
  return seen.size();
}

TEST(MiniGridWfc, LevelsKeepTheLargestAreaWithTheStartAndTheGoalInIt) {
  constexpr int kRows = 15, kCols = 13, kCells = kRows * kCols;
  NumpyGenerator maps(7);
  WfcLevelGraph level(kRows, kCols);
  int picked = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<bool> navigable(kCells);
    const double density = 0.3 + 0.4 * maps.Random();
    for (int cell = 0; cell < kCells; ++cell) {
      navigable[cell] = maps.Random() < density;
      level.SetNavigable(cell / kCols, cell % kCols, navigable[cell]);
    }
    NumpyGenerator rng(static_cast<uint64_t>(round));
    const bool connected = round % 2 == 0;
    try {
      level.Pick(connected, rng);
    } catch (const std::runtime_error&) {
      continue;  // no two connected cells (or navigable ones): minigrid's IndexError
    }
    ++picked;
    CHECK_NE(level.start(), level.goal());
    CHECK(level.Kept(level.start() / kCols, level.start() % kCols));
    CHECK(level.Kept(level.goal() / kCols, level.goal() % kCols));
    std::vector<bool> kept(kCells);
    size_t kept_count = 0;
    for (int cell = 0; cell < kCells; ++cell) {
      kept[cell] = level.Kept(cell / kCols, cell % kCols);
      kept_count += kept[cell] ? 1 : 0;
      if (kept[cell]) CHECK(navigable[cell]);
      if (!connected) CHECK_EQ(kept[cell], navigable[cell]);
    }
    if (!connected) continue;
    // One area, and no larger one among the navigable cells.
    CHECK_EQ(AreaSize(kept, kRows, kCols, level.start()), kept_count);
    for (int cell = 0; cell < kCells; ++cell) {
      if (navigable[cell]) CHECK_LE(AreaSize(navigable, kRows, kCols, cell), kept_count);
    }
  }
  CHECK_GT(picked, 200);
}

TEST(MiniGridWfc, TheSetReplayKeepsSetSemanticsWithinItsSize) {
  cpython::Set set(100);
  for (int round = 0; round < 2; ++round) {
    set.Clear();
    for (int i = 0; i < 100; ++i) set.Add(i, cpython::PairHash(i / 10, i % 10));
    for (int i = 0; i < 100; i += 3) set.Add(i, cpython::PairHash(i / 10, i % 10));  // again
    CHECK_EQ(set.size(), 100u);
    std::set<int> seen;
    set.ForEach([&](int32_t key) { CHECK(seen.insert(key).second); });
    CHECK_EQ(seen.size(), 100u);
  }
  cpython::Set small(3);
  CHECK_THROWS(std::logic_error, [&] {
    for (int i = 0; i < 40; ++i) small.Add(i, cpython::PairHash(0, i));
  }());
}

TEST(MiniGridWfc, TheSameSeedMakesTheSameLevel) {
  Config config = WfcEnv::DefaultConfig();
  config.Set("wfc_config", std::string("ObstaclesHogs3"));
  config.Set("size", int64_t{12});
  WfcEnv a(config, 5), b(config, 5);
  for (int episode = 0; episode < 5; ++episode) {
    a.Reset();
    b.Reset();
    CHECK(a.agent_pos() == b.agent_pos());
    CHECK_EQ(a.agent_dir(), b.agent_dir());
    for (int x = 0; x < 12; ++x) {
      for (int y = 0; y < 12; ++y) CHECK_EQ(a.grid().Get(x, y), b.grid().Get(x, y));
    }
  }
}

}  // namespace
}  // namespace envfleet::minigrid
