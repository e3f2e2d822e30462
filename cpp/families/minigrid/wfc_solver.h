// minigrid 3.2.0's Wave Function Collapse solver, as WFCEnv runs it: a port of
//   https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/wfc/wfclogic/solver.py
//   https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/wfc/wfclogic/control.py
//   (execute_wfc's solving loop)
// with the heuristics every preset uses: locations by "entropy", patterns "weighted", no
// backtracking.
//
// What is drawn, in minigrid's order, from the env's np_random:
//   np_random.random((rows, cols)) once per level (execute_wfc's choice_random_weighting), times
//     0.1: each cell's preference;
//   then per attempt (at most attempt_limit), per observation, np_random.choice(n, p=...) (one
//     random() draw) for the cell's pattern. A contradiction ends the attempt; the next starts
//     from the full wave with the same preferences.
// The location heuristic is no entropy despite its name: the cell with the least
// preference + (number of patterns still possible) among the undecided ones, the first in
// row-major order on a tie (numpy.argmin). The pattern heuristic draws among the cell's
// possible patterns with probabilities weight / sum of their weights (weights * wave, divided by
// its sum: whole numbers of at most 8 * 64, so the sum is exact in any order of addition),
// NumpyGenerator::ChoiceIndex doing what Generator.choice does with them.
//
// Propagation: minigrid sweeps the whole wave (for each direction, the patterns of each cell's
// neighbour allow a set; the cell keeps what all four allow) until nothing changes. That is the
// greatest set of possibilities below the current one in which every cell's patterns are
// allowed by its neighbours', the same whatever the order of the removals: here a work list
// revisits only the neighbours of cells that changed, and stops at the first empty cell (a
// contradiction then, for minigrid too). Directions are minigrid's (dx, dy) (wfc_patterns.h)
// and the neighbour in direction (dx, dy) of wave cell (x, y) is (x + dx, y + dy) with x the
// row: minigrid applies dx to the wave's first axis, rows, though the adjacency took it along a
// pattern's columns; the patterns come in all eight symmetries, so the levels are no less
// valid, only transposed in their statistics. Beyond the edges a level that does not wrap
// allows everything (the wave is padded with True), one that wraps
// (output_periodic) continues on the other side.
//
// Buffers are sized once for the level; Solve allocates nothing.
#ifndef ENVFLEET_FAMILIES_MINIGRID_WFC_SOLVER_H_
#define ENVFLEET_FAMILIES_MINIGRID_WFC_SOLVER_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "common/numpy/random.h"
#include "families/minigrid/wfc_patterns.h"

namespace envfleet::minigrid {

class WfcSolver {
 public:
  WfcSolver(const WfcPatternCatalog& catalog, int rows, int cols, bool periodic)
      : catalog_(catalog),
        rows_(rows),
        cols_(cols),
        wave_(Cells()),
        initial_wave_(Cells()),
        count_(Cells()),
        initial_count_(Cells()),
        preference_(Cells()),
        queued_(Cells()),
        heap_position_(Cells(), -1) {
    work_.reserve(Cells());
    heap_.reserve(Cells());
    // The cell beside each cell in each direction (x + dx, y + dy with x the row), across the
    // edges when the level wraps, -1 beyond them when it does not.
    neighbour_.resize(Cells() * kNumWfcDirections);
    for (int row = 0; row < rows; ++row) {
      for (int col = 0; col < cols; ++col) {
        for (int d = 0; d < kNumWfcDirections; ++d) {
          int r = row + kWfcDirections[d][0], c = col + kWfcDirections[d][1];
          if (periodic) {
            r = (r + rows) % rows;
            c = (c + cols) % cols;
          }
          const bool inside = r >= 0 && r < rows && c >= 0 && c < cols;
          neighbour_[(static_cast<size_t>(row) * cols + col) * kNumWfcDirections + d] =
              inside ? r * cols + c : -1;
        }
      }
    }
    // The first propagate of every attempt (Solver.solve_next's, before its first
    // observation) starts from the full wave and draws nothing: its result is the same for
    // every attempt and every level, so it is computed once.
    const PatternSet full =
        catalog.count == kMaxPatterns ? ~PatternSet{0} : (PatternSet{1} << catalog.count) - 1;
    std::fill(wave_.begin(), wave_.end(), full);
    std::fill(count_.begin(), count_.end(), std::popcount(full));
    initial_consistent_ = PropagateFromAll();
    initial_wave_ = wave_;
    initial_count_ = count_;
  }

