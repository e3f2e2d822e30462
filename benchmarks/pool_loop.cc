// The pool without Python: CartPole-v1's sync step driven from C++ as the binding drives it
// (copy the actions, Enqueue, Wait, Deliver, Discard), against the independent limit (the
// plain C loop of cpp/bench/plain_cartpole.h), interleaved in one run. It separates what the
// pool costs per env step from what the Python front end costs per call
// (benchmarks/sync_step_loop.py times the same loop through envfleet.make).
//
//   g++ -std=c++20 -O3 -DNDEBUG -ffp-contract=off -fno-plt -Icpp benchmarks/pool_loop.cc \
//       -o /tmp/pool_loop -lpthread && taskset -c 0 /tmp/pool_loop
//
// (the module's own flags, cpp/envfleet.cmake). On one core (taskset) the caller steps every
// env itself, as a one-core machine would; on more cores a worker joins the sweeps.
// "generic" is the pool's loop that calls envs through their vtable (Pool::Kernels::Of<Env>),
// "CartPole's" the loop the registry hands the pool for CartPoleEnv (MakeEnvType).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include "bench/plain_cartpole.h"
#include "core/registry.h"
#include "families/classic_control/cartpole.h"

namespace {

using envfleet::Pool;
using Clock = std::chrono::steady_clock;

constexpr int kEnvs = 2048;
constexpr int kCalls = 1000;

// Steps/s of kCalls sync steps of every env of a pool with these kernels.
double PoolRate(const envfleet::EnvType& type, Pool::Kernels kernels,
                const std::vector<int64_t>& actions) {
  envfleet::PoolOptions options;
  options.num_envs = kEnvs;
  options.batch_size = kEnvs;
  options.num_threads = 1;
  options.max_episode_steps = 500;
  for (int i = 0; i < kEnvs; ++i) options.seeds.push_back(static_cast<uint64_t>(i));
  const envfleet::Config config = type.defaults;
  Pool pool(type.spec(config), config, type.factory, options, kernels);
  std::vector<int32_t> ids(kEnvs);
  std::iota(ids.begin(), ids.end(), 0);
  const auto call = [&](bool reset) {
    pool.Enqueue(ids.data(), ids.size(), reset, /*seal=*/false, /*caller_waits=*/true);
    envfleet::Block* block = pool.Wait();
    pool.Deliver();
    pool.Discard(block);
  };
  call(/*reset=*/true);
  const size_t tables = actions.size() / kEnvs;
  const auto start = Clock::now();
  for (int c = 0; c < kCalls; ++c) {
    std::memcpy(pool.action_slot(0), actions.data() + (c % tables) * kEnvs,
                kEnvs * sizeof(int64_t));
    call(/*reset=*/false);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return kCalls * static_cast<double>(kEnvs) / seconds;
}

}  // namespace

int main() {
  const envfleet::EnvType type = envfleet::MakeEnvType<envfleet::classic_control::CartPoleEnv>();
  std::vector<int64_t> actions(64 * kEnvs);
  uint64_t state = 1;
  for (int64_t& action : actions) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    action = static_cast<int64_t>(state >> 63);
  }
  envfleet::bench::PlainCartPoleLoop plain(kEnvs, 0);
  std::printf("CartPole-v1, %d envs, sync, steps/s (M), five rounds:\n", kEnvs);
  std::printf("%-10s %-10s %-10s\n", "limit", "generic", "CartPole's");
  for (int round = 0; round < 5; ++round) {
    const double limit = kEnvs * static_cast<double>(kCalls) / plain.Run(kCalls);
    const double generic = PoolRate(type, Pool::Kernels::Of<envfleet::Env>(), actions);
    const double own = PoolRate(type, type.kernels, actions);
    std::printf("%-10.1f %-10.1f %-10.1f\n", limit / 1e6, generic / 1e6, own / 1e6);
  }
  std::printf("(checksum %g)\n", plain.checksum());
}
