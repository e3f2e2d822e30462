// The Meta-World family's env types in five groups of ten tasks, each group compiled in its own
// file (tasks_<group>.cc) so that a change to one task rebuilds ten; module.cc calls them all.
#ifndef ENVFLEET_FAMILIES_METAWORLD_TYPES_H_
#define ENVFLEET_FAMILIES_METAWORLD_TYPES_H_

#include "core/registry.h"

namespace envfleet {
namespace metaworld {

void AddTasksA(EnvTypeMap& types);  // tasks_a.cc
void AddTasksB(EnvTypeMap& types);  // tasks_b.cc
void AddTasksC(EnvTypeMap& types);  // tasks_c.cc
void AddTasksD(EnvTypeMap& types);  // tasks_d.cc
void AddTasksE(EnvTypeMap& types);  // tasks_e.cc

}  // namespace metaworld
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_METAWORLD_TYPES_H_
