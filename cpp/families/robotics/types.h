// The env types of the Gymnasium-Robotics family, one function per robot, each defined in that
// robot's <robot>.cc and called by module.cc.
#ifndef ENVFLEET_FAMILIES_ROBOTICS_TYPES_H_
#define ENVFLEET_FAMILIES_ROBOTICS_TYPES_H_

#include "core/registry.h"

namespace envfleet {
namespace robotics {

void AddFetchTypes(EnvTypeMap& types);    // fetch.cc
void AddHandTypes(EnvTypeMap& types);     // hand.cc
void AddMazeTypes(EnvTypeMap& types);     // maze.cc
void AddAdroitTypes(EnvTypeMap& types);   // adroit.cc
void AddKitchenTypes(EnvTypeMap& types);  // kitchen.cc

}  // namespace robotics
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_ROBOTICS_TYPES_H_
