// The folder a module's shared object was loaded from, for the files an engine family installs
// beside its module (ViZDoom's supervisor, Procgen's engine library and assets).
#ifndef ENVFLEET_BIND_MODULE_FOLDER_H_
#define ENVFLEET_BIND_MODULE_FOLDER_H_

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace envfleet::bind {

// The folder, with a trailing '/', of the shared object that holds `address` (any function of
// the module). Throws when the loader cannot say.
inline std::string ModuleFolder(const void* address, const char* module_name) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
    throw std::runtime_error(std::string("cannot locate the ") + module_name + " module file");
  }
  const std::string path = info.dli_fname;
  return path.substr(0, path.rfind('/') + 1);
}

}  // namespace envfleet::bind

#endif  // ENVFLEET_BIND_MODULE_FOLDER_H_
