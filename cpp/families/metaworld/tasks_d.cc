// Group D of the Meta-World tasks (types.h): their env types, named as EnvPool's ids are.
#include "families/metaworld/faucet_close.h"
#include "families/metaworld/faucet_open.h"
#include "families/metaworld/plate_slide.h"
#include "families/metaworld/plate_slide_back.h"
#include "families/metaworld/plate_slide_back_side.h"
#include "families/metaworld/plate_slide_side.h"
#include "families/metaworld/soccer.h"
#include "families/metaworld/sweep.h"
#include "families/metaworld/sweep_into.h"
#include "families/metaworld/types.h"
#include "families/metaworld/window_close.h"

namespace envfleet {
namespace metaworld {

void AddTasksD(EnvTypeMap& types) {
  AddTask<WindowClose>(types, "WindowClose");
  AddTask<FaucetOpen>(types, "FaucetOpen");
  AddTask<FaucetClose>(types, "FaucetClose");
  AddTask<PlateSlide>(types, "PlateSlide");
  AddTask<PlateSlideSide>(types, "PlateSlideSide");
  AddTask<PlateSlideBack>(types, "PlateSlideBack");
  AddTask<PlateSlideBackSide>(types, "PlateSlideBackSide");
  AddTask<Soccer>(types, "Soccer");
  AddTask<Sweep>(types, "Sweep");
  AddTask<SweepInto>(types, "SweepInto");
}

}  // namespace metaworld
}  // namespace envfleet
