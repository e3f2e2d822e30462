// envfleet._box2d: the Box2D family (Gymnasium 1.4.0's LunarLander, BipedalWalker and CarRacing),
// with Box2D 2.3 from the box2d-py sdist compiled in (box2d.cmake). One env type per
// environment class; task ids, time limits and reward thresholds are in
// src/envfleet/families/box2d.py.
#include <Box2D/Box2D.h>
#include <nanobind/nanobind.h>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "core/registry.h"
// env headers (one line each):
#include "families/box2d/bipedal_walker.h"
#include "families/box2d/car_racing.h"
#include "families/box2d/lunar_lander.h"

namespace envfleet {
namespace {

// One line per env type, each a header in cpp/families/box2d/ included above.
EnvTypeMap Box2dTypes() {
  EnvTypeMap types;
  // env types (one line each):
  types["CarRacing"] = MakeEnvType<box2d::CarRacingEnv>();
  types["BipedalWalker"] = MakeEnvType<box2d::BipedalWalkerEnv>();
  types["LunarLander"] = MakeEnvType<box2d::LunarLanderEnv>();
  return types;
}

struct Box2dModule {};  // tags this module's Pool type (cpp/bind/env_module.h)

}  // namespace
}  // namespace envfleet

NB_MODULE(_box2d, m) {
  m.doc() = "envfleet's Box2D family: Gymnasium's Box2D tasks stepped by the pool.";
  static envfleet::EnvTypeMap types = envfleet::Box2dTypes();
  envfleet::bind::BindEnvModule<envfleet::Box2dModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
}
