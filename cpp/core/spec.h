// What an environment declares about itself: its options (Config) and the arrays it reads and
// writes (ArraySpec). The pool sizes its buffers from these, and the Python side builds
// Gymnasium spaces and dm_env specs from them, so an env states each fact exactly once.
#ifndef ENVFLEET_CORE_SPEC_H_
#define ENVFLEET_CORE_SPEC_H_

#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace envfleet {

enum class DType : uint8_t { kBool, kInt8, kUint8, kInt32, kInt64, kFloat32, kFloat64 };

inline size_t ItemSize(DType dtype) {
  switch (dtype) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kUint8:
      return 1;
    case DType::kInt32:
    case DType::kFloat32:
      return 4;
    case DType::kInt64:
    case DType::kFloat64:
      return 8;
  }
  return 0;
}

// NumPy's names of the dtypes, both ways.
inline constexpr std::pair<DType, const char*> kDTypeNames[] = {
    {DType::kBool, "bool"},      {DType::kInt8, "int8"},   {DType::kUint8, "uint8"},
    {DType::kInt32, "int32"},    {DType::kInt64, "int64"}, {DType::kFloat32, "float32"},
    {DType::kFloat64, "float64"}};

inline const char* DTypeName(DType dtype) {
  for (const auto& [type, name] : kDTypeNames) {
    if (type == dtype) return name;
  }
  return "?";
}

// Throws std::invalid_argument (ValueError in Python) for a name that is not one of ours.
inline DType DTypeFromName(const std::string& name) {
  for (const auto& [type, type_name] : kDTypeNames) {
    if (name == type_name) return type;
  }
  throw std::invalid_argument("unsupported dtype '" + name + "'");
}

// One array of one environment: an observation, an info entry or the action.
// Bounds are inclusive, empty when unbounded, one value when uniform, else one per element.
// `discrete` marks integer spaces: a scalar becomes Discrete(high - low + 1, start=low).
struct ArraySpec {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<double> low;
  std::vector<double> high;
  bool discrete = false;

  size_t NumElements() const {
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    return n;
  }
  size_t NumBytes() const { return NumElements() * ItemSize(dtype); }

  friend bool operator==(const ArraySpec&, const ArraySpec&) = default;
};

inline ArraySpec Discrete(std::string name, int64_t n, int64_t start = 0) {
  return {std::move(name), DType::kInt64, {}, {double(start)}, {double(start + n - 1)}, true};
}

inline ArraySpec Box(std::string name, DType dtype, std::vector<int64_t> shape,
                     std::vector<double> low, std::vector<double> high) {
  return {std::move(name), dtype, std::move(shape), std::move(low), std::move(high), false};
}

// What an env can draw (Env::Render). Sizes and rates are the reference env's own, so that
// make(render_mode=...) defaults to the frames the reference renders.
struct RenderSpec {
  int width = 0;  // 0: the env has no renderer
  int height = 0;
  bool resizable = false;  // whether other sizes may be asked for (MuJoCo) or not (pixel art)
  double fps = 0;          // Gymnasium's metadata["render_fps"]
  int num_cameras = 0;     // valid camera ids: -1 (the env's default view) .. num_cameras - 1

  friend bool operator==(const RenderSpec&, const RenderSpec&) = default;
};

// How the observation keys are presented: one array, a tuple of arrays (Blackjack), or a dict.
enum class ObsLayout : uint8_t { kSingle, kTuple, kDict };

struct EnvSpec {
  std::vector<ArraySpec> obs;   // names are the tuple/dict keys; a single obs is named "obs"
  std::vector<ArraySpec> info;  // extra per-step info an env reports (Atari: lives, ...)
  ArraySpec action;
  ObsLayout obs_layout = ObsLayout::kSingle;
  double reward_low = -std::numeric_limits<double>::infinity();
  double reward_high = std::numeric_limits<double>::infinity();
  RenderSpec render;
  // The env's Reset and Step keep per-thread state (a GL context, when observations are
  // rendered pixels) and must run on the pool's worker threads only: the caller then waits
  // in recv() instead of stepping envs itself, so no such state is made on the Python thread,
  // where it would outlive the pool.
  bool workers_only = false;