  // execute_wfc(attempt_limit, output_size=(rows, cols), np_random=rng): true with a solved
  // wave (PatternAt), false when every attempt ended in a contradiction (minigrid's pattern
  // None, for which WFCEnv raises RuntimeError).
  bool Solve(NumpyGenerator& rng, int attempt_limit) {
    for (double& p : preference_) p = rng.Random() * 0.1;
    for (int attempt = 0; attempt < attempt_limit; ++attempt) {
      if (RunAttempt(rng)) return true;
    }
    return false;
  }

  // The pattern the solved wave holds at (row, col) (numpy.argmax over the patterns).
  int PatternAt(int row, int col) const {
    return std::countr_zero(wave_[static_cast<size_t>(row) * cols_ + col]);
  }

 private:
  size_t Cells() const { return static_cast<size_t>(rows_) * cols_; }

  // One run of solver.run from the full wave: observe and propagate until every cell has one
  // pattern (true) or one has none (Contradiction: false).
  bool RunAttempt(NumpyGenerator& rng) {
    if (!initial_consistent_) return false;
    wave_ = initial_wave_;
    count_ = initial_count_;
    BuildHeap();
    while (!heap_.empty()) {  // not is_solved
      const int cell = heap_[0];
      SetCell(cell, PatternSet{1} << ChoosePattern(wave_[cell], rng));
      if (!PropagateFrom(cell)) return false;
    }
    return true;
  }

  // ---- makeEntropyLocationHeuristic ---------------------------------------------------------
  // argmin over the cells of preference + count where count > 1 (inf elsewhere): the least
  // weight, the first cell in row-major order among equals. A scan per observation would make
  // a level quadratic in its cells; instead the undecided cells sit in a binary heap ordered by
  // (weight, cell), whose top is that argmin. A weight only falls (counts only fall during an
  // attempt), so a change sifts its cell up, and a cell leaves when it is decided.

  double Weight(int cell) const { return preference_[cell] + static_cast<double>(count_[cell]); }

  bool Before(int a, int b) const {
    const double wa = Weight(a), wb = Weight(b);
    return wa < wb || (wa == wb && a < b);
  }

