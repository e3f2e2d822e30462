// MiniGrid's frames, pixel for pixel: Grid.render_tile / Grid.render (minigrid 3.2.0,
// minigrid/core/grid.py), each object's render() (minigrid/core/world_object.py) and the
// helpers of minigrid/utils/rendering.py.
//
// A tile is drawn at 3x its size (subdivs = 3): grid lines, the object, the agent's triangle,
// the highlight, then downsampled by averaging 3x3 blocks. Every step repeats NumPy's
// arithmetic:
//   - fill_coords samples each pixel at ((x + 0.5) / w, (y + 0.5) / h) in float64 and assigns
//     the colour as uint8 (a float colour, Floor's COLORS / 2 or a locked door's 0.45 * c, is
//     truncated);
//   - point_in_line and point_in_triangle hold their points in float32 arrays: the
//     differences, norms and dot products among them are float32 (np.dot of two length-2
//     float32 vectors is (a0 * b0 + a1 * b1) rounded at each step), those with the sampled
//     point float64;
//   - rotate_fn turns the sampled point by math.cos/math.sin of -theta (the same libm here);
//   - highlight_img is v + 0.30 * (255 - v) in float64, truncated;
//   - downsample is img.mean(axis=3).mean(axis=1): ((a + b) + c) / 3 per row of 3 subpixels,
//     then the same over the 3 rows, in float64, and the tile's float64 pixels become uint8
//     (truncated) when Grid.render copies them into the frame.
// -ffp-contract=off (cpp/envfleet.cmake) keeps every product and sum rounded as NumPy's.
//
// Tiles are cached as minigrid caches them (render_tile's tile_cache), by (object encoding,
// agent direction, highlight, tile size), process-wide and thread-safe: a table of atomic
// pointers per tile size, so looking up a drawn tile takes no lock (pixel observations read
// tiles in Write, on the hot path). The first env to need a tile draws it; two drawing the
// same one at once keep the first that lands.
#ifndef ENVFLEET_FAMILIES_MINIGRID_RENDER_H_
#define ENVFLEET_FAMILIES_MINIGRID_RENDER_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <vector>

#include "families/minigrid/grid.h"
#include "families/minigrid/world_object.h"

namespace envfleet::minigrid::render {

inline constexpr int kTilePixels = 32;  // TILE_PIXELS
inline constexpr int kSubdivs = 3;

// An image of height rows of width RGB pixels.
struct Canvas {
  uint8_t* rgb;
  int width;
  int height;
};

// ---- minigrid/utils/rendering.py ------------------------------------------------------------

// fill_coords(img, fn, color)
template <typename Fn>
void FillCoords(const Canvas& img, const Fn& fn, const std::array<uint8_t, 3>& color) {
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      const double yf = (y + 0.5) / img.height;
      const double xf = (x + 0.5) / img.width;
      if (fn(xf, yf))
        std::memcpy(img.rgb + (static_cast<size_t>(y) * img.width + x) * 3, &color, 3);
    }
  }
}

// point_in_rect(xmin, xmax, ymin, ymax)
struct PointInRect {
  double xmin, xmax, ymin, ymax;
  bool operator()(double x, double y) const {
    return x >= xmin && x <= xmax && y >= ymin && y <= ymax;
  }
};

// point_in_circle(cx, cy, r)
struct PointInCircle {
  double cx, cy, r;
  bool operator()(double x, double y) const {
    return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r;
  }
};

// point_in_line(x0, y0, x1, y1, r): p0, p1, dir and dist are float32 (np.float32 arrays and
// np.linalg.norm of one); the rest float64.
class PointInLine {
 public:
  PointInLine(double x0, double y0, double x1, double y1, double r)
      : p0x_(static_cast<float>(x0)), p0y_(static_cast<float>(y0)), r_(r) {
    const float p1x = static_cast<float>(x1), p1y = static_cast<float>(y1);
    float dx = p1x - p0x_, dy = p1y - p0y_;
    dist_ = std::sqrt(dx * dx + dy * dy);
    dirx_ = dx / dist_;
    diry_ = dy / dist_;
    xmin_ = std::min(x0, x1) - r;
    xmax_ = std::max(x0, x1) + r;
    ymin_ = std::min(y0, y1) - r;
    ymax_ = std::max(y0, y1) + r;
  }
  bool operator()(double x, double y) const {
    if (x < xmin_ || x > xmax_ || y < ymin_ || y > ymax_) return false;
    const double pqx = x - p0x_, pqy = y - p0y_;
    double a = pqx * dirx_ + pqy * diry_;                        // np.dot(pq, dir)
    a = std::min(std::max(a, 0.0), static_cast<double>(dist_));  // np.clip(a, 0, dist)
    const double px = p0x_ + a * dirx_, py = p0y_ + a * diry_;
    const double qx = x - px, qy = y - py;
    return std::sqrt(qx * qx + qy * qy) <= r_;
  }