  // The env's own time limit for these options, for an env that truncates its own episodes
  // (Env::kTruncates: MiniGrid's max_steps, 4 * size**2 for Empty); 0 for the others. A task
  // registered without max_episode_steps takes it as its pool's time limit (the largest of
  // its envs', per_env_options given), so that the limit follows the options.
  int64_t time_limit = 0;

  // Envs built from different options may share a pool only where their specs are equal.
  friend bool operator==(const EnvSpec&, const EnvSpec&) = default;
};

// Throws std::invalid_argument unless every array of `spec` has a shape the pool can lay out
// (no negative dimension, a size that fits in memory's address range) and bounds of one value
// or one per element. A spec is computed from options (and, for MuJoCo, from the model a path
// names), so a hostile option must not reach the pool's buffer arithmetic.
inline void CheckShapes(const EnvSpec& spec) {
  const auto check = [](const ArraySpec& key, const char* what) {
    std::string shape = "(";
    for (size_t d = 0; d < key.shape.size(); ++d) {
      shape += (d ? ", " : "") + std::to_string(key.shape[d]);
    }
    shape += key.shape.size() == 1 ? ",)" : ")";
    constexpr uint64_t kMaxBytes = uint64_t{1} << 48;  // far past any machine's memory
    uint64_t bytes = ItemSize(key.dtype);
    for (int64_t d : key.shape) {
      if (d < 0) {
        throw std::invalid_argument(std::string(what) + " '" + key.name + "' would have shape " +
                                    shape + ": the options (or the model they name) do not " +
                                    "fit this env");
      }
      if (d > 0 && bytes > kMaxBytes / static_cast<uint64_t>(d)) {
        throw std::invalid_argument(std::string(what) + " '" + key.name + "' of shape " + shape +
                                    " is too large");
      }
      bytes *= static_cast<uint64_t>(d);
    }
    const size_t n = key.NumElements();
    for (const std::vector<double>* bound : {&key.low, &key.high}) {
      if (bound->size() > 1 && bound->size() != n) {
        throw std::invalid_argument(std::string(what) + " '" + key.name + "' has " +
                                    std::to_string(bound->size()) + " bounds for " +
                                    std::to_string(n) + " elements");
      }
    }
  };
  for (const ArraySpec& key : spec.obs) check(key, "observation");
  for (const ArraySpec& key : spec.info) check(key, "info");
  check(spec.action, "action");
}

// Environment options. Each env type publishes its defaults; Python may override any of them
// by name with a value of the same kind, and unknown names are rejected before anything runs.
// A table option (ViZDoom's reward_config: game variable -> weights) is a map from names to
// lists of numbers.
using ConfigTable = std::map<std::string, std::vector<double>>;
using ConfigValue = std::variant<bool, int64_t, double, std::string, std::vector<std::string>,
                                 std::vector<double>, ConfigTable>;

class Config {
 public:
  Config() = default;
  Config(std::initializer_list<std::pair<const std::string, ConfigValue>> values)
      : values_(values) {}

  template <typename T>
  const T& Get(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) throw std::invalid_argument("missing config option '" + key + "'");
    if (const T* value = std::get_if<T>(&it->second)) return *value;
    throw std::invalid_argument("config option '" + key + "' has the wrong type");
  }
  void Set(const std::string& key, ConfigValue value) { values_[key] = std::move(value); }
  bool Has(const std::string& key) const { return values_.count(key) != 0; }
  const std::map<std::string, ConfigValue>& values() const { return values_; }

 private:
  std::map<std::string, ConfigValue> values_;
};

}  // namespace envfleet

#endif  // ENVFLEET_CORE_SPEC_H_
