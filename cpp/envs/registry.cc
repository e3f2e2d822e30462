#include "envs/registry.h"

namespace envfleet {

const EnvTypeMap& EnvTypes() {
  static const EnvTypeMap types = [] {
    EnvTypeMap map;
    RegisterExample(map);
    RegisterClassicControl(map);
    RegisterToyText(map);
    return map;
  }();
  return types;
}

}  // namespace envfleet
