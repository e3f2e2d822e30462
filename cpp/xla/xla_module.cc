// envfleet._xla: XLA FFI handlers that send to and receive from a pool inside a jitted JAX
// computation (env.xla(), src/envfleet/xla.py). Built only when JAX is importable at build
// time (its FFI headers come from jax.ffi.include_dir()); loaded only by env.xla().
//
// The handlers never see a pool's C++ type: each engine module hands out, per pool, a table of
// plain-C functions (cpp/bind/pool_api.h) that this module calls. A pool is registered here
// under a small integer id, and that id is the JAX "handle" array threaded through the
// calls: a handle whose pool is gone (or a made-up one) gives an error, never a wild pointer.
//
// Handlers (XLA's CPU runtime calls them on its own threads, without the GIL):
//   envfleet_send(handle, action, env_id) -> handle
//   envfleet_recv(handle) -> handle, batch arrays..., [first]
//   envfleet_step(handle, action, env_id) -> handle, batch arrays..., [first]
// The batch arrays are the pool's keys in Pool.keys() order. `first` (dm_env front end only)
// flags the rows that start an episode: elapsed_step == 0, or, for a pool registered with
// its front end's `ended` array (NEXT_STEP autoreset), an env whose previous result was LAST;
// `ended` is updated as the front end's own recv updates it, so Python and XLA calls agree.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "bind/pool_api.h"
#include "xla/ffi/api/ffi.h"

namespace {

namespace ffi = xla::ffi;
namespace nb = nanobind;

struct Registered {
  const EnvfleetPoolApi* api = nullptr;
  bool* ended = nullptr;  // the dm front end's per-env flags, or null
  bool first = false;     // whether recv/step return the extra `first` array
};

// Index of the common keys every batch starts with (cpp/core/pool.h, CommonKey).
constexpr size_t kTerminated = 1, kTruncated = 2, kEnvId = 3, kElapsedStep = 4;

std::mutex registry_mutex;
std::unordered_map<uint32_t, Registered> registry;
uint32_t next_id = 1;

int32_t ToDType(ffi::DataType type) {
  switch (type) {
    case ffi::DataType::PRED:
      return ENVFLEET_BOOL;
    case ffi::DataType::S8:
      return ENVFLEET_INT8;
    case ffi::DataType::U8:
      return ENVFLEET_UINT8;
    case ffi::DataType::S32:
      return ENVFLEET_INT32;
    case ffi::DataType::S64:
      return ENVFLEET_INT64;
    case ffi::DataType::F32:
      return ENVFLEET_FLOAT32;
    case ffi::DataType::F64:
      return ENVFLEET_FLOAT64;
    default:
      return -1;  // the pool rejects it with a message naming the dtype it wants
  }
}

EnvfleetArray ToArray(const ffi::AnyBuffer& buffer) {
  return {buffer.untyped_data(), ToDType(buffer.element_type()),
          static_cast<int64_t>(buffer.element_count())};
}

ffi::Error Failure(const std::string& message) {
  return ffi::Error(ffi::ErrorCode::kUnknown, message);
}

// Finds the pool of `handle` and passes the handle on to `handle_out`.
ffi::Error Lookup(const ffi::AnyBuffer& handle, ffi::Result<ffi::AnyBuffer>& handle_out,
                  Registered* pool) {
  if (handle.element_type() != ffi::DataType::U32 || handle.element_count() != 1) {
    return Failure("envfleet: the handle must be the uint32[1] array env.xla() returned");
  }
  const uint32_t id = *static_cast<const uint32_t*>(handle.untyped_data());
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry.find(id);
    if (it == registry.end()) {
      return Failure("envfleet: handle " + std::to_string(id) +
                     " names no live pool (its env was closed and freed, or the handle was not "
                     "made by env.xla())");
    }
    *pool = it->second;
  }
  if (handle_out->untyped_data() != handle.untyped_data()) {
    std::memcpy(handle_out->untyped_data(), handle.untyped_data(), sizeof(uint32_t));
  }
  return ffi::Error::Success();
}

// The batch arrays of a recv/step result, as the pool API takes them.
ffi::Error CollectOutputs(const Registered& pool, const ffi::RemainingRets& rets,
                          std::vector<EnvfleetArray>& outputs) {
  const size_t expected = static_cast<size_t>(pool.api->num_keys) + (pool.first ? 1 : 0);
  if (rets.size() != expected) {
    return Failure("envfleet: the call has " + std::to_string(rets.size()) +
                   " results but this pool gives " + std::to_string(expected));
  }
  outputs.clear();
  for (size_t i = 0; i < rets.size(); ++i) {
    auto ret = rets.get<ffi::AnyBuffer>(i);
    if (ret.has_error()) return ret.error();
    outputs.push_back(ToArray(*ret.value()));
  }
  return ffi::Error::Success();
}

// Fills the `first` array (the last output) from the batch, and updates `ended`.
void MarkFirsts(const Registered& pool, const std::vector<EnvfleetArray>& outputs) {
  if (!pool.first) return;
  const auto* terminated = static_cast<const bool*>(outputs[kTerminated].data);
  const auto* truncated = static_cast<const bool*>(outputs[kTruncated].data);
  const auto* env_id = static_cast<const int32_t*>(outputs[kEnvId].data);
  const auto* elapsed = static_cast<const int32_t*>(outputs[kElapsedStep].data);
  auto* first = static_cast<bool*>(outputs.back().data);
  for (int64_t row = 0; row < outputs.back().elements; ++row) {
    first[row] = elapsed[row] == 0;
    if (pool.ended != nullptr) {
      first[row] = first[row] || pool.ended[env_id[row]];
      pool.ended[env_id[row]] = terminated[row] || truncated[row];
    }
  }
}

