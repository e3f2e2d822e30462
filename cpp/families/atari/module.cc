// envfleet._atari: the Atari family (ALE 0.12.1, GPL-2.0, statically linked into this module
// and into no other). Task ids and options: src/envfleet/families/atari.py.
#include <nanobind/nanobind.h>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "families/atari/atari_env.h"

namespace {
struct AtariModule {};  // tags this module's Pool type (cpp/bind/env_module.h)
}  // namespace

NB_MODULE(_atari, m) {
  m.doc() =
      "envfleet's Atari family: ALE 0.12.1 (GPL-2.0) stepped by the pool into zero-copy batches.";
  static envfleet::EnvTypeMap types = {
      {"Atari", envfleet::MakeEnvType<envfleet::atari::AtariEnv>()}};
  envfleet::bind::BindEnvModule<AtariModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
}
