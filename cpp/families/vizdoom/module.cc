// envfleet._vizdoom: the ViZDoom family (the client library of vizdoom 1.3.2, MIT, linked into
// this module; engines run as processes under vizdoom_supervisor). Task ids and options:
// src/envfleet/families/vizdoom.py.
#include <nanobind/nanobind.h>

#include <string>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "bind/module_folder.h"
#include "families/vizdoom/vizdoom_env.h"

namespace envfleet::vizdoom {

// The supervisor is installed beside this module (vizdoom.cmake).
std::string SupervisorPath() {
  const std::string path =
      bind::ModuleFolder(reinterpret_cast<void*>(&SupervisorPath), "envfleet._vizdoom") +
      "vizdoom_supervisor";
  files::CheckFile("vizdoom_supervisor (installed with envfleet)", path, uintmax_t{1} << 28);
  return path;
}

}  // namespace envfleet::vizdoom

namespace {
struct VizdoomModule {};  // tags this module's Pool type (cpp/bind/env_module.h)
}  // namespace

NB_MODULE(_vizdoom, m) {
  m.doc() =
      "envfleet's ViZDoom family: Doom scenarios run by ViZDoom 1.3.2 engine processes, stepped "
      "by the pool into zero-copy batches.";
  static envfleet::EnvTypeMap types = {
      {"Vizdoom", envfleet::MakeEnvType<envfleet::vizdoom::VizdoomEnv>()}};
  envfleet::bind::BindEnvModule<VizdoomModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
}
