// The patterns a WFC preset's image yields and how they may neighbour, as minigrid 3.2.0's
// solver receives them: a port of
//   https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/wfc/wfclogic/tiles.py
//   https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/wfc/wfclogic/patterns.py
//   https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/wfc/wfclogic/adjacency.py
//   https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/wfc/wfclogic/utilities.py
//   (hash_downto)
// and the part of control.py's execute_wfc that numbers the patterns and weighs them.
//
// minigrid identifies tiles and patterns by hashes, and the hashes order the patterns: a
// pattern's index (its place in the wave, hence which pattern a draw picks) is its rank among
// the signed 64-bit hashes. So the hashes are computed as minigrid computes them:
// hash_downto(a, rank) is np.inner of each row of values with
// np.random.RandomState(0).randint(1 - 2**63, 2**63, row_length, dtype=np.int64), in int64
// with wrap-around (here unsigned arithmetic, the same bits):
//   a tile (1 pixel at tile_size 1): R v0 + G v1 + B v2;
//   a pattern (k x k tiles, k = pattern_width): the sum of tile[i][j] v[i k + j].
// Patterns are the k x k windows at every cell of the image, wrapping at its edges (for
// input_periodic False too: minigrid pads with mode="wrap" in both branches), taken from the
// image and seven transforms of it, each applied to the previous one: fliplr, rot90
// clockwise, fliplr, rot90, fliplr, rot90, fliplr. A pattern's weight is the number of those
// eight images it occurs in (make_pattern_catalog counts each pattern once per image: a
// Counter over the unique patterns), not how often.
//
// Adjacency (adjacency_extraction's is_valid_overlap_xy): in direction (dx, dy), pattern p may
// follow pattern q when q's tiles equal p's shifted by (dx, dy): q[r][c] == p[r - dy][c - dx]
// wherever both exist, dx along the pattern's columns. The directions, in minigrid's order:
// (0, -1), (1, 0), (0, 1), (-1, 0).
//
// A catalogue depends on the preset alone: it is built once per process (PatternCatalogOf),
// the first time an env of that preset is made.
#ifndef ENVFLEET_FAMILIES_MINIGRID_WFC_PATTERNS_H_
#define ENVFLEET_FAMILIES_MINIGRID_WFC_PATTERNS_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/numpy/random_state.h"
#include "families/minigrid/wfc_presets.h"

