// The table of environment types the core can build, by type name. Each family registers its
// types in one function (cpp/envs/<family>/register.cc); Python maps task ids (CartPole-v1,
// ...) onto these types plus option overrides.
#ifndef ENVFLEET_ENVS_REGISTRY_H_
#define ENVFLEET_ENVS_REGISTRY_H_

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

void RegisterExample(EnvTypeMap& types);
void RegisterClassicControl(EnvTypeMap& types);
void RegisterToyText(EnvTypeMap& types);
void RegisterAtari(EnvTypeMap& types);   // cpp/envs/atari/register.cc, with ENVFLEET_WITH_ATARI
void RegisterMujoco(EnvTypeMap& types);  // cpp/envs/mujoco/register.cc, with ENVFLEET_WITH_MUJOCO

// Every registered type. Built-in families register once; function envs are added at run
// time from Python (GIL held), never while a pool is being constructed.
EnvTypeMap& MutableEnvTypes();
inline const EnvTypeMap& EnvTypes() { return MutableEnvTypes(); }

}  // namespace envfleet

#endif  // ENVFLEET_ENVS_REGISTRY_H_
