// Group B of the Meta-World tasks (types.h): their env types, named as EnvPool's ids are.
#include "families/metaworld/button_press.h"
#include "families/metaworld/button_press_topdown.h"
#include "families/metaworld/button_press_topdown_wall.h"
#include "families/metaworld/button_press_wall.h"
#include "families/metaworld/coffee_button.h"
#include "families/metaworld/coffee_pull.h"
#include "families/metaworld/coffee_push.h"
#include "families/metaworld/dial_turn.h"
#include "families/metaworld/handle_press.h"
#include "families/metaworld/handle_press_side.h"
#include "families/metaworld/types.h"

namespace envfleet {
namespace metaworld {

void AddTasksB(EnvTypeMap& types) {
  AddTask<ButtonPress>(types, "ButtonPress");
  AddTask<ButtonPressWall>(types, "ButtonPressWall");
  AddTask<ButtonPressTopdown>(types, "ButtonPressTopdown");
  AddTask<ButtonPressTopdownWall>(types, "ButtonPressTopdownWall");
  AddTask<CoffeeButton>(types, "CoffeeButton");
  AddTask<CoffeePull>(types, "CoffeePull");
  AddTask<CoffeePush>(types, "CoffeePush");
  AddTask<DialTurn>(types, "DialTurn");
  AddTask<HandlePress>(types, "HandlePress");
  AddTask<HandlePressSide>(types, "HandlePressSide");
}

}  // namespace metaworld
}  // namespace envfleet
