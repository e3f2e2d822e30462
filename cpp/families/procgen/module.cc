// envfleet._procgen: the Procgen family (procgen 0.10.7's games, run by its engine library
// libenv.so from OpenAI's procgen 0.10.7 wheel, installed beside this module by procgen.cmake).
// Task ids and options: src/envfleet/families/procgen.py.
#include <nanobind/nanobind.h>

#include <stdexcept>
#include <string>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "bind/module_folder.h"
#include "families/procgen/procgen_env.h"

namespace envfleet::procgen {

std::string EngineRoot() {
  return bind::ModuleFolder(reinterpret_cast<void*>(&EngineRoot), "envfleet._procgen") +
         "procgen_engine";
}

}  // namespace envfleet::procgen

namespace {
struct ProcgenModule {};  // tags this module's Pool type (cpp/bind/env_module.h)
}  // namespace

NB_MODULE(_procgen, m) {
  m.doc() =
      "envfleet's Procgen family: procgen 0.10.7's 16 games, one engine instance per env, "
      "stepped by the pool into zero-copy batches.";
  static envfleet::EnvTypeMap types = {
      {"Procgen", envfleet::MakeEnvType<envfleet::procgen::ProcgenEnv>()}};
  // The engine is loaded with the module, so that a missing or broken one fails the import,
  // which make() reports as EngineNotInstalledError (naming the extra and the build note).
  try {
    envfleet::procgen::Api();
    envfleet::procgen::CheckAssets();
  } catch (const std::exception& e) {
    throw nanobind::import_error(e.what());
  }
  envfleet::bind::BindEnvModule<ProcgenModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
}
