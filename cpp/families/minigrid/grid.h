// minigrid.core.grid.Grid (minigrid 3.2.0): a width x height array of cells, each empty
// (kNoObject) or the index of an object of the env's ObjectTable (world_object.h).
//
// Only the world's own grid is a Grid: what minigrid builds per observation (Grid.slice,
// rotate_left, process_vis) is computed on small scratch arrays by view.h.
#ifndef ENVFLEET_FAMILIES_MINIGRID_GRID_H_
#define ENVFLEET_FAMILIES_MINIGRID_GRID_H_

#include <stdexcept>
#include <string>
#include <vector>

#include "families/minigrid/world_object.h"

namespace envfleet::minigrid {

class Grid {
 public:
  // Storage for grids up to width x height; Reset then makes an empty grid of any size
  // within it without allocating.
  void Reserve(int width, int height) { cells_.reserve(static_cast<size_t>(width) * height); }

  // Grid(width, height): every cell empty.
  void Reset(int width, int height) {
    width_ = width;
    height_ = height;
    cells_.assign(static_cast<size_t>(width) * height, kNoObject);
  }

  int width() const { return width_; }
  int height() const { return height_; }
  bool Contains(int x, int y) const { return x >= 0 && x < width_ && y >= 0 && y < height_; }

  // Grid.get / Grid.set, which assert the position is inside: so do these (a port's bug must
  // not read outside the array).
  ObjectId Get(int x, int y) const {
    Check(x, y);
    return cells_[static_cast<size_t>(y) * width_ + x];
  }
  ObjectId Get(Pos pos) const { return Get(pos.x, pos.y); }
  void Set(int x, int y, ObjectId id) {
    Check(x, y);
    cells_[static_cast<size_t>(y) * width_ + x] = id;
  }
  void Set(Pos pos, ObjectId id) { Set(pos.x, pos.y, id); }

  // The cells, row-major (cell (x, y) at y * width + x), for scans of the whole grid.
  const ObjectId* cells() const { return cells_.data(); }

  // horz_wall / vert_wall / wall_rect with obj_type one stateless kind (Wall, Lava): every
  // cell gets that kind's one object (ObjectTable::Static). length < 0 is minigrid's None:
  // up to the grid's edge.
  void HorzWall(int x, int y, int length, ObjectId wall) {
    if (length < 0) length = width_ - x;
    for (int i = 0; i < length; ++i) Set(x + i, y, wall);
  }
  void VertWall(int x, int y, int length, ObjectId wall) {
    if (length < 0) length = height_ - y;
    for (int j = 0; j < length; ++j) Set(x, y + j, wall);
  }
  void WallRect(int x, int y, int w, int h, ObjectId wall) {
    HorzWall(x, y, w, wall);
    HorzWall(x, y + h - 1, w, wall);
    VertWall(x, y, h, wall);
    VertWall(x + w - 1, y, h, wall);
  }

 private:
  void Check(int x, int y) const {
    if (!Contains(x, y)) {
      throw std::logic_error("minigrid: cell (" + std::to_string(x) + ", " + std::to_string(y) +
                             ") outside the " + std::to_string(width_) + "x" +
                             std::to_string(height_) + " grid");
    }
  }

  int width_ = 0;
  int height_ = 0;
  std::vector<ObjectId> cells_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_GRID_H_
