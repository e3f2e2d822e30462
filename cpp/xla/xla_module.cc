// envfleet._xla: XLA FFI handlers that send to and receive from a pool inside a jitted JAX
// computation (env.xla(), src/envfleet/xla.py). Built only when JAX is importable at build
// time (its FFI headers come from jax.ffi.include_dir()); loaded only by env.xla().
//
// The handlers never see a pool's C++ type: each engine module hands out, per pool, a table of
// plain-C functions (cpp/bind/pool_api.h) that this module calls. A pool is registered here
// under a small integer id. Every call carries that id as its static attribute `pool_id`, and
// the same id is the value of the JAX "handle" array threaded through the calls: the handlers
// find the pool by the attribute (a handle in GPU memory cannot be read without a copy) and
// check the handle against it. An id whose pool is gone gives an error, never a wild pointer.
//
// Handlers, for XLA's CPU runtime and for CUDA (each call on the thread that launches the
// computation's work, without the GIL):
//   envfleet_send(handle, action, env_id; pool_id) -> handle
//   envfleet_recv(handle; pool_id) -> handle, batch arrays..., [first]
//   envfleet_step(handle, action, env_id; pool_id) -> handle, batch arrays..., [first]
// The batch arrays are the pool's keys in Pool.keys() order. `first` (dm_env front end only)
// flags the rows that start an episode: elapsed_step == 0, or, for a pool registered with
// its front end's `ended` array (NEXT_STEP autoreset), an env whose previous result was LAST;
// `ended` is updated as the front end's own recv updates it, so Python and XLA calls agree.
// The CPU handlers pass XLA's buffers to the pool; the CUDA ones go through the pool's GPU
// staging (gpu_staging.h: pinned host buffers, async copies on XLA's stream, at most one
// synchronise per call), with the CUDA driver loaded on their first call (cuda_driver.h).
#include <nanobind/nanobind.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "bind/pool_api.h"
#include "xla/cuda_driver.h"
#include "xla/ffi/api/ffi.h"
#include "xla/gpu_staging.h"
#include "xla/pool_entry.h"

