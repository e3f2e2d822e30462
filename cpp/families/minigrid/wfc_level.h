// From a solved WFC image to the cells of a level, its start and its goal: a port of what
// minigrid 3.2.0's WFCEnv._gen_grid does between execute_wfc and Grid.decode
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/wfc/wfcenv.py:
// _get_largest_component, _place_start_and_goal_random; and
// https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/wfc/graphtransforms.py:
// minigrid_layout_to_dense_graph, dense_graph_to_minigrid), without networkx: its graph is the
// image's 4-neighbour grid over the navigable (non-wall) cells, and all that matters of it is
// which cells stay navigable and the order in which networkx lists them, since the start and
// the goal are picked by index into that list: np_random.permutation(len(nodes))[:2].
//
// The order, read from networkx 3.x (algorithms/components/connected.py, classes/graph.py,
// classes/coreviews.py, classes/filters.py), for a level of N navigable cells:
//   - ensure_connected False: every navigable cell, row-major (the dense graph's nodes, added
//     sorted).
//   - ensure_connected True: the largest connected component of more than one cell (the first
//     found among equals: connected_components starts a breadth-first search from each cell
//     not yet reached, row-major, and sorted(key=len, reverse=True) is stable), of M cells.
//     If 2 M >= N, its cells row-major. Else (a view's FilterAtlas iterates its filter's node
//     set when that set is under half the graph) the iteration order of a Python set: _plain_bfs
//     returns a set filled in breadth-first order (neighbours up, left, down, right: the order
//     the dense graph's edges were added in); graph.subgraph(c).copy() lists set(c)'s order,
//     graph.subgraph(component) that of a set filled in that order again (cpython::Set).
// minigrid raises IndexError when no component has two cells (or, not connected, the level
// has fewer than two navigable cells); so does this, as std::runtime_error.
//
// The level keeps its navigable cells (only the component's, with ensure_connected) and makes
// every other cell a wall; the start is the agent's cell (empty), the goal a Goal.
#ifndef ENVFLEET_FAMILIES_MINIGRID_WFC_LEVEL_H_
#define ENVFLEET_FAMILIES_MINIGRID_WFC_LEVEL_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/cpython/set_order.h"
#include "common/numpy/random.h"

namespace envfleet::minigrid {

class WfcLevelGraph {
 public:
  WfcLevelGraph(int rows, int cols)
      : rows_(rows),
        cols_(cols),
        navigable_(Cells()),
        kept_(Cells()),
        reached_(Cells()),
        node_hash_(Cells()),
        search_(Cells()),
        nodes_(Cells()),
        permutation_(Cells()),
        bfs_set_(Cells()),
        copy_set_(Cells()),
        view_set_(Cells()) {
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        node_hash_[static_cast<size_t>(r) * cols + c] =
            cpython::PairHash(static_cast<uint64_t>(r), static_cast<uint64_t>(c));
      }
    }
  }

  // Set before Pick: whether image cell (row, col) is navigable.
  void SetNavigable(int row, int col, bool navigable) {
    navigable_[static_cast<size_t>(row) * cols_ + col] = navigable ? 1 : 0;
  }

  // _get_largest_component (if ensure_connected) and _place_start_and_goal_random: decides
  // the cells kept and draws the start and the goal (row-major indices).
  void Pick(bool ensure_connected, NumpyGenerator& rng) {
    size_t num_nodes = ensure_connected ? LargestComponentNodes() : NavigableNodes();
    rng.Permutation(permutation_.data(), num_nodes);
    if (num_nodes < 2) throw std::runtime_error("WFC level: list index out of range");
    start_ = nodes_[static_cast<size_t>(permutation_[0])];
    goal_ = nodes_[static_cast<size_t>(permutation_[1])];
  }

  // After Pick: whether image cell (row, col) stays navigable, and the start and the goal.
  bool Kept(int row, int col) const { return kept_[static_cast<size_t>(row) * cols_ + col] != 0; }
  int start() const { return start_; }
  int goal() const { return goal_; }

 private:
  size_t Cells() const { return static_cast<size_t>(rows_) * cols_; }

  // Every navigable cell, row-major, in nodes_; all kept.
  size_t NavigableNodes() {
    size_t count = 0;
    for (int cell = 0; cell < static_cast<int>(Cells()); ++cell) {
      kept_[cell] = navigable_[cell];
      if (navigable_[cell]) nodes_[count++] = cell;
    }
    return count;
  }

  // The largest component's cells, in networkx's order (see the top), in nodes_; only they
  // are kept. minigrid's IndexError if there is none of two cells or more.
  size_t LargestComponentNodes() {
    std::fill(reached_.begin(), reached_.end(), 0);
    std::fill(kept_.begin(), kept_.end(), 0);
    size_t navigable = 0, best_begin = 0, best_size = 0, end = 0;
    for (int cell = 0; cell < static_cast<int>(Cells()); ++cell) {
      if (!navigable_[cell]) continue;
      ++navigable;
      if (reached_[cell]) continue;
      const size_t begin = end;
      reached_[cell] = 1;
      search_[end++] = cell;
      for (size_t next = begin; next < end; ++next) {
        const int row = search_[next] / cols_, col = search_[next] % cols_;
        for (const auto [dr, dc] : kNeighbourOrder) {
          const int r = row + dr, c = col + dc;
          if (r < 0 || r >= rows_ || c < 0 || c >= cols_) continue;
          const int neighbour = r * cols_ + c;
          if (!navigable_[neighbour] || reached_[neighbour]) continue;
          reached_[neighbour] = 1;
          search_[end++] = neighbour;
        }
      }
      if (end - begin > best_size) {
        best_size = end - begin;
        best_begin = begin;
      }
    }
    if (best_size < 2) throw std::runtime_error("WFC level: list index out of range");
    for (size_t i = best_begin; i < best_begin + best_size; ++i) kept_[search_[i]] = 1;
    size_t count = 0;
    if (2 * best_size >= navigable) {
      for (int cell = 0; cell < static_cast<int>(Cells()); ++cell) {
        if (kept_[cell]) nodes_[count++] = cell;
      }
      return count;
    }
    // _plain_bfs's set, then set(c) (the subgraph's filter, copied), then the set over that copy.
    bfs_set_.Clear();
    for (size_t i = best_begin; i < best_begin + best_size; ++i) AddNode(bfs_set_, search_[i]);
    copy_set_.Clear();
    bfs_set_.ForEach([this](int32_t cell) { AddNode(copy_set_, cell); });
    view_set_.Clear();
    copy_set_.ForEach([this](int32_t cell) { AddNode(view_set_, cell); });
    view_set_.ForEach([this, &count](int32_t cell) { nodes_[count++] = cell; });
    return count;
  }

  void AddNode(cpython::Set& set, int cell) const { set.Add(cell, node_hash_[cell]); }

  // The dense graph's adjacency order: up, left, down, right.
  static constexpr std::array<std::array<int, 2>, 4> kNeighbourOrder = {
      {{-1, 0}, {0, -1}, {1, 0}, {0, 1}}};

  const int rows_;
  const int cols_;
  std::vector<uint8_t> navigable_;
  std::vector<uint8_t> kept_;
  std::vector<uint8_t> reached_;
  std::vector<uint64_t> node_hash_;  // hash((row, col))
  std::vector<int> search_;          // the breadth-first searches, one after the other
  std::vector<int> nodes_;           // the nodes networkx lists, in its order
  std::vector<int64_t> permutation_;
  cpython::Set bfs_set_;
  cpython::Set copy_set_;
  cpython::Set view_set_;
  int start_ = -1;
  int goal_ = -1;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_WFC_LEVEL_H_