 private:
  float p0x_, p0y_, dist_, dirx_, diry_;
  double r_, xmin_, xmax_, ymin_, ymax_;
};

// point_in_triangle(a, b, c), its corners float32: the dot products among v0 and v1 (and so
// inv_denom) are float32, those with v2 (the sampled point less a) float64.
class PointInTriangle {
 public:
  PointInTriangle(double ax, double ay, double bx, double by, double cx, double cy)
      : ax_(static_cast<float>(ax)), ay_(static_cast<float>(ay)) {
    v0x_ = static_cast<float>(cx) - ax_;
    v0y_ = static_cast<float>(cy) - ay_;
    v1x_ = static_cast<float>(bx) - ax_;
    v1y_ = static_cast<float>(by) - ay_;
    dot00_ = v0x_ * v0x_ + v0y_ * v0y_;
    dot01_ = v0x_ * v1x_ + v0y_ * v1y_;
    dot11_ = v1x_ * v1x_ + v1y_ * v1y_;
    inv_denom_ = 1.0f / (dot00_ * dot11_ - dot01_ * dot01_);
  }
  bool operator()(double x, double y) const {
    const double v2x = x - ax_, v2y = y - ay_;
    const double dot02 = v0x_ * v2x + v0y_ * v2y;
    const double dot12 = v1x_ * v2x + v1y_ * v2y;
    const double u = (dot11_ * dot02 - dot01_ * dot12) * inv_denom_;
    const double v = (dot00_ * dot12 - dot01_ * dot02) * inv_denom_;
    return u >= 0 && v >= 0 && (u + v) < 1;
  }

 private:
  float ax_, ay_, v0x_, v0y_, v1x_, v1y_, dot00_, dot01_, dot11_, inv_denom_;
};

// rotate_fn(fin, cx, cy, theta)
template <typename Fn>
struct Rotated {
  Fn fin;
  double cx, cy, theta;
  bool operator()(double x, double y) const {
    x = x - cx;
    y = y - cy;
    const double x2 = cx + x * std::cos(-theta) - y * std::sin(-theta);
    const double y2 = cy + y * std::cos(-theta) + x * std::sin(-theta);
    return fin(x2, y2);
  }
};

// highlight_img(img): img + 0.30 * (255 - img) in float64, clipped, truncated to uint8.
inline void Highlight(const Canvas& img) {
  const size_t n = static_cast<size_t>(img.width) * img.height * 3;
  for (size_t k = 0; k < n; ++k) {
    const uint8_t v = img.rgb[k];
    const double blend = v + 0.30 * static_cast<uint8_t>(255 - v);
    img.rgb[k] = static_cast<uint8_t>(std::clamp(blend, 0.0, 255.0));
  }
}

// downsample(img, factor) then the float -> uint8 copy Grid.render makes: a tile of
// `size` x `size` from the (size * factor)-square `img`.
inline void Downsample(const uint8_t* img, int size, int factor, uint8_t* out) {
  const int big = size * factor;
  for (int ty = 0; ty < size; ++ty) {
    for (int tx = 0; tx < size; ++tx) {
      for (int c = 0; c < 3; ++c) {
        double rows = 0;  // img.mean(axis=3) of each subpixel row, then .mean(axis=1)
        for (int sy = 0; sy < factor; ++sy) {
          double sum = 0;
          const uint8_t* row = img + (static_cast<size_t>(ty * factor + sy) * big) * 3;
          for (int sx = 0; sx < factor; ++sx) sum += row[(tx * factor + sx) * 3 + c];
          const double mean = sum / factor;
          rows = sy == 0 ? mean : rows + mean;
        }
        out[(static_cast<size_t>(ty) * size + tx) * 3 + c] = static_cast<uint8_t>(rows / factor);
      }
    }
  }
}

