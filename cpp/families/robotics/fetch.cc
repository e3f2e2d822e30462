// The Fetch robot's env types, one per task (fetch.h): FetchReach, FetchPush, FetchSlide and
// FetchPickAndPlace, each with its task's constants as the defaults of its options.
#include "families/robotics/fetch.h"

#include "families/robotics/types.h"

namespace envfleet {
namespace robotics {

void AddFetchTypes(EnvTypeMap& types) {
  types["FetchReach"] = MakeRobotType<FetchEnv>(FetchEnv::Defaults(kFetchReach));
  types["FetchPush"] = MakeRobotType<FetchEnv>(FetchEnv::Defaults(kFetchPush));
  types["FetchSlide"] = MakeRobotType<FetchEnv>(FetchEnv::Defaults(kFetchSlide));
  types["FetchPickAndPlace"] = MakeRobotType<FetchEnv>(FetchEnv::Defaults(kFetchPickAndPlace));
}

}  // namespace robotics
}  // namespace envfleet
