// How much memory is left, so that an absurd pool fails with MemoryError instead of being
// killed. Linux overcommits: a malloc of more than is there succeeds, and the kernel's OOM
// killer ends the process (or another one) only when the pages are touched, with no Python
// exception. So the size of a pool is checked against what the machine still has, twice:
//   - before anything is allocated, Python compares the pool's own buffers (output blocks,
//     per-env bookkeeping; src/envfleet/registry.py) with MemoryAvailable();
//   - while the envs are built (each may hold megabytes of engine state that no spec states),
//     CheckMemoryLeft() stops the building once less than a small reserve is left.
// Available means MemAvailable of /proc/meminfo, lowered to the headroom of this process's
// memory cgroup where that has a limit (containers, CI runners).
#ifndef ENVFLEET_CORE_MEMORY_H_
#define ENVFLEET_CORE_MEMORY_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>
#include <string>

namespace envfleet {

namespace memory_internal {

// The value of `key` ("MemAvailable:") in /proc/meminfo, in bytes; -1 if absent.
inline int64_t MeminfoBytes(const std::string& key) {
  std::ifstream file("/proc/meminfo");
  std::string name;
  int64_t kib = 0;
  std::string unit;
  while (file >> name >> kib) {
    std::getline(file, unit);
    if (name == key) return kib * 1024;
  }
  return -1;
}

// The first number in a file (a cgroup's memory.max or memory.limit_in_bytes); -1 for "max" or
// an unreadable file.
inline int64_t FileNumber(const std::string& path) {
  std::ifstream file(path);
  int64_t value = -1;
  if (!(file >> value)) return -1;
  return value;
}

// `key`'s value in a cgroup's memory.stat; 0 if absent.
inline int64_t StatValue(const std::string& path, const std::string& key) {
  std::ifstream file(path);
  std::string name;
  int64_t value = 0;
  while (file >> name >> value) {
    if (name == key) return value;
  }
  return 0;
}

// What this process's memory cgroup still allows (its limit, less what it uses that cannot
// be reclaimed: page cache can), or -1 when it sets no limit. cgroup v2's unified hierarchy
// ("0::/path") or v1's memory controller ("N:memory:/path"), under /sys/fs/cgroup.
inline int64_t CgroupHeadroom() {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroups, line)) {
    const size_t first = line.find(':');
    const size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    std::string dir, limit_file, usage_file, cache_key;
    if (controllers.empty()) {
      dir = "/sys/fs/cgroup" + path;
      limit_file = "memory.max";
      usage_file = "memory.current";
      cache_key = "inactive_file";
    } else if (controllers == "memory" || controllers.find("memory,") == 0 ||
               controllers.find(",memory") != std::string::npos) {
      dir = "/sys/fs/cgroup/memory" + path;
      limit_file = "memory.limit_in_bytes";
      usage_file = "memory.usage_in_bytes";
      cache_key = "total_inactive_file";
    } else {
      continue;
    }
    const int64_t limit = FileNumber(dir + "/" + limit_file);
    if (limit < 0 || limit >= (int64_t{1} << 60)) continue;  // "max", or v1's "unlimited"
    const int64_t usage = FileNumber(dir + "/" + usage_file);
    if (usage < 0) continue;
    const int64_t cache = StatValue(dir + "/memory.stat", cache_key);
    return std::max<int64_t>(0, limit - std::max<int64_t>(0, usage - cache));
  }
  return -1;
}

}  // namespace memory_internal

// Bytes this process can still allocate and touch before memory runs out; -1 where the
// system does not say (not Linux).
inline int64_t MemoryAvailable() {
  const int64_t machine = memory_internal::MeminfoBytes("MemAvailable:");
  const int64_t cgroup = memory_internal::CgroupHeadroom();
  if (machine < 0) return cgroup;
  return cgroup < 0 ? machine : std::min(machine, cgroup);
}

// What building envs leaves to the rest of the machine: the environment variable
// ENVFLEET_MEMORY_RESERVE (bytes), else 1/32 of its memory, at most 512 MiB. Building stops
// below it, so that the last env built cannot take the machine's last pages.
inline int64_t MemoryReserve() {
  static const int64_t reserve = [] {
    if (const char* given = std::getenv("ENVFLEET_MEMORY_RESERVE")) {
      char* end = nullptr;
      const long long bytes = std::strtoll(given, &end, 10);
      if (end != given && *end == '\0' && bytes >= 0) return static_cast<int64_t>(bytes);
    }
    const int64_t total = memory_internal::MeminfoBytes("MemTotal:");
    return total < 0 ? int64_t{0} : std::min<int64_t>(total / 32, int64_t{512} << 20);
  }();
  return reserve;
}

// std::bad_alloc, which the bindings turn into Python's MemoryError, with a message.
class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// Throws OutOfMemory when less than MemoryReserve() is left. Called before each env is
// built (cpp/core/registry.h); reads /proc at most once a millisecond (a read takes about
// ten microseconds, more than building a CartPole), so the reserve must cover what the
// building threads allocate in a millisecond.
inline void CheckMemoryLeft() {
  static std::atomic<int64_t> next_check_ns{0};
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  if (now < next_check_ns.load(std::memory_order_relaxed)) return;
  next_check_ns.store(now + 1000000, std::memory_order_relaxed);
  const int64_t available = MemoryAvailable();
  const int64_t reserve = MemoryReserve();
  if (available >= 0 && available < reserve) {
    std::ostringstream message;
    message << "out of memory while building the envs: " << (available >> 20)
            << " MiB are left, less than the " << (reserve >> 20)
            << " MiB kept for the rest of the machine; make fewer envs (num_envs)";
    throw OutOfMemory(message.str());
  }
}

}  // namespace envfleet

#endif  // ENVFLEET_CORE_MEMORY_H_
