// MuJoCo's error and warning hooks, for every family that runs libmujoco (mujoco, dm_control).
// Errors become C++ exceptions, which the pool raises in Python naming the env (libmujoco's C
// frames carry unwind tables, so an exception can cross them; the pool resets an env whose
// step failed before using it again). Warnings are not printed nor appended to MUJOCO_LOG.TXT
// in the working directory: MuJoCo still counts them in mjData's warning counters, which is
// what dm_control checks.
#ifndef ENVFLEET_COMMON_MUJOCO_HANDLERS_H_
#define ENVFLEET_COMMON_MUJOCO_HANDLERS_H_

#include <mujoco/mujoco.h>

#include <stdexcept>
#include <string>

namespace envfleet {

[[noreturn]] inline void ThrowMujocoError(const char* message) {
  throw std::runtime_error(std::string("MuJoCo error: ") + message);
}

inline void IgnoreMujocoWarning(const char*) {}

// Idempotent. libmujoco 4.0.0 routes errors and warnings to its default log handler, which
// calls these legacy hooks when set (the Python bindings use thread-local handlers of their
// own only during their calls, so they do not interfere).
inline void InstallMujocoHandlers() {
  mju_user_error = ThrowMujocoError;
  mju_user_warning = IgnoreMujocoWarning;
}

}  // namespace envfleet

#endif  // ENVFLEET_COMMON_MUJOCO_HANDLERS_H_
