// The PointMaze env type (point_maze.h): one type for every maze, the maze_map option naming
// it (U_MAZE by default, as PointMazeEnv's maze_map defaults to maps.U_MAZE).
#include "families/robotics/point_maze.h"
#include "families/robotics/types.h"

namespace envfleet {
namespace robotics {

void AddMazeTypes(EnvTypeMap& types) {
  types["PointMaze"] = MakeRobotType<PointMazeEnv>(PointMazeEnv::Defaults("U_MAZE"));
}

}  // namespace robotics
}  // namespace envfleet
