// Group A of the Meta-World tasks (types.h): their env types, named as EnvPool's ids are.
#include "families/metaworld/bin_picking.h"
#include "families/metaworld/pick_out_of_hole.h"
#include "families/metaworld/pick_place.h"
#include "families/metaworld/pick_place_wall.h"
#include "families/metaworld/push.h"
#include "families/metaworld/push_back.h"
#include "families/metaworld/push_wall.h"
#include "families/metaworld/reach.h"
#include "families/metaworld/reach_wall.h"
#include "families/metaworld/shelf_place.h"
#include "families/metaworld/types.h"

namespace envfleet {
namespace metaworld {

void AddTasksA(EnvTypeMap& types) {
  AddTask<Reach>(types, "Reach");
  AddTask<ReachWall>(types, "ReachWall");
  AddTask<Push>(types, "Push");
  AddTask<PushWall>(types, "PushWall");
  AddTask<PushBack>(types, "PushBack");
  AddTask<PickPlace>(types, "PickPlace");
  AddTask<PickPlaceWall>(types, "PickPlaceWall");
  AddTask<PickOutOfHole>(types, "PickOutOfHole");
  AddTask<ShelfPlace>(types, "ShelfPlace");
  AddTask<BinPicking>(types, "BinPicking");
}

}  // namespace metaworld
}  // namespace envfleet