namespace envfleet::minigrid {

// A cell's possible patterns are a bit set: the six presets have 5 to 42 patterns.
using PatternSet = uint64_t;
inline constexpr int kMaxPatterns = 64;
inline constexpr int kNumWfcDirections = 4;
// (dx, dy) of execute_wfc's direction_offsets.
inline constexpr std::array<std::array<int, 2>, kNumWfcDirections> kWfcDirections = {
    {{0, -1}, {1, 0}, {0, 1}, {-1, 0}}};
inline constexpr std::array<int, kNumWfcDirections> kOppositeWfcDirection = {2, 3, 0, 1};

struct WfcPatternCatalog {
  int count = 0;                              // patterns, numbered by ascending (signed) hash
  std::array<double, kMaxPatterns> weight{};  // execute_wfc's encoded_weights
  // Whether the pattern's top-left tile, the pixel it puts in the level, is a wall
  // (WFCEnv._pattern_to_minigrid_layout: a red channel of 0).
  std::array<bool, kMaxPatterns> is_wall{};
  // allowed[d][q]: the patterns p that may lie in direction d of q (adjacency_list[d][q]).
  std::array<std::array<PatternSet, kMaxPatterns>, kNumWfcDirections> allowed{};
  // supports[d][p]: the patterns q that p, lying in direction d of them, allows.
  std::array<std::array<PatternSet, kMaxPatterns>, kNumWfcDirections> supports{};
  // The patterns q with any allowed[d][q]: what a cell beyond the edge of a level that does
  // not wrap leaves possible (minigrid pads the wave with True there).
  std::array<PatternSet, kNumWfcDirections> any_allowed{};
  // supports_by_byte[d][b][v]: the union of supports[d][p] over the patterns p = 8 b + i with
  // bit i of v set, so that the solver gets a set's supports in `bytes` lookups.
  int bytes = 0;  // (count + 7) / 8
  std::array<std::array<std::array<PatternSet, 256>, kMaxPatterns / 8>, kNumWfcDirections>
      supports_by_byte{};
};

namespace wfc_internal {

// hash_downto's weights for rows of `length` values: the first `length` draws of
// RandomState(0).randint(1 - 2**63, 2**63, length, dtype=np.int64).
inline std::vector<uint64_t> HashWeights(size_t length) {
  NumpyRandomState state(0);
  std::vector<uint64_t> weights(length);
  for (uint64_t& w : weights) {
    w = static_cast<uint64_t>(state.RandIntInclusive(INT64_MIN + 1, INT64_MAX));
  }
  return weights;
}

// A grid of tile hashes, row-major.
struct TileGrid {
  int rows = 0, cols = 0;
  std::vector<uint64_t> tiles;
  uint64_t at(int r, int c) const { return tiles[static_cast<size_t>(r) * cols + c]; }
};

// np.fliplr
inline TileGrid FlipLeftRight(const TileGrid& g) {
  TileGrid out{g.rows, g.cols, std::vector<uint64_t>(g.tiles.size())};
  for (int r = 0; r < g.rows; ++r) {
    for (int c = 0; c < g.cols; ++c)
      out.tiles[static_cast<size_t>(r) * g.cols + c] = g.at(r, g.cols - 1 - c);
  }
  return out;
}

// np.rot90(g, axes=(1, 0)): a quarter turn clockwise, out[i][j] = g[rows - 1 - j][i].
inline TileGrid RotateClockwise(const TileGrid& g) {
  TileGrid out{g.cols, g.rows, std::vector<uint64_t>(g.tiles.size())};
  for (int i = 0; i < out.rows; ++i) {
    for (int j = 0; j < out.cols; ++j)
      out.tiles[static_cast<size_t>(i) * out.cols + j] = g.at(g.rows - 1 - j, i);
  }
  return out;
}

// Fills `catalog` (64 KiB, hence not returned by value) from the preset's image.
inline void BuildPatternCatalog(const WfcPreset& preset, WfcPatternCatalog& catalog) {
  const int k = preset.pattern_width;
  // make_tile_catalog: each pixel's hash, and each hash's colour.
  const std::vector<uint64_t> pixel_weights = HashWeights(3);
  TileGrid image{
      static_cast<int>(preset.image.size()), static_cast<int>(preset.image[0].size()), {}};
  std::map<uint64_t, Rgb> tile_color;
  for (const std::string_view row : preset.image) {
    if (static_cast<int>(row.size()) != image.cols) throw std::logic_error("ragged WFC image");
    for (const char pixel : row) {
      const Rgb rgb = WfcPixelColor(pixel);
      const uint64_t hash =
          rgb.r * pixel_weights[0] + rgb.g * pixel_weights[1] + rgb.b * pixel_weights[2];
      image.tiles.push_back(hash);
      tile_color[hash] = rgb;
    }
  }

  // make_pattern_catalog_with_rotations: the windows of the eight images.
  const std::vector<uint64_t> window_weights = HashWeights(static_cast<size_t>(k) * k);
  struct Pattern {
    std::vector<uint64_t> tiles;  // k x k, row-major
    int weight = 0;
  };
  std::map<int64_t, Pattern> patterns;  // by signed hash: iterates in minigrid's order
  TileGrid g = image;
  enum class Op { kIdentity, kFlip, kRotate };
  constexpr std::array<Op, 8> kOps = {Op::kIdentity, Op::kFlip, Op::kRotate, Op::kFlip,
                                      Op::kRotate,   Op::kFlip, Op::kRotate, Op::kFlip};
  for (const Op op : kOps) {
    if (op == Op::kFlip) g = FlipLeftRight(g);
    if (op == Op::kRotate) g = RotateClockwise(g);
    std::map<int64_t, std::vector<uint64_t>> in_this_image;
    for (int r = 0; r < g.rows; ++r) {
      for (int c = 0; c < g.cols; ++c) {
        std::vector<uint64_t> window(static_cast<size_t>(k) * k);
        uint64_t hash = 0;
        for (int i = 0; i < k; ++i) {
          for (int j = 0; j < k; ++j) {
            const uint64_t tile = g.at((r + i) % g.rows, (c + j) % g.cols);
            window[static_cast<size_t>(i) * k + j] = tile;
            hash += tile * window_weights[static_cast<size_t>(i) * k + j];
          }
        }
        in_this_image.emplace(static_cast<int64_t>(hash), std::move(window));
      }
    }
    for (auto& [hash, window] : in_this_image) {
      Pattern& pattern = patterns[hash];
      pattern.tiles = window;
      ++pattern.weight;
    }
  }
  if (patterns.size() > static_cast<size_t>(kMaxPatterns)) {
    throw std::logic_error("WFC preset " + std::string(preset.name) + " has " +
                           std::to_string(patterns.size()) + " patterns, more than " +
                           std::to_string(kMaxPatterns));
  }

  catalog = WfcPatternCatalog{};
  catalog.count = static_cast<int>(patterns.size());
  std::vector<const std::vector<uint64_t>*> tiles;
  for (const auto& [hash, pattern] : patterns) {
    catalog.weight[tiles.size()] = pattern.weight;
    catalog.is_wall[tiles.size()] = tile_color.at(pattern.tiles[0]).r == 0;
    tiles.push_back(&pattern.tiles);
  }
  for (int d = 0; d < kNumWfcDirections; ++d) {
    const int dx = kWfcDirections[d][0], dy = kWfcDirections[d][1];
    for (int q = 0; q < catalog.count; ++q) {
      for (int p = 0; p < catalog.count; ++p) {
        bool overlap = true;
        for (int r = std::max(0, dy); r < std::min(k, k + dy) && overlap; ++r) {
          for (int c = std::max(0, dx); c < std::min(k, k + dx); ++c) {
            if ((*tiles[q])[static_cast<size_t>(r) * k + c] !=
                (*tiles[p])[static_cast<size_t>(r - dy) * k + (c - dx)]) {
              overlap = false;
              break;
            }
          }
        }
        if (!overlap) continue;
        catalog.allowed[d][q] |= PatternSet{1} << p;
        catalog.supports[d][p] |= PatternSet{1} << q;
        catalog.any_allowed[d] |= PatternSet{1} << q;
      }
    }
  }
  catalog.bytes = (catalog.count + 7) / 8;
  for (int d = 0; d < kNumWfcDirections; ++d) {
    for (int byte = 0; byte < catalog.bytes; ++byte) {
      for (int value = 1; value < 256; ++value) {
        const int low = std::countr_zero(static_cast<unsigned>(value));
        const int p = 8 * byte + low;
        catalog.supports_by_byte[d][byte][value] =
            catalog.supports_by_byte[d][byte][value & (value - 1)] |
            (p < catalog.count ? catalog.supports[d][p] : 0);
      }
    }
  }
}

}  // namespace wfc_internal

// The catalogue of kWfcPresets[preset], built on first use (thread-safe) and kept.
inline const WfcPatternCatalog& PatternCatalogOf(size_t preset) {
  static const std::vector<WfcPatternCatalog> catalogs = [] {
    std::vector<WfcPatternCatalog> all(kWfcPresets.size());
    for (size_t i = 0; i < all.size(); ++i)
      wfc_internal::BuildPatternCatalog(kWfcPresets[i], all[i]);
    return all;
  }();
  return catalogs.at(preset);
}

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_WFC_PATTERNS_H_
