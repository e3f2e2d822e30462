// What the agent sees: MiniGridEnv.gen_obs_grid and Grid.encode (minigrid 3.2.0,
// minigrid/minigrid_env.py and minigrid/core/grid.py), on scratch arrays instead of the new
// Grid objects minigrid builds for every observation.
//
// gen_obs_grid slices the agent_view_size square in front of the agent out of the world
// (cells outside the world are grey walls), turns it left agent_dir + 1 times so the agent
// looks up from the middle of the bottom row, runs process_vis (unless see_through_walls),
// empties the cells it cannot see, and puts what the agent carries (or nothing) on its own
// cell. Grid.encode then writes (type, colour, state) per cell, zeros where unseen, indexed
// [i][j] = [column][row] as minigrid's arrays are.
#ifndef ENVFLEET_FAMILIES_MINIGRID_VIEW_H_
#define ENVFLEET_FAMILIES_MINIGRID_VIEW_H_

#include <cstdint>
#include <cstring>

#include "families/minigrid/grid.h"
#include "families/minigrid/world_object.h"

namespace envfleet::minigrid {

// The agent's pose and view parameters, as gen_obs_grid reads them.
struct AgentView {
  Pos pos;
  int dir = 0;
  int size = 7;  // agent_view_size (odd, >= 3)
  bool see_through_walls = false;
  ObjectId carrying = kNoObject;
};

// get_view_exts: the world position of the view square's corner (before rotation).
inline Pos ViewCorner(const AgentView& agent) {
  const int half = agent.size / 2;
  switch (agent.dir) {
    case 0:  // facing right
      return {agent.pos.x, agent.pos.y - half};
    case 1:  // facing down
      return {agent.pos.x - half, agent.pos.y};
    case 2:  // facing left
      return {agent.pos.x - agent.size + 1, agent.pos.y - half};
    default:  // facing up
      return {agent.pos.x - half, agent.pos.y - agent.size + 1};
  }
}

// The cell (i, j) of the rotated view as a cell (si, sj) of the slice: rotate_left maps
// old (i, j) to new (j, n - 1 - i), and the view is the slice turned agent_dir + 1 times
// (four turns, facing up, leave it as it is).
inline Pos SliceCellOfView(int dir, int n, int i, int j) {
  switch (dir) {
    case 0:
      return {n - 1 - j, i};
    case 1:
      return {n - 1 - i, n - 1 - j};
    case 2:
      return {j, n - 1 - i};
    default:
      return {i, j};
  }
}

// Grid.process_vis(agent_pos=(n // 2, n - 1)) over the view's cells (row-major, j * n + i):
// light spreads from the agent's cell rightwards then leftwards along each row, and up one
// row past any cell that can be seen behind, bottom row first. `visible` gets 1 per seen cell.
inline void ProcessVisibility(const ObjectTable& objects, const ObjectId* cells, int n,
                              uint8_t* visible) {
  std::memset(visible, 0, static_cast<size_t>(n) * n);
  visible[(n - 1) * n + n / 2] = 1;
  const auto see_behind = [&](int i, int j) {
    const ObjectId id = cells[j * n + i];
    return id == kNoObject || objects[id].SeeBehind();
  };
  for (int j = n - 1; j >= 0; --j) {
    for (int i = 0; i < n - 1; ++i) {
      if (!visible[j * n + i] || !see_behind(i, j)) continue;
      visible[j * n + i + 1] = 1;
      if (j > 0) {
        visible[(j - 1) * n + i + 1] = 1;
        visible[(j - 1) * n + i] = 1;
      }
    }
    for (int i = n - 1; i >= 1; --i) {
      if (!visible[j * n + i] || !see_behind(i, j)) continue;
      visible[j * n + i - 1] = 1;
      if (j > 0) {
        visible[(j - 1) * n + i - 1] = 1;
        visible[(j - 1) * n + i] = 1;
      }
    }
  }
}

// gen_obs_grid: the view's cells (row-major, j * n + i, n = agent.size) and which of them
// the agent sees. Unseen cells are emptied, as process_vis empties them, and the agent's cell
// holds what it carries.
inline void ComputeView(const Grid& grid, const ObjectTable& objects, const AgentView& agent,
                        ObjectId* cells, uint8_t* visible) {
  const int n = agent.size;
  const Pos corner = ViewCorner(agent);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const Pos s = SliceCellOfView(agent.dir, n, i, j);
      const int x = corner.x + s.x, y = corner.y + s.y;
      cells[j * n + i] = grid.Contains(x, y) ? grid.Get(x, y) : ObjectTable::kGreyWall;
    }
  }
  if (agent.see_through_walls) {
    std::memset(visible, 1, static_cast<size_t>(n) * n);
  } else {
    ProcessVisibility(objects, cells, n, visible);
    for (int k = 0; k < n * n; ++k) {
      if (!visible[k]) cells[k] = kNoObject;
    }
  }
  cells[(n - 1) * n + n / 2] = agent.carrying;
}

// One cell's encoding: an object's (type, colour, state), (1, 0, 0) for an empty cell.
inline void EncodeCell(const ObjectTable& objects, ObjectId id, uint8_t* out) {
  if (id == kNoObject) {
    out[0] = static_cast<uint8_t>(Type::kEmpty);
    out[1] = 0;
    out[2] = 0;
    return;
  }
  const WorldObject& object = objects[id];
  out[0] = static_cast<uint8_t>(object.type);
  out[1] = static_cast<uint8_t>(object.color);
  out[2] = object.State();
}

// Grid.encode(vis_mask) of the view: image[i][j] = cell (i, j), zeros where unseen.
inline void EncodeView(const ObjectTable& objects, const ObjectId* cells, const uint8_t* visible,
                       int n, uint8_t* image) {
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      uint8_t* out = image + (static_cast<size_t>(i) * n + j) * 3;
      if (visible[j * n + i]) {
        EncodeCell(objects, cells[j * n + i], out);
      } else {
        out[0] = out[1] = out[2] = 0;
      }
    }
  }
}

// FullyObsWrapper: grid.encode() of the whole world, [x][y], with the agent's cell replaced
// by (agent, red, agent_dir).
inline void EncodeFullGrid(const Grid& grid, const ObjectTable& objects, Pos agent_pos,
                           int agent_dir, uint8_t* image) {
  const int w = grid.width(), h = grid.height();
  for (int x = 0; x < w; ++x) {
    for (int y = 0; y < h; ++y) {
      EncodeCell(objects, grid.Get(x, y), image + (static_cast<size_t>(x) * h + y) * 3);
    }
  }
  uint8_t* agent = image + (static_cast<size_t>(agent_pos.x) * h + agent_pos.y) * 3;
  agent[0] = static_cast<uint8_t>(Type::kAgent);
  agent[1] = static_cast<uint8_t>(Color::kRed);
  agent[2] = static_cast<uint8_t>(agent_dir);
}

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_VIEW_H_
