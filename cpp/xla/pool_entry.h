// What envfleet._xla knows of a registered pool, and the bookkeeping its CPU and GPU handlers
// share: the pool's plain-C table (cpp/bind/pool_api.h), and for the dm front end the rows'
// `first` flags. Plain C++ over the table, no XLA or CUDA types: the GPU staging
// (gpu_staging.h) and its tests use it as the handlers do.
#ifndef ENVFLEET_XLA_POOL_ENTRY_H_
#define ENVFLEET_XLA_POOL_ENTRY_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "bind/pool_api.h"

namespace envfleet::xla {

struct PoolEntry {
  const EnvfleetPoolApi* api = nullptr;
  bool* ended = nullptr;  // the dm front end's per-env flags, or null
  bool first = false;     // whether recv/step return the extra `first` array
};

// Index of the common keys every batch starts with (cpp/core/pool.h, CommonKey).
constexpr size_t kTerminated = 1, kTruncated = 2, kEnvId = 3, kElapsedStep = 4;

// Bytes of one element of an EnvfleetDType, 0 for a code that names none.
inline size_t ItemSize(int32_t dtype) {
  switch (dtype) {
    case ENVFLEET_BOOL:
    case ENVFLEET_INT8:
    case ENVFLEET_UINT8:
      return 1;
    case ENVFLEET_INT32:
    case ENVFLEET_FLOAT32:
      return 4;
    case ENVFLEET_INT64:
    case ENVFLEET_FLOAT64:
      return 8;
    default:
      return 0;
  }
}

// The widest element a buffer for an array of `dtype` may hold: the pool converts between a
// 32-bit type and its 64-bit counterpart (JAX's x64 switch) in either direction.
inline size_t WidestItemSize(int32_t dtype) {
  const size_t size = ItemSize(dtype);
  return size == 4 ? 8 : size;
}

inline int64_t NumElements(const EnvfleetKey& key) {
  int64_t n = 1;
  for (int32_t d = 0; d < key.ndim; ++d) n *= key.shape[d];
  return n;
}

// Why a handle holding `value` cannot go with a call of pool `pool_id` (compiled into the call
// as its attribute), or "". The handle threaded into a call is what orders it after the call
// that returned the handle; another pool's handle orders it after the wrong calls.
inline std::string HandleProblem(uint32_t value, uint32_t pool_id) {
  if (value == pool_id) return {};
  return "envfleet: the handle holds " + std::to_string(value) + " but the call is pool " +
         std::to_string(pool_id) +
         "'s: pass each call the handle its own env.xla() returned, or one that a call of the "
         "same pool returned";
}

// Fills the `first` array (outputs[num_keys], present when pool.first) from the batch in
// outputs[0..num_keys), and updates `ended`, as the dm front end's own recv does. The
// outputs are host memory.
inline void MarkFirsts(const PoolEntry& pool, const EnvfleetArray* outputs) {
  if (!pool.first) return;
  const EnvfleetArray& first_array = outputs[pool.api->num_keys];
  const auto* terminated = static_cast<const bool*>(outputs[kTerminated].data);
  const auto* truncated = static_cast<const bool*>(outputs[kTruncated].data);
  const auto* env_id = static_cast<const int32_t*>(outputs[kEnvId].data);
  const auto* elapsed = static_cast<const int32_t*>(outputs[kElapsedStep].data);
  auto* first = static_cast<bool*>(first_array.data);
  for (int64_t row = 0; row < first_array.elements; ++row) {
    first[row] = elapsed[row] == 0;
    if (pool.ended != nullptr) {
      first[row] = first[row] || pool.ended[env_id[row]];
      pool.ended[env_id[row]] = terminated[row] || truncated[row];
    }
  }
}

}  // namespace envfleet::xla

#endif  // ENVFLEET_XLA_POOL_ENTRY_H_
