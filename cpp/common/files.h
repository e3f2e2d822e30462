// Options that name files and folders (rom_dir, xml_file, assets_dir, ...) come from Python
// unchecked; these checks run before anything reads them. A path must lead to what the option
// promises: a folder, or a regular file of bounded size. Anything else would be worse than an
// unclear error: a FIFO blocks the reader forever, a device such as /dev/zero (or a link to
// one) never ends, a folder read as a file fails deep inside an engine. Every message names
// the option and the path.
#ifndef ENVFLEET_COMMON_FILES_H_
#define ENVFLEET_COMMON_FILES_H_

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace envfleet::files {

// What `path` is, following links, or why it cannot be looked at.
inline std::filesystem::file_status StatusOf(const std::string& option, const std::string& path) {
  if (path.find('\0') != std::string::npos) {
    throw std::invalid_argument(option + " contains a NUL character");
  }
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error && status.type() != std::filesystem::file_type::not_found) {
    throw std::invalid_argument(option + " '" + path + "' cannot be read: " + error.message());
  }
  if (status.type() == std::filesystem::file_type::not_found) {
    throw std::invalid_argument(option + " '" + path + "' does not exist");
  }
  return status;
}

// Throws std::invalid_argument (ValueError in Python) unless `path` is a folder this process
// can list.
inline void CheckFolder(const std::string& option, const std::string& path) {
  const std::filesystem::file_status status = StatusOf(option, path);
  if (status.type() != std::filesystem::file_type::directory) {
    throw std::invalid_argument(option + " '" + path + "' is not a folder");
  }
  if (::access(path.c_str(), R_OK | X_OK) != 0) {
    throw std::invalid_argument(option + " '" + path + "' is a folder this process cannot read");
  }
}

// The same for an option whose empty default means "not given" (an env's assets_dir, which
// only its renderer reads): checked when given, so that a wrong one fails at make().
inline void CheckFolderIfGiven(const std::string& option, const std::string& path) {
  if (!path.empty()) CheckFolder(option, path);
}

// Throws std::invalid_argument unless `path` is a regular file this process can read, of at
// most `max_bytes` bytes (the caller reads it whole).
inline void CheckFile(const std::string& option, const std::string& path,
                      uintmax_t max_bytes = UINTMAX_MAX) {
  const std::filesystem::file_status status = StatusOf(option, path);
  if (status.type() != std::filesystem::file_type::regular) {
    throw std::invalid_argument(option + " '" + path + "' is not a regular file");
  }
  if (::access(path.c_str(), R_OK) != 0) {
    throw std::invalid_argument(option + " '" + path + "' is a file this process cannot read");
  }
  std::error_code error;
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (!error && size > max_bytes) {
    throw std::invalid_argument(option + " '" + path + "' has " + std::to_string(size) +
                                " bytes, more than the " + std::to_string(max_bytes) +
                                " such a file can have");
  }
}

}  // namespace envfleet::files

#endif  // ENVFLEET_COMMON_FILES_H_
