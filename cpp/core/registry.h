// What a module knows about the env types it can build: a table from type name ("CartPole",
// "AntV5", ...) to the type's option defaults, its spec and a factory. Each extension module
// owns one table (filled by its families' Register functions) and hands it to the binding
// (cpp/bind/env_module.h). Task ids ("CartPole-v1") and time limits are not here: they are
// stated once, in the family's Python registration (src/envfleet/families/<family>.py).
#ifndef ENVFLEET_CORE_REGISTRY_H_
#define ENVFLEET_CORE_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/env.h"
#include "core/memory.h"
#include "core/pool.h"
#include "core/spec.h"

namespace envfleet {

struct EnvType {
  Config defaults;
  std::function<EnvSpec(const Config&)> spec;
  EnvFactory factory;
  // The pool's loops for the class `factory` builds (Pool::Kernels).
  Pool::Kernels kernels = Pool::Kernels::Of<Env>();
};

using EnvTypeMap = std::map<std::string, EnvType>;

// `factory`, checking before each env that memory is left (cpp/core/memory.h): a pool too
// big for the machine stops building with a MemoryError rather than meet the OOM killer.
inline EnvFactory MemoryChecked(EnvFactory factory) {
  return [factory = std::move(factory)](const Config& config, uint64_t seed) {
    CheckMemoryLeft();
    return factory(config, seed);
  };
}

// The EnvType of `defaults`, `spec` and `factory`, with the checks every type gets: its spec's
// shapes (CheckShapes) and the memory left before each env is built (MemoryChecked).
inline EnvType MakeCheckedType(Config defaults, std::function<EnvSpec(const Config&)> spec,
                               EnvFactory factory) {
  return {std::move(defaults),
          [spec = std::move(spec)](const Config& config) {
            EnvSpec checked = spec(config);
            CheckShapes(checked);
            return checked;
          },
          MemoryChecked(std::move(factory))};
}

// An env class E provides: static Config DefaultConfig(); static EnvSpec Spec(const Config&);
// and a constructor E(const Config&, uint64_t seed).
template <typename E>
EnvType MakeEnvType() {
  EnvType type = MakeCheckedType(
      E::DefaultConfig(), [](const Config& config) { return E::Spec(config); },
      [](const Config& config, uint64_t seed) -> std::unique_ptr<Env> {
        return std::make_unique<E>(config, seed);
      });
  type.kernels = Pool::Kernels::Of<E>();  // the factory builds exactly E's
  return type;
}

}  // namespace envfleet

#endif  // ENVFLEET_CORE_REGISTRY_H_
