// The BabyAI levels' env types, for envfleet._minigrid (module.cc adds them to its table).
// They are compiled in their own translation unit (level_types.cc), beside module.cc's.
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_LEVEL_TYPES_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_LEVEL_TYPES_H_

#include "core/registry.h"

namespace envfleet::minigrid::babyai {

// Adds one env type per BabyAI level class ("BabyAIGoTo", "BabyAILevelGen", ...) to `types`.
void AddLevelTypes(EnvTypeMap& types);

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_LEVEL_TYPES_H_
