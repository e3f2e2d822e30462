#include "envs/registry.h"

namespace envfleet {

EnvTypeMap& MutableEnvTypes() {
  static EnvTypeMap types = [] {
    EnvTypeMap map;
    RegisterExample(map);
    RegisterClassicControl(map);
    RegisterToyText(map);
#ifdef ENVFLEET_WITH_ATARI
    RegisterAtari(map);
#endif
#ifdef ENVFLEET_WITH_MUJOCO
    RegisterMujoco(map);
#endif
    return map;
  }();
  return types;
}

}  // namespace envfleet