  void BuildHeap() {
    heap_.clear();
    std::fill(heap_position_.begin(), heap_position_.end(), -1);
    for (int cell = 0; cell < static_cast<int>(Cells()); ++cell) {
      if (count_[cell] > 1) {
        heap_position_[cell] = static_cast<int>(heap_.size());
        heap_.push_back(cell);
      }
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
  }

  void Place(size_t i, int cell) {
    heap_[i] = cell;
    heap_position_[cell] = static_cast<int>(i);
  }

  void SiftUp(size_t i) {
    const int cell = heap_[i];
    while (i > 0 && Before(cell, heap_[(i - 1) / 2])) {
      Place(i, heap_[(i - 1) / 2]);
      i = (i - 1) / 2;
    }
    Place(i, cell);
  }

  void SiftDown(size_t i) {
    const int cell = heap_[i];
    while (true) {
      size_t child = 2 * i + 1;
      if (child >= heap_.size()) break;
      if (child + 1 < heap_.size() && Before(heap_[child + 1], heap_[child])) ++child;
      if (!Before(heap_[child], cell)) break;
      Place(i, heap_[child]);
      i = child;
    }
    Place(i, cell);
  }

  void RemoveFromHeap(int cell) {
    const size_t i = static_cast<size_t>(heap_position_[cell]);
    heap_position_[cell] = -1;
    const int last = heap_.back();
    heap_.pop_back();
    if (last == cell) return;
    Place(i, last);
    SiftDown(i);
    SiftUp(static_cast<size_t>(heap_position_[last]));
  }

  // wave_[cell] = patterns, keeping its count and its place in the heap.
  void SetCell(int cell, PatternSet patterns) {
    wave_[cell] = patterns;
    count_[cell] = static_cast<uint8_t>(std::popcount(patterns));
    if (heap_position_[cell] < 0) return;
    if (count_[cell] <= 1) {
      RemoveFromHeap(cell);
    } else {
      SiftUp(static_cast<size_t>(heap_position_[cell]));
    }
  }

  // makeWeightedPatternHeuristic: np_random.choice(n, p=weights * wave / sum).
  int ChoosePattern(PatternSet possible, NumpyGenerator& rng) {
    const int n = catalog_.count;
    double sum = 0.0;
    for (int p = 0; p < n; ++p) {
      probability_[p] = (possible >> p) & 1 ? catalog_.weight[p] : 0.0;
      sum += probability_[p];
    }
    for (int p = 0; p < n; ++p) probability_[p] /= sum;
    return static_cast<int>(rng.ChoiceIndex(probability_.data(), static_cast<size_t>(n)));
  }

  // The patterns the cell beside `cell` in direction d leaves possible at `cell`: the union
  // of supports[d][p] over its patterns p, read a byte of the set at a time.
  PatternSet AllowedFrom(int cell, int d) const {
    const int beside = neighbour_[static_cast<size_t>(cell) * kNumWfcDirections + d];
    if (beside < 0) return catalog_.any_allowed[d];
    PatternSet allowed = 0;
    const PatternSet patterns = wave_[beside];
    for (int byte = 0; byte < catalog_.bytes; ++byte) {
      allowed |= catalog_.supports_by_byte[d][byte][(patterns >> (8 * byte)) & 0xff];
    }
    return allowed;
  }

  // Narrows `cell` to what its neighbour in direction d allows; queues it if it changed.
  // False when it has nothing left.
  bool Revise(int cell, int d) {
    const PatternSet narrowed = wave_[cell] & AllowedFrom(cell, d);
    if (narrowed == wave_[cell]) return true;
    SetCell(cell, narrowed);
    if (!queued_[cell]) {
      queued_[cell] = 1;
      work_.push_back(cell);
    }
    return narrowed != 0;
  }

  // Revisits, until none is left, the cells whose neighbour in some direction changed: the
  // cell at -(dx, dy) from a changed cell, the one beside it in the opposite direction, reads
  // it in direction (dx, dy).
  bool Drain() {
    while (!work_.empty()) {
      const int changed = work_.back();
      work_.pop_back();
      queued_[changed] = 0;
      for (int d = 0; d < kNumWfcDirections; ++d) {
        const int reader =
            neighbour_[static_cast<size_t>(changed) * kNumWfcDirections + kOppositeWfcDirection[d]];
        if (reader >= 0 && !Revise(reader, d)) return Abandon();
      }
    }
    return true;
  }

  bool PropagateFrom(int cell) {
    queued_[cell] = 1;
    work_.push_back(cell);
    return Drain();
  }

  bool PropagateFromAll() {
    for (int cell = 0; cell < static_cast<int>(Cells()); ++cell) {
      for (int d = 0; d < kNumWfcDirections; ++d) {
        if (!Revise(cell, d)) return Abandon();
      }
    }
    return Drain();
  }

  // A contradiction: the attempt is over, the work list emptied for the next.
  bool Abandon() {
    for (const int cell : work_) queued_[cell] = 0;
    work_.clear();
    return false;
  }

  const WfcPatternCatalog& catalog_;
  const int rows_;
  const int cols_;
  std::vector<PatternSet> wave_;          // the possible patterns of each cell, row-major
  std::vector<PatternSet> initial_wave_;  // the wave after the first propagation
  std::vector<uint8_t> count_;            // how many patterns each cell still has
  std::vector<uint8_t> initial_count_;
  bool initial_consistent_ = true;
  std::vector<double> preference_;  // choice_random_weighting
  std::vector<uint8_t> queued_;
  std::vector<int> work_;
  std::vector<int> neighbour_;      // [cell * 4 + d]: the cell in direction d, or -1
  std::vector<int> heap_;           // the undecided cells, a binary heap by (weight, cell)
  std::vector<int> heap_position_;  // each cell's index in heap_, -1 outside
  std::array<double, kMaxPatterns> probability_{};
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_WFC_SOLVER_H_