// ---- objects (WorldObj.render) ---------------------------------------------------------------

// The drawable state of a cell: its object's encoding (type kUnseen for an empty cell, which
// minigrid keys as None).
struct TileObject {
  Type type = Type::kUnseen;
  Color color = Color::kRed;
  uint8_t state = 0;
};

inline std::array<uint8_t, 3> Scaled(Color color, double factor) {
  const auto& c = kColorRgb[static_cast<int>(color)];
  return {static_cast<uint8_t>(c[0] * factor), static_cast<uint8_t>(c[1] * factor),
          static_cast<uint8_t>(c[2] * factor)};
}

inline void DrawObject(const Canvas& img, const TileObject& obj) {
  const std::array<uint8_t, 3> black = {0, 0, 0};
  const std::array<uint8_t, 3>& c = kColorRgb[static_cast<int>(obj.color)];
  switch (obj.type) {
    case Type::kGoal:
    case Type::kWall:
      FillCoords(img, PointInRect{0, 1, 0, 1}, c);
      break;
    case Type::kFloor:
      FillCoords(img, PointInRect{0.031, 1, 0.031, 1}, Scaled(obj.color, 1.0 / 2));
      break;
    case Type::kLava: {
      FillCoords(img, PointInRect{0, 1, 0, 1}, {255, 128, 0});
      for (int i = 0; i < 3; ++i) {
        const double ylo = 0.3 + 0.2 * i;
        const double yhi = 0.4 + 0.2 * i;
        FillCoords(img, PointInLine(0.1, ylo, 0.3, yhi, 0.03), black);
        FillCoords(img, PointInLine(0.3, yhi, 0.5, ylo, 0.03), black);
        FillCoords(img, PointInLine(0.5, ylo, 0.7, yhi, 0.03), black);
        FillCoords(img, PointInLine(0.7, yhi, 0.9, ylo, 0.03), black);
      }
      break;
    }
    case Type::kDoor:
      if (obj.state == 0) {  // open
        FillCoords(img, PointInRect{0.88, 1.00, 0.00, 1.00}, c);
        FillCoords(img, PointInRect{0.92, 0.96, 0.04, 0.96}, black);
      } else if (obj.state == 2) {  // locked
        FillCoords(img, PointInRect{0.00, 1.00, 0.00, 1.00}, c);
        FillCoords(img, PointInRect{0.06, 0.94, 0.06, 0.94}, Scaled(obj.color, 0.45));
        FillCoords(img, PointInRect{0.52, 0.75, 0.50, 0.56}, c);  // key slot
      } else {
        FillCoords(img, PointInRect{0.00, 1.00, 0.00, 1.00}, c);
        FillCoords(img, PointInRect{0.04, 0.96, 0.04, 0.96}, black);
        FillCoords(img, PointInRect{0.08, 0.92, 0.08, 0.92}, c);
        FillCoords(img, PointInRect{0.12, 0.88, 0.12, 0.88}, black);
        FillCoords(img, PointInCircle{0.75, 0.50, 0.08}, c);  // handle
      }
      break;
    case Type::kKey:
      FillCoords(img, PointInRect{0.50, 0.63, 0.31, 0.88}, c);
      FillCoords(img, PointInRect{0.38, 0.50, 0.59, 0.66}, c);
      FillCoords(img, PointInRect{0.38, 0.50, 0.81, 0.88}, c);
      FillCoords(img, PointInCircle{0.56, 0.28, 0.190}, c);
      FillCoords(img, PointInCircle{0.56, 0.28, 0.064}, black);
      break;
    case Type::kBall:
      FillCoords(img, PointInCircle{0.5, 0.5, 0.31}, c);
      break;
    case Type::kBox:
      FillCoords(img, PointInRect{0.12, 0.88, 0.12, 0.88}, c);
      FillCoords(img, PointInRect{0.18, 0.82, 0.18, 0.82}, black);
      FillCoords(img, PointInRect{0.16, 0.84, 0.47, 0.53}, c);
      break;
    default:
      break;  // an empty cell
  }
}

