// Group C of the Meta-World tasks (types.h): their env types, named as EnvPool's ids are.
#include "families/metaworld/door_close.h"
#include "families/metaworld/door_lock.h"
#include "families/metaworld/door_open.h"
#include "families/metaworld/door_unlock.h"
#include "families/metaworld/drawer_close.h"
#include "families/metaworld/drawer_open.h"
#include "families/metaworld/handle_pull.h"
#include "families/metaworld/handle_pull_side.h"
#include "families/metaworld/lever_pull.h"
#include "families/metaworld/types.h"
#include "families/metaworld/window_open.h"

namespace envfleet {
namespace metaworld {

void AddTasksC(EnvTypeMap& types) {
  AddTask<HandlePull>(types, "HandlePull");
  AddTask<HandlePullSide>(types, "HandlePullSide");
  AddTask<LeverPull>(types, "LeverPull");
  AddTask<DoorOpen>(types, "DoorOpen");
  AddTask<DoorClose>(types, "DoorClose");
  AddTask<DoorLock>(types, "DoorLock");
  AddTask<DoorUnlock>(types, "DoorUnlock");
  AddTask<DrawerOpen>(types, "DrawerOpen");
  AddTask<DrawerClose>(types, "DrawerClose");
  AddTask<WindowOpen>(types, "WindowOpen");
}

}  // namespace metaworld
}  // namespace envfleet
