// Toy text's env types, compiled into envfleet._core. Task ids and their options (map_name,
// is_slippery, sab, ...): src/envfleet/families/toy_text.py.
#include "core/registry.h"
#include "families/toy_text/blackjack.h"
#include "families/toy_text/catch.h"
#include "families/toy_text/cliff_walking.h"
#include "families/toy_text/frozen_lake.h"
#include "families/toy_text/nchain.h"
#include "families/toy_text/taxi.h"

namespace envfleet::toy_text {

void Register(EnvTypeMap& types) {
  types["FrozenLake"] = MakeEnvType<FrozenLakeEnv>();
  types["CliffWalking"] = MakeEnvType<CliffWalkingEnv>();
  types["Taxi"] = MakeEnvType<TaxiEnv>();
  types["Blackjack"] = MakeEnvType<BlackjackEnv>();
  types["NChain"] = MakeEnvType<NChainEnv>();
  types["Catch"] = MakeEnvType<CatchEnv>();
}

}  // namespace envfleet::toy_text
