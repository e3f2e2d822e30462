// A pool's plain-C entry points, for native callers outside Python: envfleet._xla's XLA FFI
// handlers step a pool from inside a jitted JAX computation through them. Every engine module
// hands out this table for each of its pools (Pool.pool_api(), a PyCapsule named
// ENVFLEET_POOL_API_CAPSULE); the caller reads it as plain C. Only C types and function
// pointers cross the module boundary, never a C++ object (ARCHITECTURE.md): the pool behind
// `pool` stays the engine module's own type, reached only through these functions.
//
// The calls run without the GIL and may block (recv and step wait for a full batch). They are
// serialised with the pool's Python methods by the pool's own lock, so a pool may be driven
// from Python and from XLA in turn. Each returns NULL on success or an error message that
// stays valid until the calling thread's next call. The table is valid while the pool lives.
#ifndef ENVFLEET_BIND_POOL_API_H_
#define ENVFLEET_BIND_POOL_API_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENVFLEET_POOL_API_CAPSULE "envfleet.pool_api"
#define ENVFLEET_POOL_API_VERSION 2

// Element types, numbered as envfleet::DType (cpp/core/spec.h).
enum EnvfleetDType {
  ENVFLEET_BOOL = 0,
  ENVFLEET_INT8 = 1,
  ENVFLEET_UINT8 = 2,
  ENVFLEET_INT32 = 3,
  ENVFLEET_INT64 = 4,
  ENVFLEET_FLOAT32 = 5,
  ENVFLEET_FLOAT64 = 6,
};

// A dense, C-ordered array owned by the caller.
typedef struct EnvfleetArray {
  void* data;
  int32_t dtype;     // an EnvfleetDType
  int64_t elements;  // total number of elements
} EnvfleetArray;

// One array of a batch: per-row shape (the batch dimension excluded) and element type.
typedef struct EnvfleetKey {
  int32_t dtype;
  int32_t ndim;
  const int64_t* shape;
} EnvfleetKey;

typedef struct EnvfleetPoolApi {
  uint32_t version;  // ENVFLEET_POOL_API_VERSION
  void* pool;        // opaque: the first argument of every call
  int32_t num_envs;
  int32_t batch_size;
  // The arrays of a batch, in the order of Pool.keys(): what recv and step write.
  int32_t num_keys;
  const EnvfleetKey* keys;
  // One env's action (send and step take `count` of them): what a caller that copies actions
  // on their way to the pool sizes its buffers by (envfleet._xla's GPU staging).
  EnvfleetKey action;
  // Queues `action` (count rows) for envs env_ids[0..count). The action may be given in the
  // spec's dtype or a narrower one of the same kind (int32 for int64, float32 for float64:
  // JAX without x64); it is checked as Pool.send checks it.
  const char* (*send)(void* pool, const EnvfleetArray* action, const int32_t* env_ids,
                      int64_t count);
  // Waits for the next batch (batch_size rows) and copies it into outputs[0..num_outputs),
  // one per key; an output may be narrower than its key (float32 for float64, int32 for
  // int64) and is then converted as NumPy's astype converts. The batch's block is reused.
  const char* (*recv)(void* pool, const EnvfleetArray* outputs, int64_t num_outputs);
  // send, then recv, with the caller stepping its share of the envs itself (as Pool.step).
  const char* (*step)(void* pool, const EnvfleetArray* action, const int32_t* env_ids,
                      int64_t count, const EnvfleetArray* outputs, int64_t num_outputs);
} EnvfleetPoolApi;

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // ENVFLEET_BIND_POOL_API_H_