// Grid.render_tile(obj, agent_dir, highlight, tile_size) into `out` (tile_size^2 RGB pixels).
inline void DrawTile(const TileObject& obj, int agent_dir, bool highlight, int tile_size,
                     uint8_t* out) {
  const int big = tile_size * kSubdivs;
  std::vector<uint8_t> pixels(static_cast<size_t>(big) * big * 3, 0);
  const Canvas img{pixels.data(), big, big};
  FillCoords(img, PointInRect{0, 0.031, 0, 1}, {100, 100, 100});
  FillCoords(img, PointInRect{0, 1, 0, 0.031}, {100, 100, 100});
  DrawObject(img, obj);
  if (agent_dir >= 0) {
    const Rotated<PointInTriangle> triangle{PointInTriangle(0.12, 0.19, 0.87, 0.50, 0.12, 0.81),
                                            0.5, 0.5, 0.5 * std::numbers::pi * agent_dir};
    FillCoords(img, triangle, {255, 0, 0});
  }
  if (highlight) Highlight(img);
  Downsample(pixels.data(), tile_size, kSubdivs, out);
}

// ---- the tile cache --------------------------------------------------------------------------

// Every tile of one size, drawn on first use. Slots: (type, colour, state, agent direction
// + 1, highlight); type kUnseen stands for an empty cell.
class TileSet {
 public:
  explicit TileSet(int tile_size) : tile_size_(tile_size) {
    for (auto& slot : slots_) slot.store(nullptr, std::memory_order_relaxed);
  }
  ~TileSet() {
    for (auto& slot : slots_) delete[] slot.load(std::memory_order_relaxed);
  }
  TileSet(const TileSet&) = delete;
  TileSet& operator=(const TileSet&) = delete;

  int tile_size() const { return tile_size_; }

  const uint8_t* Get(const TileObject& obj, int agent_dir, bool highlight) const {
    const size_t slot =
        (((static_cast<size_t>(obj.type) * kNumColors + static_cast<size_t>(obj.color)) * 3 +
          obj.state) *
             5 +
         static_cast<size_t>(agent_dir + 1)) *
            2 +
        (highlight ? 1 : 0);
    std::atomic<uint8_t*>& cell = slots_[slot];
    if (uint8_t* tile = cell.load(std::memory_order_acquire)) return tile;
    auto* drawn = new uint8_t[static_cast<size_t>(tile_size_) * tile_size_ * 3];
    DrawTile(obj, agent_dir, highlight, tile_size_, drawn);
    uint8_t* expected = nullptr;
    if (cell.compare_exchange_strong(expected, drawn, std::memory_order_acq_rel)) return drawn;
    delete[] drawn;  // another thread drew it first
    return expected;
  }

 private:
  static constexpr size_t kSlots = static_cast<size_t>(kNumTypes) * kNumColors * 3 * 5 * 2;
  int tile_size_;
  mutable std::array<std::atomic<uint8_t*>, kSlots> slots_;
};

// The process's TileSet of `tile_size`, made on first use (an env asks when it is built).
inline const TileSet& TilesOf(int tile_size) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<TileSet>> sets;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<TileSet>& set = sets[tile_size];
  if (!set) set = std::make_unique<TileSet>(tile_size);
  return *set;
}

// The TileObject of a cell.
inline TileObject TileObjectOf(const ObjectTable& objects, ObjectId id) {
  if (id == kNoObject) return {};
  const WorldObject& object = objects[id];
  return {object.type, object.color, object.State()};
}

// Copies a tile into cell (i, j) of a frame of `columns` tiles per row.
inline void PutTile(const uint8_t* tile, int tile_size, int i, int j, int columns, uint8_t* rgb) {
  const size_t row_bytes = static_cast<size_t>(columns) * tile_size * 3;
  const size_t tile_row_bytes = static_cast<size_t>(tile_size) * 3;
  uint8_t* corner = rgb + static_cast<size_t>(j) * tile_size * row_bytes +
                    static_cast<size_t>(i) * tile_row_bytes;
  for (int y = 0; y < tile_size; ++y) {
    std::memcpy(corner + y * row_bytes, tile + y * tile_row_bytes, tile_row_bytes);
  }
}

}  // namespace envfleet::minigrid::render

#endif  // ENVFLEET_FAMILIES_MINIGRID_RENDER_H_
