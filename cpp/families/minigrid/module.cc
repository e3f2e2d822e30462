// envfleet._minigrid: the MiniGrid family, ports of minigrid 3.2.0's grid worlds (pure C++,
// no engine). One env type per minigrid env class; task ids and per-id options are in
// src/envfleet/families/minigrid.py, the time limits are each env's own max_steps.
#include <nanobind/nanobind.h>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "core/registry.h"
// env headers (one line each):
#include "families/minigrid/crossing.h"
#include "families/minigrid/dist_shift.h"
#include "families/minigrid/door_key.h"
#include "families/minigrid/dynamic_obstacles.h"
#include "families/minigrid/empty.h"
#include "families/minigrid/fetch.h"
#include "families/minigrid/four_rooms.h"
#include "families/minigrid/go_to_door.h"
#include "families/minigrid/go_to_object.h"
#include "families/minigrid/key_corridor.h"
#include "families/minigrid/lava_gap.h"
#include "families/minigrid/locked_room.h"
#include "families/minigrid/memory.h"
#include "families/minigrid/multi_room.h"
#include "families/minigrid/obstructed_maze.h"
#include "families/minigrid/playground.h"
#include "families/minigrid/put_near.h"
#include "families/minigrid/red_blue_doors.h"
#include "families/minigrid/unlock.h"
// WFC (issue #32):
#include "families/minigrid/wfc.h"
// BabyAI's levels (their types are compiled in babyai/level_types.cc):
#include "families/minigrid/babyai/level_types.h"

namespace envfleet {
namespace {

// One line per env type, each a header in cpp/families/minigrid/ included above.
EnvTypeMap MiniGridTypes() {
  using namespace minigrid;  // NOLINT(build/namespaces): the env classes, one per line
  EnvTypeMap types;
  // env types (one line each):
  types["MiniGridEmpty"] = MakeEnvType<EmptyEnv>();
  types["MiniGridDoorKey"] = MakeEnvType<DoorKeyEnv>();
  types["MiniGridDistShift"] = MakeEnvType<DistShiftEnv>();
  types["MiniGridCrossing"] = MakeEnvType<CrossingEnv>();
  types["MiniGridLavaGap"] = MakeEnvType<LavaGapEnv>();
  types["MiniGridDynamicObstacles"] = MakeEnvType<DynamicObstaclesEnv>();
  types["MiniGridFetch"] = MakeEnvType<FetchEnv>();
  types["MiniGridFourRooms"] = MakeEnvType<FourRoomsEnv>();
  types["MiniGridGoToDoor"] = MakeEnvType<GoToDoorEnv>();
  types["MiniGridGoToObject"] = MakeEnvType<GoToObjectEnv>();
  types["MiniGridKeyCorridor"] = MakeEnvType<KeyCorridorEnv>();
  types["MiniGridLockedRoom"] = MakeEnvType<LockedRoomEnv>();
  types["MiniGridMemory"] = MakeEnvType<MemoryEnv>();
  types["MiniGridMultiRoom"] = MakeEnvType<MultiRoomEnv>();
  types["MiniGridObstructedMaze1Dlhb"] = MakeEnvType<ObstructedMaze1DlhbEnv>();
  types["MiniGridObstructedMazeFull"] = MakeEnvType<ObstructedMazeFullEnv>();
  types["MiniGridObstructedMazeFullV1"] = MakeEnvType<ObstructedMazeFullV1Env>();
  types["MiniGridPlayground"] = MakeEnvType<PlaygroundEnv>();
  types["MiniGridPutNear"] = MakeEnvType<PutNearEnv>();
  types["MiniGridRedBlueDoors"] = MakeEnvType<RedBlueDoorsEnv>();
  types["MiniGridUnlock"] = MakeEnvType<UnlockEnv>();
  types["MiniGridUnlockPickup"] = MakeEnvType<UnlockPickupEnv>();
  types["MiniGridBlockedUnlockPickup"] = MakeEnvType<BlockedUnlockPickupEnv>();
  // WFC (issue #32):
  types["MiniGridWFC"] = MakeEnvType<WfcEnv>();
  // BabyAI's levels:
  babyai::AddLevelTypes(types);
  return types;
}

struct MiniGridModule {};  // tags this module's Pool type (cpp/bind/env_module.h)

}  // namespace
}  // namespace envfleet

NB_MODULE(_minigrid, m) {
  m.doc() = "envfleet's MiniGrid family: minigrid's grid worlds stepped by the pool.";
  static envfleet::EnvTypeMap types = envfleet::MiniGridTypes();
  envfleet::bind::BindEnvModule<envfleet::MiniGridModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
}
