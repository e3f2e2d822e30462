// A private temporary folder that lives as long as its owner: the ViZDoom engine writes its
// ini (and a save folder) where its -config points, which would otherwise be the user's
// working directory. The supervisor removes the folder too if the owning process dies first
// (supervisor.cc: the -config file's folder, when its name carries this prefix).
#ifndef ENVFLEET_FAMILIES_VIZDOOM_SCRATCH_DIR_H_
#define ENVFLEET_FAMILIES_VIZDOOM_SCRATCH_DIR_H_

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace envfleet {
namespace vizdoom {

class ScratchDir {
 public:
  // The folder is made under $TMPDIR (or /tmp) with a name starting with `prefix`.
  explicit ScratchDir(const std::string& prefix) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + prefix + "XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (mkdtemp(name.data()) == nullptr) {
      throw std::runtime_error("cannot make a temporary folder " + pattern + ": " +
                               std::strerror(errno));
    }
    path_ = name.data();
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace vizdoom
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_VIZDOOM_SCRATCH_DIR_H_
