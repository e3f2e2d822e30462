// Python-authored envs (envfleet.PythonEnv, compiled by Numba) in envfleet._core: binds
// register_function_env, which adds an env type whose reset/step/observe are C functions
// (cpp/core/function_env.h) to the module's table, and rng_function_addresses, the NumPy-exact
// random draws those functions call.
#ifndef ENVFLEET_BIND_FUNCTION_ENV_H_
#define ENVFLEET_BIND_FUNCTION_ENV_H_

#include <nanobind/nanobind.h>

#include "core/registry.h"

namespace envfleet {

// Registration happens from Python with the GIL held, never while a pool is being built.
void BindFunctionEnv(nanobind::module_& m, EnvTypeMap& types);

}  // namespace envfleet

#endif  // ENVFLEET_BIND_FUNCTION_ENV_H_
