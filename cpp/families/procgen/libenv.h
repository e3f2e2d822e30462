// procgen's engine library, libenv.so (OpenAI's procgen 0.10.7 release build; see
// procgen.cmake), loaded with dlopen: the libenv C ABI it exports and a handle to one game.
//
// References:
//   gym3 0.3.3      gym3/libenv.h (the C ABI: option, tensor-type and buffer structs)
//   procgen 0.10.7  procgen/src/vecgame.cpp (libenv_make: the options it reads; act/observe
//                   with num_threads 0; get_state), procgen/src/game.cpp (Game::serialize's
//                   layout, which LibenvGame::Timeout reads)
//
// One LibenvGame is one libenv instance holding one game (num = 1) with no threads of its own
// (num_threads = 0): libenv_act steps the game on the calling thread, so each env is stepped
// by the pool's worker that runs it, as procgen's own Gym interface runs one env. Only the
// structs and functions used here are declared; they are the ABI of LIBENV_VERSION 1.
//
// libenv.so reports misuse by printing and calling exit() (procgen's fassert/fatal), so every
// option is validated before it gets there (procgen_env.h) and only valid calls are made.
#ifndef ENVFLEET_FAMILIES_PROCGEN_LIBENV_H_
#define ENVFLEET_FAMILIES_PROCGEN_LIBENV_H_

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace envfleet::procgen {

namespace abi {
constexpr int kVersion = 1;
constexpr int kMaxNameLen = 128;
enum Dtype : int { kUint8 = 1, kInt32 = 2 };
struct Option {
  char name[kMaxNameLen];
  Dtype dtype;
  int count;
  void* data;
};
struct Options {
  Option* items;
  int count;
};
struct Buffers {
  void** ob;       // len(observation space) * num pointers
  float* rew;      // num floats
  uint8_t* first;  // num flags
  void** info;     // len(info space) * num pointers
  void** ac;       // len(action space) * num pointers
};
}  // namespace abi

// The library's entry points, resolved once per process.
struct LibenvApi {
  int (*version)();
  void* (*make)(int num, abi::Options options);
  void (*set_buffers)(void* env, abi::Buffers* buffers);
  void (*observe)(void* env);
  void (*act)(void* env);
  void (*close)(void* env);
  int (*get_state)(void* env, int env_idx, char* data, int length);
};

// The installed engine's root folder (module.cc: next to the module).
std::string EngineRoot();

inline std::string LibenvPath() { return EngineRoot() + "/procgen/data/prebuilt/libenv.so"; }
inline std::string AssetRoot() { return EngineRoot() + "/procgen/data/assets/"; }

// dlopen'ed RTLD_LOCAL: the library exports its own copies of procgen's and Qt's symbols,
// which must not bind anything else in the process. Never unloaded (games may outlive any
// one pool, and Qt does not support unloading).
inline const LibenvApi& Api() {
  static const LibenvApi api = [] {
    const std::string path = LibenvPath();
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      throw std::runtime_error("cannot load procgen's engine " + path + ": " +
                               (why ? why : "unknown error"));
    }
    auto sym = [&](const char* name) {
      void* f = dlsym(lib, name);
      if (f == nullptr) throw std::runtime_error(path + " lacks " + name);
      return f;
    };
    LibenvApi a{};
    a.version = reinterpret_cast<int (*)()>(sym("libenv_version"));
    a.make = reinterpret_cast<void* (*)(int, abi::Options)>(sym("libenv_make"));
    a.set_buffers = reinterpret_cast<void (*)(void*, abi::Buffers*)>(sym("libenv_set_buffers"));
    a.observe = reinterpret_cast<void (*)(void*)>(sym("libenv_observe"));
    a.act = reinterpret_cast<void (*)(void*)>(sym("libenv_act"));
    a.close = reinterpret_cast<void (*)(void*)>(sym("libenv_close"));
    a.get_state = reinterpret_cast<int (*)(void*, int, char*, int)>(sym("get_state"));
    if (a.version() != abi::kVersion) {
      throw std::runtime_error(path + " speaks libenv version " + std::to_string(a.version()) +
                               ", not " + std::to_string(abi::kVersion));
    }
    return a;
  }();
  return api;
}

// procgen exits the process when an image it loads (all of them, at the first libenv_make)
// is missing or unreadable. So the module checks, when it is imported, every asset file of
// the wheel against the list procgen.cmake recorded at build time (size and path).
inline void CheckAssets() {
  const std::string manifest = EngineRoot() + "/assets.manifest";
  std::ifstream in(manifest);
  if (!in) throw std::runtime_error("procgen's asset list " + manifest + " is missing");
  const std::string root = AssetRoot();
  std::string line;
  size_t files = 0;
  while (std::getline(in, line)) {
    const size_t space = line.find(' ');
    if (line.empty() || space == std::string::npos) continue;
    const std::string path = root + line.substr(space + 1);
    struct stat st{};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        std::to_string(st.st_size) != line.substr(0, space)) {
      throw std::runtime_error("procgen's asset " + path +
                               " is missing or damaged (not as installed): reinstall envfleet");
    }
    ++files;
  }
  if (files == 0) throw std::runtime_error("procgen's asset list " + manifest + " is empty");
}

