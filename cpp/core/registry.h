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
#include "core/pool.h"
#include "core/spec.h"

namespace envfleet {

struct EnvType {
  Config defaults;
  std::function<EnvSpec(const Config&)> spec;
  EnvFactory factory;
};

using EnvTypeMap = std::map<std::string, EnvType>;

// An env class E provides: static Config DefaultConfig(); static EnvSpec Spec(const Config&);
// and a constructor E(const Config&, uint64_t seed).
template <typename E>
EnvType MakeEnvType() {
  return {E::DefaultConfig(), [](const Config& config) { return E::Spec(config); },
          [](const Config& config, uint64_t seed) -> std::unique_ptr<Env> {
            return std::make_unique<E>(config, seed);
          }};
}

}  // namespace envfleet

#endif  // ENVFLEET_CORE_REGISTRY_H_
