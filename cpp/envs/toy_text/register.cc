#include "envs/registry.h"
#include "envs/toy_text/blackjack.h"
#include "envs/toy_text/cliff_walking.h"
#include "envs/toy_text/frozen_lake.h"
#include "envs/toy_text/taxi.h"

namespace envfleet {

// Task ids (Python side, Gymnasium 1.4.0's registrations):
//   FrozenLake-v1            FrozenLake    map_name="4x4", max_episode_steps=100
//   FrozenLake8x8-v1         FrozenLake    map_name="8x8", max_episode_steps=200
//   CliffWalking-v1          CliffWalking  (no time limit)
//   CliffWalkingSlippery-v1  CliffWalking  is_slippery=True (no time limit)
//   Taxi-v4                  Taxi          max_episode_steps=200
//   Blackjack-v1             Blackjack     sab=True, natural=False (no time limit)
void RegisterToyText(EnvTypeMap& types) {
  types["FrozenLake"] = MakeEnvType<FrozenLakeEnv>();
  types["CliffWalking"] = MakeEnvType<CliffWalkingEnv>();
  types["Taxi"] = MakeEnvType<TaxiEnv>();
  types["Blackjack"] = MakeEnvType<BlackjackEnv>();
}

}  // namespace envfleet