// libenv_make's options, built as typed name/value pairs (strings as uint8 arrays).
class OptionList {
 public:
  void Int(const char* name, int32_t value) {
    ints_.push_back(std::make_unique<int32_t>(value));
    Add(name, abi::kInt32, 1, ints_.back().get());
  }
  void Bool(const char* name, bool value) {
    bytes_.push_back(std::make_unique<uint8_t>(value ? 1 : 0));
    Add(name, abi::kUint8, 1, bytes_.back().get());
  }
  void String(const char* name, const std::string& value) {
    strings_.push_back(std::make_unique<std::string>(value));
    Add(name, abi::kUint8, static_cast<int>(value.size()), strings_.back()->data());
  }
  abi::Options View() { return {items_.data(), static_cast<int>(items_.size())}; }

 private:
  void Add(const char* name, abi::Dtype dtype, int count, void* data) {
    abi::Option o{};
    std::strncpy(o.name, name, abi::kMaxNameLen - 1);
    o.dtype = dtype;
    o.count = count;
    o.data = data;
    items_.push_back(o);
  }
  std::vector<abi::Option> items_;
  std::vector<std::unique_ptr<int32_t>> ints_;
  std::vector<std::unique_ptr<uint8_t>> bytes_;
  std::vector<std::unique_ptr<std::string>> strings_;
};

constexpr int kRes = 64;         // procgen's RES_W = RES_H
constexpr int kRenderRes = 512;  // procgen's RENDER_RES, the render_human frame
constexpr int kNumActions = 15;  // procgen's combos (env.py get_combos)

// One game in one libenv instance, with the buffers libenv writes into. The game's first
// episode starts (reset and first observation) when the buffers are set, in the constructor.
class LibenvGame {
 public:
  explicit LibenvGame(OptionList& options) : api_(Api()) {
    handle_ = api_.make(1, options.View());
    // The 512x512 frame of render_human, written only by libenv_observe, which only Render
    // calls: reserved address space whose pages are touched (and so cost memory) only in an
    // env that renders.
    render_ = mmap(nullptr, kRenderBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (render_ == MAP_FAILED) {
      api_.close(handle_);
      throw std::bad_alloc();
    }
    void* ob[1] = {obs_};
    // Info keys in VecGame's order: prev_level_seed, prev_level_complete, level_seed, rgb.
    void* info[4] = {&prev_level_seed_, &prev_level_complete_, &level_seed_, render_};
    void* ac[1] = {&action_};
    abi::Buffers buffers{ob, &reward_, &first_, info, ac};
    api_.set_buffers(handle_, &buffers);
  }
  ~LibenvGame() {
    api_.close(handle_);
    munmap(render_, kRenderBytes);
  }
  LibenvGame(const LibenvGame&) = delete;
  LibenvGame& operator=(const LibenvGame&) = delete;

  // One step of `action` (procgen's -1: one step of the default action, then a new episode).
  void Act(int32_t action) {
    action_ = action;
    api_.act(handle_);
  }
  // Draws the render_human frame (RGB, 512x512) and returns it.
  const uint8_t* RenderFrame() {
    api_.observe(handle_);
    return static_cast<const uint8_t*>(render_);
  }

  // The game's episode limit (Game::timeout), read from its serialized state: Game::serialize
  // writes version, name, 12 option ints, 5 ints, two RNGs (an int and a string each), the
  // step data (float, int, int), the action, then the timeout. Ints are native 4-byte, strings
  // a length and the bytes.
  int Timeout() const {
    std::vector<char> state(kStateBytes);
    const int size = api_.get_state(handle_, 0, state.data(), static_cast<int>(state.size()));
    size_t at = 0;
    auto read_int = [&]() {
      if (at + 4 > static_cast<size_t>(size)) throw std::runtime_error("procgen: short state");
      int32_t v;
      std::memcpy(&v, state.data() + at, 4);
      at += 4;
      return v;
    };
    auto skip_string = [&]() { at += static_cast<size_t>(read_int()); };
    read_int();     // SERIALIZE_VERSION
    skip_string();  // game_name
    for (int i = 0; i < 12 + 5; ++i) read_int();
    for (int rng = 0; rng < 2; ++rng) read_int(), skip_string();
    for (int i = 0; i < 3 + 1; ++i) read_int();  // reward (4 bytes), done, level_complete, action
    return read_int();
  }

  const uint8_t* obs() const { return obs_; }
  float reward() const { return reward_; }
  bool first() const { return first_ != 0; }
  int32_t level_seed() const { return level_seed_; }
  int32_t prev_level_seed() const { return prev_level_seed_; }
  bool prev_level_complete() const { return prev_level_complete_ != 0; }

 private:
  static constexpr size_t kRenderBytes = size_t{kRenderRes} * kRenderRes * 3;
  static constexpr size_t kStateBytes = size_t{1} << 20;  // procgen's MAX_STATE_SIZE

  const LibenvApi& api_;
  void* handle_ = nullptr;
  void* render_ = nullptr;
  uint8_t obs_[kRes * kRes * 3] = {};
  float reward_ = 0.0f;
  uint8_t first_ = 0;
  int32_t action_ = 0;
  int32_t prev_level_seed_ = 0;
  uint8_t prev_level_complete_ = 0;
  int32_t level_seed_ = 0;
};

}  // namespace envfleet::procgen

#endif  // ENVFLEET_FAMILIES_PROCGEN_LIBENV_H_
