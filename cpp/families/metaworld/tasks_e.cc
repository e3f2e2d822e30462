// Group E of the Meta-World tasks (types.h): their env types, named as EnvPool's ids are.
#include "families/metaworld/assembly.h"
#include "families/metaworld/basketball.h"
#include "families/metaworld/box_close.h"
#include "families/metaworld/disassemble.h"
#include "families/metaworld/hammer.h"
#include "families/metaworld/hand_insert.h"
#include "families/metaworld/peg_insert_side.h"
#include "families/metaworld/peg_unplug_side.h"
#include "families/metaworld/stick_pull.h"
#include "families/metaworld/stick_push.h"
#include "families/metaworld/types.h"

namespace envfleet {
namespace metaworld {

void AddTasksE(EnvTypeMap& types) {
  AddTask<Assembly>(types, "Assembly");
  AddTask<Disassemble>(types, "Disassemble");
  AddTask<Basketball>(types, "Basketball");
  AddTask<BoxClose>(types, "BoxClose");
  AddTask<Hammer>(types, "Hammer");
  AddTask<HandInsert>(types, "HandInsert");
  AddTask<PegInsertSide>(types, "PegInsertSide");
  AddTask<PegUnplugSide>(types, "PegUnplugSide");
  AddTask<StickPush>(types, "StickPush");
  AddTask<StickPull>(types, "StickPull");
}

}  // namespace metaworld
}  // namespace envfleet