ffi::Error SendImpl(ffi::AnyBuffer handle, ffi::AnyBuffer action, ffi::Buffer<ffi::S32> env_id,
                    ffi::Result<ffi::AnyBuffer> handle_out) {
  Registered pool;
  if (ffi::Error error = Lookup(handle, handle_out, &pool); error.failure()) return error;
  const EnvfleetArray actions = ToArray(action);
  const char* error = pool.api->send(pool.api->pool, &actions, env_id.typed_data(),
                                     static_cast<int64_t>(env_id.element_count()));
  return error == nullptr ? ffi::Error::Success() : Failure(error);
}

ffi::Error RecvImpl(ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> handle_out,
                    ffi::RemainingRets rets) {
  thread_local std::vector<EnvfleetArray> outputs;
  Registered pool;
  if (ffi::Error error = Lookup(handle, handle_out, &pool); error.failure()) return error;
  if (ffi::Error error = CollectOutputs(pool, rets, outputs); error.failure()) return error;
  const char* error = pool.api->recv(pool.api->pool, outputs.data(), pool.api->num_keys);
  if (error != nullptr) return Failure(error);
  MarkFirsts(pool, outputs);
  return ffi::Error::Success();
}

ffi::Error StepImpl(ffi::AnyBuffer handle, ffi::AnyBuffer action, ffi::Buffer<ffi::S32> env_id,
                    ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets rets) {
  thread_local std::vector<EnvfleetArray> outputs;
  Registered pool;
  if (ffi::Error error = Lookup(handle, handle_out, &pool); error.failure()) return error;
  if (ffi::Error error = CollectOutputs(pool, rets, outputs); error.failure()) return error;
  const EnvfleetArray actions = ToArray(action);
  const char* error = pool.api->step(pool.api->pool, &actions, env_id.typed_data(),
                                     static_cast<int64_t>(env_id.element_count()), outputs.data(),
                                     pool.api->num_keys);
  if (error != nullptr) return Failure(error);
  MarkFirsts(pool, outputs);
  return ffi::Error::Success();
}

// The table in a Pool.pool_api() capsule, checked to speak this module's version.
const EnvfleetPoolApi* ApiOf(nb::handle capsule) {
  auto* api = static_cast<const EnvfleetPoolApi*>(
      PyCapsule_GetPointer(capsule.ptr(), ENVFLEET_POOL_API_CAPSULE));
  if (api == nullptr) throw nb::python_error();
  if (api->version != ENVFLEET_POOL_API_VERSION) {
    throw nb::value_error(("the pool's C API has version " + std::to_string(api->version) +
                           " but envfleet._xla speaks version " +
                           std::to_string(ENVFLEET_POOL_API_VERSION) +
                           ": reinstall envfleet so that its modules match")
                              .c_str());
  }
  return api;
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvfleetSend, SendImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::Buffer<ffi::S32>>()
                                  .Ret<ffi::AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    EnvfleetRecv, RecvImpl,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>().RemainingRets());
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvfleetStep, StepImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::Buffer<ffi::S32>>()
                                  .Ret<ffi::AnyBuffer>()
                                  .RemainingRets());

NB_MODULE(_xla, m) {
  m.doc() = "envfleet's XLA FFI handlers: a pool's send/recv/step as JAX custom calls.";

  m.def(
      "handlers",
      [] {
        nb::dict targets;
        targets["envfleet_send"] = nb::capsule(reinterpret_cast<void*>(EnvfleetSend));
        targets["envfleet_recv"] = nb::capsule(reinterpret_cast<void*>(EnvfleetRecv));
        targets["envfleet_step"] = nb::capsule(reinterpret_cast<void*>(EnvfleetStep));
        return targets;
      },
      "The FFI targets to register with jax.ffi.register_ffi_target (platform 'cpu').");

  m.def(
      "pool_layout",
      [](nb::handle api_capsule) {
        const EnvfleetPoolApi* api = ApiOf(api_capsule);
        nb::list keys;
        for (int32_t k = 0; k < api->num_keys; ++k) {
          const EnvfleetKey& key = api->keys[k];
          nb::list shape;
          for (int32_t d = 0; d < key.ndim; ++d) shape.append(key.shape[d]);
          keys.append(nb::make_tuple(key.dtype, nb::tuple(shape)));
        }
        return nb::make_tuple(api->num_envs, api->batch_size, keys);
      },
      nb::arg("api"),
      "(num_envs, batch_size, [(dtype code, per-row shape) per key]) of a pool's C table.");

  m.def(
      "register_pool",
      [](nb::handle api_capsule, uintptr_t ended_address, bool first) {
        const EnvfleetPoolApi* api = ApiOf(api_capsule);
        std::lock_guard<std::mutex> lock(registry_mutex);
        const uint32_t id = next_id++;
        registry[id] = {api, reinterpret_cast<bool*>(ended_address), first};
        return id;
      },
      nb::arg("api"), nb::arg("ended_address"), nb::arg("first"),
      "Registers a pool's plain-C table (Pool.pool_api()); returns the id its handle holds.\n"
      "The caller keeps the pool (and the `ended` bool array at ended_address, if not 0)\n"
      "alive until unregister_pool(id).");

  m.def(
      "unregister_pool",
      [](uint32_t id) {
        std::lock_guard<std::mutex> lock(registry_mutex);
        registry.erase(id);
      },
      nb::arg("id"), "Forgets a pool: calls with its handle fail from now on.");

  m.def(
      "num_registered",
      [] {
        std::lock_guard<std::mutex> lock(registry_mutex);
        return registry.size();
      },
      "How many pools are registered (for tests).");
}
