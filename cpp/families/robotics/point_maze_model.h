// PointMaze's maze and model: gymnasium-robotics 1.4.2's gymnasium_robotics/envs/maze/maps.py
// (the named mazes) and maze_v4.py's Maze.make_maze (the cells' centres, the goal and reset
// cells, the walls and the target site written into the agent's XML). Depends on MuJoCo only,
// so that a test can build the model on its own and compare it with the reference's, byte for
// byte (tests/families/robotics/test_maze.py).
#ifndef ENVFLEET_FAMILIES_ROBOTICS_POINT_MAZE_MODEL_H_
#define ENVFLEET_FAMILIES_ROBOTICS_POINT_MAZE_MODEL_H_

#include <mujoco/mujoco.h>

#include <array>
#include <charconv>
#include <cstring>
#include <fstream>
#include <locale>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace envfleet {
namespace robotics {

// ---- Maps -------------------------------------------------------------------------------------

// maps.py's mazes, by their names there (EnvPool's maze_map values), row by row: 1 a wall,
// 0 a free cell, r a reset cell (RESET), g a goal cell (GOAL), c both (COMBINED).
struct NamedMaze {
  const char* name;
  const char* rows;
};

inline constexpr NamedMaze kNamedMazes[] = {
    {"EMPTY_MAZE", "11111/10001/11101/10001/11111"},
    {"U_MAZE", "11111/10001/11101/10001/11111"},
    {"OPEN", "1111111/1000001/1000001/1000001/1111111"},
    {"OPEN_DIVERSE_G", "1111111/1rgggg1/1ggggg1/1ggggg1/1111111"},
    {"OPEN_DIVERSE_GR", "1111111/1ccccc1/1ccccc1/1ccccc1/1111111"},
    {"MEDIUM_MAZE", "11111111/10011001/10010001/11000111/10010001/10100101/10001001/11111111"},
    {"MEDIUM_MAZE_DIVERSE_G",
     "11111111/1r011001/100100g1/11000111/10010001/1g100101/10001g01/11111111"},
    {"MEDIUM_MAZE_DIVERSE_GR",
     "11111111/1c011001/100100c1/11000111/10010001/1c100101/10001c01/11111111"},
    {"LARGE_MAZE",
     "111111111111/100001000001/101101010101/100000010001/101111011101/100101000001/"
     "110101010111/100100010001/111111111111"},
    {"LARGE_MAZE_DIVERSE_G",
     "111111111111/1r0001g00001/101101010101/10000g0100g1/101111011101/10g101000001/"
     "110101010111/1001g0g10g01/111111111111"},
    {"LARGE_MAZE_DIVERSE_GR",
     "111111111111/1c0001c00001/101101010101/10000c0100c1/101111011101/10c101000001/"
     "110101010111/1001c0c10c01/111111111111"},
};

// A maze map: rows x cols cells in row-major order, each one of '1', '0', 'r', 'g', 'c'.
struct MazeMap {
  int rows = 0, cols = 0;
  std::string cells;

  char at(int i, int j) const { return cells[static_cast<size_t>(i) * cols + j]; }
};

// The maze_map option: a name of maps.py (kNamedMazes), or a map of one's own written the
// same way, its rows separated by '/' or newlines (blanks ignored), e.g. "111/1g1/1r1/111"
// for the reference's [[1, 1, 1], [1, "g", 1], [1, "r", 1], [1, 1, 1]].
inline MazeMap ParseMazeMap(const std::string& value) {
  std::string rows = value;
  for (const NamedMaze& maze : kNamedMazes) {
    if (value == maze.name) rows = maze.rows;
  }
  MazeMap map;
  std::string row;
  auto end_row = [&] {
    if (row.empty()) return;
    if (map.rows > 0 && static_cast<int>(row.size()) != map.cols) {
      throw std::invalid_argument("maze_map: every row must have as many cells as the first (" +
                                  std::to_string(map.cols) + "), row " + std::to_string(map.rows) +
                                  " has " + std::to_string(row.size()) + ": '" + value + "'");
    }
    map.cols = static_cast<int>(row.size());
    map.cells += row;
    ++map.rows;
    row.clear();
  };
  for (char c : rows) {
    if (c == '/' || c == '\n') {
      end_row();
    } else if (c == ' ' || c == '\t' || c == '\r') {
      continue;
    } else if (std::strchr("10rgc", c) != nullptr && c != '\0') {
      row += c;
    } else {
      std::string names;
      for (const NamedMaze& maze : kNamedMazes) {
        names += std::string(names.empty() ? "" : ", ") + maze.name;
      }
      throw std::invalid_argument(
          "maze_map must name a maze (" + names +
          ") or give one as rows of cells 1 (wall), 0 (free), r (reset), g (goal), c (goal or "
          "reset) separated by '/' or newlines, e.g. '111/1g1/1r1/111'; got '" +
          value + "'");
    }
  }
  end_row();
  if (map.rows == 0) throw std::invalid_argument("maze_map must have at least one cell");
  return map;
}

// ---- The maze ---------------------------------------------------------------------------------

// A finite double as the shortest digits that read back as it: the digits of Python's
// str(float), with which the reference writes the numbers of its XML (the notation may differ,
// e.g. "1" for "1.0"; MuJoCo's parser reads either back as the same double).
inline std::string PyFloat(double value) {
  char buffer[64];
  const std::to_chars_result end = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end.ptr);
}