namespace {

namespace ffi = xla::ffi;
namespace nb = nanobind;
using envfleet::xla::CallBuffer;
using envfleet::xla::CudaDriver;
using envfleet::xla::CUstream;
using envfleet::xla::PoolEntry;

struct Registered {
  Registered(const PoolEntry& entry, uint32_t id) : pool(entry), gpu(entry, id) {}
  const PoolEntry pool;
  envfleet::xla::GpuStaging<CudaDriver> gpu;  // allocates on the pool's first GPU call
};

std::mutex registry_mutex;
// Never destroyed: at exit, a static's destructor would free GPU staging after the CUDA
// driver has gone (the process's end frees it anyway). A GPU call holds its entry by a
// shared_ptr, so unregistering a pool during one frees its staging only after it.
auto& registry = *new std::unordered_map<uint32_t, std::shared_ptr<Registered>>();
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

CallBuffer ToCallBuffer(const ffi::AnyBuffer& buffer) {
  return {buffer.untyped_data(), ToDType(buffer.element_type()),
          static_cast<int64_t>(buffer.element_count()), buffer.size_bytes()};
}

CallBuffer ToCallBuffer(const ffi::Buffer<ffi::S32>& buffer) {
  return {buffer.untyped_data(), ENVFLEET_INT32, static_cast<int64_t>(buffer.element_count()),
          buffer.size_bytes()};
}

ffi::Error Failure(const std::string& message) {
  return ffi::Error(ffi::ErrorCode::kUnknown, message);
}

ffi::Error CheckHandleType(const ffi::AnyBuffer& handle) {
  if (handle.element_type() != ffi::DataType::U32 || handle.element_count() != 1) {
    return Failure("envfleet: the handle must be the uint32[1] array env.xla() returned");
  }
  return ffi::Error::Success();
}

ffi::Error NoLivePool(uint32_t pool_id) {
  return Failure("envfleet: pool id " + std::to_string(pool_id) +
                 " names no live pool (its env was freed, or the call was not made by "
                 "env.xla())");
}

// ---- CPU: XLA's buffers are host memory, handed to the pool as they are -------------------

// Finds the call's pool, checks the handle it was given and passes it on to `handle_out`.
ffi::Error LookupOnHost(uint32_t pool_id, const ffi::AnyBuffer& handle,
                        ffi::Result<ffi::AnyBuffer>& handle_out, PoolEntry* pool) {
  if (ffi::Error error = CheckHandleType(handle); error.failure()) return error;
  {
    // Copied out as plain values: the table lives as long as the registration, which the
    // Python side keeps while the jitted functions exist.
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry.find(pool_id);
    if (it == registry.end()) return NoLivePool(pool_id);
    *pool = it->second->pool;
  }
  const uint32_t value = *static_cast<const uint32_t*>(handle.untyped_data());
  if (std::string problem = envfleet::xla::HandleProblem(value, pool_id); !problem.empty()) {
    return Failure(problem);
  }
  if (handle_out->untyped_data() != handle.untyped_data()) {
    std::memcpy(handle_out->untyped_data(), handle.untyped_data(), sizeof(uint32_t));
  }
  return ffi::Error::Success();
}

// The batch arrays of a recv/step result, as the pool API takes them.
ffi::Error CollectOutputs(const PoolEntry& pool, const ffi::RemainingRets& rets,
                          std::vector<EnvfleetArray>& outputs) {
  const size_t expected = static_cast<size_t>(pool.api->num_keys) + (pool.first ? 1 : 0);
  if (rets.size() != expected) {
    return Failure("envfleet: the call has " + std::to_string(rets.size() + 1) +
                   " results but this pool gives " + std::to_string(expected + 1));
  }
  outputs.clear();
  for (size_t i = 0; i < rets.size(); ++i) {
    auto ret = rets.get<ffi::AnyBuffer>(i);
    if (ret.has_error()) return ret.error();
    outputs.push_back(ToArray(*ret.value()));
  }
  return ffi::Error::Success();
}

ffi::Error SendOnHost(ffi::AnyBuffer handle, ffi::AnyBuffer action, ffi::Buffer<ffi::S32> env_id,
                      ffi::Result<ffi::AnyBuffer> handle_out, uint32_t pool_id) {
  PoolEntry pool;
  if (ffi::Error error = LookupOnHost(pool_id, handle, handle_out, &pool); error.failure()) {
    return error;
  }
  const EnvfleetArray actions = ToArray(action);
  const char* error = pool.api->send(pool.api->pool, &actions, env_id.typed_data(),
                                     static_cast<int64_t>(env_id.element_count()));
  return error == nullptr ? ffi::Error::Success() : Failure(error);
}

ffi::Error RecvOnHost(ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> handle_out,
                      ffi::RemainingRets rets, uint32_t pool_id) {
  thread_local std::vector<EnvfleetArray> outputs;
  PoolEntry pool;
  if (ffi::Error error = LookupOnHost(pool_id, handle, handle_out, &pool); error.failure()) {
    return error;
  }
  if (ffi::Error error = CollectOutputs(pool, rets, outputs); error.failure()) return error;
  const char* error = pool.api->recv(pool.api->pool, outputs.data(), pool.api->num_keys);
  if (error != nullptr) return Failure(error);
  envfleet::xla::MarkFirsts(pool, outputs.data());
  return ffi::Error::Success();
}

ffi::Error StepOnHost(ffi::AnyBuffer handle, ffi::AnyBuffer action, ffi::Buffer<ffi::S32> env_id,
                      ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets rets,
                      uint32_t pool_id) {
  thread_local std::vector<EnvfleetArray> outputs;
  PoolEntry pool;
  if (ffi::Error error = LookupOnHost(pool_id, handle, handle_out, &pool); error.failure()) {
    return error;
  }
  if (ffi::Error error = CollectOutputs(pool, rets, outputs); error.failure()) return error;
  const EnvfleetArray actions = ToArray(action);
  const char* error = pool.api->step(pool.api->pool, &actions, env_id.typed_data(),
                                     static_cast<int64_t>(env_id.element_count()), outputs.data(),
                                     pool.api->num_keys);
  if (error != nullptr) return Failure(error);
  envfleet::xla::MarkFirsts(pool, outputs.data());
  return ffi::Error::Success();
}

// ---- CUDA: XLA's buffers are device memory; the pool's GPU staging moves them ---------------

// The call's pool, held for the call (its staging outlives an unregistering meanwhile), and
// the loaded driver.
ffi::Error PrepareOnDevice(uint32_t pool_id, const ffi::AnyBuffer& handle,
                           std::shared_ptr<Registered>* entry, CudaDriver** driver) {
  if (ffi::Error error = CheckHandleType(handle); error.failure()) return error;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry.find(pool_id);
    if (it == registry.end()) return NoLivePool(pool_id);
    *entry = it->second;
  }
  std::string problem;
  *driver = CudaDriver::Get(&problem);
  return *driver != nullptr ? ffi::Error::Success() : Failure(problem);
}

// XLA's result buffers after the handle, as the staging takes them.
ffi::Error CollectDeviceOutputs(const ffi::RemainingRets& rets, std::vector<CallBuffer>& outputs) {
  outputs.clear();
  for (size_t i = 0; i < rets.size(); ++i) {
    auto ret = rets.get<ffi::AnyBuffer>(i);
    if (ret.has_error()) return ret.error();
    outputs.push_back(ToCallBuffer(*ret.value()));
  }
  return ffi::Error::Success();
}

ffi::Error Outcome(const std::string& error) {
  return error.empty() ? ffi::Error::Success() : Failure(error);
}

