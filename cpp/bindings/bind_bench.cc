// The physical limit for benchmarks: one env stepped in a plain C++ loop on one thread, with
// no pool, no queue and no Python, doing the same per-step work as a pool worker (Step, the
// time limit and autoreset, and Write into an output row).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "core/output_blocks.h"
#include "core/pool.h"
#include "envs/registry.h"

namespace nb = nanobind;

namespace envfleet {

Config ToConfig(const Config& defaults, const nb::dict& options);  // bind_pool.cc
const EnvType& FindType(const std::string& name);                  // bind_pool.cc

namespace {

// Random valid actions, drawn up front so drawing them is not timed.
std::vector<char> SampleActions(const ArraySpec& spec, size_t count, uint64_t seed) {
  NumpyGenerator rng(seed);
  const size_t n = spec.NumElements();
  std::vector<char> bytes(count * spec.NumBytes());
  for (size_t i = 0; i < count * n; ++i) {
    const size_t e = i % n;
    const double low = spec.low.empty() ? -1.0 : spec.low[spec.low.size() == 1 ? 0 : e];
    const double high = spec.high.empty() ? 1.0 : spec.high[spec.high.size() == 1 ? 0 : e];
    switch (spec.dtype) {
      case DType::kInt64:
        reinterpret_cast<int64_t*>(bytes.data())[i] =
            rng.Integers(static_cast<int64_t>(low), static_cast<int64_t>(high) + 1);
        break;
      case DType::kInt32:
        reinterpret_cast<int32_t*>(bytes.data())[i] = static_cast<int32_t>(
            rng.Integers(static_cast<int64_t>(low), static_cast<int64_t>(high) + 1));
        break;
      case DType::kFloat32:
        reinterpret_cast<float*>(bytes.data())[i] = static_cast<float>(rng.Uniform(low, high));
        break;
      case DType::kFloat64:
        reinterpret_cast<double*>(bytes.data())[i] = rng.Uniform(low, high);
        break;
      default:
        throw nb::value_error("raw_step_rate: unsupported action dtype");
    }
  }
  return bytes;
}

// Takes `num_steps` steps in all, round-robin over `num_envs` envs (1: the limit; more shows
// what cycling through many envs' state costs in cache misses); returns (steps, seconds,
// episodes).
nb::tuple RawStepRate(const std::string& type_name, const nb::dict& options, int64_t num_steps,
                      int64_t max_episode_steps, uint64_t seed, int num_envs) {
  if (num_envs < 1) throw nb::value_error("raw_step_rate: num_envs must be at least 1");
  const EnvType& type = FindType(type_name);
  const Config config = ToConfig(type.defaults, options);
  const EnvSpec spec = type.spec(config);
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < num_envs; ++i) envs.push_back(type.factory(config, seed + i));
  constexpr size_t kActions = 1024;
  const std::vector<char> actions = SampleActions(spec.action, kActions, seed + 1);
  const size_t action_bytes = spec.action.NumBytes();
  std::vector<ArraySpec> keys = spec.obs;
  keys.insert(keys.end(), spec.info.begin(), spec.info.end());
  BlockArena* arena = new BlockArena(BlockLayout(keys, 1));
  Block* block = arena->Acquire();
  OutputSlot slot(block->key_bases.data(), arena->layout().row_bytes.data(), 0);
  int64_t episodes = num_envs;
  double seconds = 0;
  {
    nb::gil_scoped_release release;
    for (auto& env : envs) {
      env->Reset();
      env->Write(slot);
    }
    std::vector<int64_t> elapsed_of(static_cast<size_t>(num_envs), 0);
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < num_steps; ++i) {
      Env* env = envs[static_cast<size_t>(i % num_envs)].get();
      int64_t& elapsed = elapsed_of[static_cast<size_t>(i % num_envs)];
      env->Step(actions.data() + (static_cast<size_t>(i) % kActions) * action_bytes);
      ++elapsed;
      const bool truncated = max_episode_steps > 0 && elapsed >= max_episode_steps;
      if (env->terminated() || truncated) {  // the pool's autoreset (cpp/core/pool.h)
        bool continued = false;
        if (truncated) {
          env->Reset();
        } else {
          continued = env->ResetAfterTermination();
        }
        if (!continued) elapsed = 0;
        ++episodes;
      }
      env->Write(slot);
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  arena->Recycle(block);
  arena->Release();
  return nb::make_tuple(num_steps, seconds, episodes);
}

}  // namespace

void BindBench(nb::module_& m) {
  m.def("raw_step_rate", &RawStepRate, nb::arg("type_name"), nb::arg("options"),
        nb::arg("num_steps"), nb::arg("max_episode_steps"), nb::arg("seed") = 0,
        nb::arg("num_envs") = 1,
        "Steps one env (or num_envs, round-robin) in a plain single-threaded C++ loop (the\n"
        "physical limit of a pool thread): returns (steps, seconds, episodes).");
}

}  // namespace envfleet