// Maze.make_maze: the cells' centres and the XML elements that the reference appends to the
// agent's worldbody. Cell (i, j) is centred at x = (j + 0.5) s - x_map_center,
// y = y_map_center - (i + 0.5) s, the maze centred on the origin.
struct MazeLayout {
  std::vector<std::array<double, 2>> goals;   // unique_goal_locations, in the reference's order
  std::vector<std::array<double, 2>> resets;  // unique_reset_locations
  std::string worldbody_xml;                  // the walls' geoms and the target site

  MazeLayout(const MazeMap& map, double scaling, double height) {
    const double x_map_center = map.cols / 2.0 * scaling;
    const double y_map_center = map.rows / 2.0 * scaling;
    const double half_height = height / 2 * scaling;
    std::vector<std::array<double, 2>> combined, empty;
    std::ostringstream xml;
    xml.imbue(std::locale::classic());  // cell indices without a locale's digit grouping
    for (int i = 0; i < map.rows; ++i) {
      for (int j = 0; j < map.cols; ++j) {
        const double x = (j + 0.5) * scaling - x_map_center;
        const double y = y_map_center - (i + 0.5) * scaling;
        switch (map.at(i, j)) {
          case '1':
            xml << "<geom name=\"block_" << i << "_" << j << "\" pos=\"" << PyFloat(x) << " "
                << PyFloat(y) << " " << PyFloat(half_height) << "\" size=\""
                << PyFloat(0.5 * scaling) << " " << PyFloat(0.5 * scaling) << " "
                << PyFloat(half_height)
                << "\" type=\"box\" material=\"\" contype=\"1\" conaffinity=\"1\" "
                   "rgba=\"0.7 0.5 0.3 1.0\" />\n";
            break;
          case 'r':
            resets.push_back({x, y});
            break;
          case 'g':
            goals.push_back({x, y});
            break;
          case 'c':
            combined.push_back({x, y});
            break;
          default:
            empty.push_back({x, y});
        }
      }
    }
    xml << "<site name=\"target\" pos=\"0 0 " << PyFloat(half_height) << "\" size=\""
        << PyFloat(0.2 * scaling) << "\" rgba=\"1 0 0 0.7\" type=\"sphere\" />\n";
    worldbody_xml = xml.str();
    // Without r, g or c cells any free cell is a goal and a reset; without r or c cells (but
    // g ones) any free cell is a reset; without g or c cells (but r ones) any free cell a goal.
    if (goals.empty() && resets.empty() && combined.empty()) {
      combined = empty;
    } else if (resets.empty() && combined.empty()) {
      resets = empty;
    } else if (goals.empty() && combined.empty()) {
      goals = empty;
    }
    goals.insert(goals.end(), combined.begin(), combined.end());
    resets.insert(resets.end(), combined.begin(), combined.end());
  }
};

// The model of the agent file `agent_path` with the maze's elements added before the end of
// its worldbody, where the reference's ElementTree appends them: the same elements and
// attributes, read by the same parser (from memory, through a VFS, where the reference writes
// a temporary file). Compiled once per agent file, map, scaling and height, and shared.
inline std::shared_ptr<const mjModel> LoadMazeModel(const std::string& agent_path,
                                                    const MazeMap& map, double scaling,
                                                    double height) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const mjModel>> cache;
  const std::string key = agent_path + "\n" + std::to_string(map.cols) + "\n" + map.cells + "\n" +
                          PyFloat(scaling) + "\n" + PyFloat(height);
  std::lock_guard<std::mutex> lock(mutex);
  std::weak_ptr<const mjModel>& slot = cache[key];
  if (std::shared_ptr<const mjModel> model = slot.lock()) return model;

  std::ifstream file(agent_path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  if (!file) throw std::invalid_argument("xml_file: could not read '" + agent_path + "'");
  std::string xml = text.str();
  const size_t end = xml.rfind("</worldbody>");
  if (end == std::string::npos) {
    throw std::invalid_argument("xml_file: '" + agent_path +
                                "' has no <worldbody> to put the "
                                "maze in");
  }
  xml.insert(end, MazeLayout(map, scaling, height).worldbody_xml);

  static const char kName[] = "point_maze.xml";
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  if (mj_addBufferVFS(&vfs, kName, xml.data(), static_cast<int>(xml.size())) != 0) {
    mj_deleteVFS(&vfs);
    throw std::runtime_error("MuJoCo could not hold the maze's XML in its virtual file system");
  }
  char error[1024] = "";
  mjModel* raw = mj_loadXML(kName, &vfs, error, sizeof(error));
  mj_deleteVFS(&vfs);
  if (raw == nullptr) {
    throw std::invalid_argument("MuJoCo could not load the maze made from '" + agent_path +
                                "': " + error);
  }
  std::shared_ptr<const mjModel> model(
      raw, [](const mjModel* m) { mj_deleteModel(const_cast<mjModel*>(m)); });
  slot = model;
  return model;
}

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_POINT_MAZE_MODEL_H_