ffi::Error SendOnDevice(CUstream stream, ffi::AnyBuffer handle, ffi::AnyBuffer action,
                        ffi::Buffer<ffi::S32> env_id, ffi::Result<ffi::AnyBuffer> handle_out,
                        uint32_t pool_id) {
  std::shared_ptr<Registered> entry;
  CudaDriver* driver = nullptr;
  if (ffi::Error error = PrepareOnDevice(pool_id, handle, &entry, &driver); error.failure()) {
    return error;
  }
  return Outcome(entry->gpu.Send(*driver, stream, handle.untyped_data(), handle_out->untyped_data(),
                                 ToCallBuffer(action), ToCallBuffer(env_id)));
}

ffi::Error RecvOnDevice(CUstream stream, ffi::AnyBuffer handle,
                        ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets rets,
                        uint32_t pool_id) {
  thread_local std::vector<CallBuffer> outputs;
  std::shared_ptr<Registered> entry;
  CudaDriver* driver = nullptr;
  if (ffi::Error error = PrepareOnDevice(pool_id, handle, &entry, &driver); error.failure()) {
    return error;
  }
  if (ffi::Error error = CollectDeviceOutputs(rets, outputs); error.failure()) return error;
  return Outcome(entry->gpu.Recv(*driver, stream, handle.untyped_data(), handle_out->untyped_data(),
                                 outputs.data(), outputs.size()));
}

ffi::Error StepOnDevice(CUstream stream, ffi::AnyBuffer handle, ffi::AnyBuffer action,
                        ffi::Buffer<ffi::S32> env_id, ffi::Result<ffi::AnyBuffer> handle_out,
                        ffi::RemainingRets rets, uint32_t pool_id) {
  thread_local std::vector<CallBuffer> outputs;
  std::shared_ptr<Registered> entry;
  CudaDriver* driver = nullptr;
  if (ffi::Error error = PrepareOnDevice(pool_id, handle, &entry, &driver); error.failure()) {
    return error;
  }
  if (ffi::Error error = CollectDeviceOutputs(rets, outputs); error.failure()) return error;
  return Outcome(entry->gpu.Step(*driver, stream, handle.untyped_data(), handle_out->untyped_data(),
                                 ToCallBuffer(action), ToCallBuffer(env_id), outputs.data(),
                                 outputs.size()));
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

XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvfleetSend, SendOnHost,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::Buffer<ffi::S32>>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<uint32_t>("pool_id"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    EnvfleetRecv, RecvOnHost,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>().RemainingRets().Attr<uint32_t>(
        "pool_id"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvfleetStep, StepOnHost,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::Buffer<ffi::S32>>()
                                  .Ret<ffi::AnyBuffer>()
                                  .RemainingRets()
                                  .Attr<uint32_t>("pool_id"));
// The same calls for CUDA, with XLA's stream first.
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvfleetSendCuda, SendOnDevice,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<CUstream>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::Buffer<ffi::S32>>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<uint32_t>("pool_id"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvfleetRecvCuda, RecvOnDevice,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<CUstream>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .RemainingRets()
                                  .Attr<uint32_t>("pool_id"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvfleetStepCuda, StepOnDevice,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<CUstream>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::Buffer<ffi::S32>>()
                                  .Ret<ffi::AnyBuffer>()
                                  .RemainingRets()
                                  .Attr<uint32_t>("pool_id"));

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
      "cuda_handlers",
      [] {
        nb::dict targets;
        targets["envfleet_send"] = nb::capsule(reinterpret_cast<void*>(EnvfleetSendCuda));
        targets["envfleet_recv"] = nb::capsule(reinterpret_cast<void*>(EnvfleetRecvCuda));
        targets["envfleet_step"] = nb::capsule(reinterpret_cast<void*>(EnvfleetStepCuda));
        return targets;
      },
      "The same targets for platform 'CUDA'. They load the CUDA driver (libcuda.so.1) on\n"
      "their first call, not before: registering them needs no GPU.");

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
        const PoolEntry entry{api, reinterpret_cast<bool*>(ended_address), first};
        registry[id] = std::make_shared<Registered>(entry, id);
        return id;
      },
      nb::arg("api"), nb::arg("ended_address"), nb::arg("first"),
      "Registers a pool's plain-C table (Pool.pool_api()); returns the id its handle holds.\n"
      "The caller keeps the pool (and the `ended` bool array at ended_address, if not 0)\n"
      "alive until unregister_pool(id).");

  m.def(
      "unregister_pool",
      [](uint32_t id) {
        std::shared_ptr<Registered> entry;
        {
          std::lock_guard<std::mutex> lock(registry_mutex);
          auto it = registry.find(id);
          if (it == registry.end()) return;
          entry = std::move(it->second);
          registry.erase(it);
        }
        // Freeing GPU staging waits for the copies still reading it: not under the lock, and
        // not with the GIL held.
        nb::gil_scoped_release release;
        entry.reset();
      },
      nb::arg("id"), "Forgets a pool (and frees its GPU staging): its calls fail from now on.");

  m.def(
      "num_registered",
      [] {
        std::lock_guard<std::mutex> lock(registry_mutex);
        return registry.size();
      },
      "How many pools are registered (for tests).");
}
