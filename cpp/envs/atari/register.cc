#include "envs/atari/atari_env.h"
#include "envs/atari/resize_check.h"
#include "envs/registry.h"

namespace envfleet {

void RegisterAtari(EnvTypeMap& types) {
  types["Atari"] = MakeEnvType<atari::AtariEnv>();
  // Test fixture for the resize (tests/python/envs/test_atari_resize.py); no task id.
  types["AtariResizeCheck"] = MakeEnvType<atari::ResizeCheckEnv>();
}

}  // namespace envfleet
