// The GPU side of env.xla(): a pool's send/recv/step when XLA runs the computation on a GPU.
// The pool lives in host memory and steps on CPU threads, so each call moves its arguments
// from device memory to the host and its results back, on XLA's stream, through page-locked
// ("pinned") host buffers that each pool allocates once, on its first GPU call:
//
//   send   D2H copies of the handle, env ids and actions into the input staging; one stream
//          synchronise (the values must be on the host before the pool reads them); the handle
//          checked against the call's pool id; the pool's send.
//   step   as send, then the pool writes the batch into an output staging half and async H2D
//          copies go to XLA's result buffers, followed by an event: no second synchronise,
//          the stream orders the copies before whatever reads the results.
//   recv   no synchronise at all (it takes nothing from the device but the handle, whose
//          value it therefore cannot check): wait on the event of the output half it is about
//          to reuse, the pool's recv into it, H2D copies, the event recorded again. The output
//          staging is double-buffered, so the event a call waits on was recorded two calls
//          ago and has normally long completed.
//   The handle result aliases the handle argument (input_output_aliases in src/envfleet/xla.py);
//   where XLA gives another buffer anyway, an async D2D copy fills it.
//
// The checks and errors are the CPU handlers' (the pool's own, through its plain-C table),
// plus the few that protect the staging buffers. A call holds the staging's lock throughout,
// so a pool's GPU calls never interleave; the pool's own lock orders them with its Python
// and CPU-handler calls.
//
// This header knows neither XLA's FFI nor CUDA: it is written against a `Device`, which is
// CudaDriver (cuda_driver.h) in envfleet._xla and a fake in the tests (tests/cpp/xla/
// fake_device.h, a stream that defers every copy as late as a GPU may run it). A Device has
// pointer types Stream, Event and Context (a null Context means none) and these operations,
// each returning "" or an error message:
//   CurrentContext(Context*), StreamContext(Stream, Context*), PushContext(Context),
//   PopContext()
//   AllocHost(bytes, void**), FreeHost(void*)            page-locked host memory
//   CopyToHost(host, device, bytes, Stream)              queued on the stream
//   CopyToDevice(device, host, bytes, Stream)            queued
//   CopyOnDevice(to, from, bytes, Stream)                queued
//   Synchronize(Stream)                                  waits for everything queued so far
//   CreateEvent(Event*), DestroyEvent(Event), RecordEvent(Event, Stream), WaitEvent(Event)
#ifndef ENVFLEET_XLA_GPU_STAGING_H_
#define ENVFLEET_XLA_GPU_STAGING_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "bind/pool_api.h"
#include "xla/pool_entry.h"

namespace envfleet::xla {

// One buffer of a call as XLA hands it over: device memory.
struct CallBuffer {
  void* data = nullptr;
  int32_t dtype = -1;  // an EnvfleetDType; -1 for a type the pool takes nowhere
  int64_t elements = 0;
  size_t bytes = 0;
};

template <typename Device>
class GpuStaging {
 public:
  using Stream = typename Device::Stream;
  using Event = typename Device::Event;
  using Context = typename Device::Context;

  // Lays the staging out from the pool's table; allocates nothing until the first call.
  GpuStaging(const PoolEntry& pool, uint32_t pool_id) : pool_(pool), pool_id_(pool_id) {
    const EnvfleetPoolApi& api = *pool.api;
    size_t end = 0;
    const auto place = [&end](size_t bytes) {
      const size_t offset = end;
      end = RoundUp(offset + bytes);
      return offset;
    };
    handle_offset_ = place(sizeof(uint32_t));
    env_ids_offset_ = place(static_cast<size_t>(api.num_envs) * sizeof(int32_t));
    action_capacity_ = static_cast<size_t>(api.num_envs) *
                       static_cast<size_t>(NumElements(api.action)) *
                       WidestItemSize(api.action.dtype);
    actions_offset_ = place(action_capacity_);
    const size_t rows = static_cast<size_t>(api.batch_size);
    for (int32_t k = 0; k < api.num_keys; ++k) {
      const EnvfleetKey& key = api.keys[k];
      output_capacity_.push_back(rows * static_cast<size_t>(NumElements(key)) *
                                 WidestItemSize(key.dtype));
    }
    if (pool.first) output_capacity_.push_back(rows);  // one bool per row
    for (Half& half : halves_) {
      for (size_t capacity : output_capacity_) half.offsets.push_back(place(capacity));
    }
    total_bytes_ = end;
    arrays_.resize(output_capacity_.size());
  }

  GpuStaging(const GpuStaging&) = delete;
  GpuStaging& operator=(const GpuStaging&) = delete;

  // Waits for the copies still reading the buffers, then frees them, in their own context.
  ~GpuStaging() {
    if (memory_ == nullptr) return;
    Device& device = *device_;
    Context current = nullptr;
    bool pushed = false;
    if (!device.CurrentContext(&current).empty()) current = nullptr;
    if (current != context_) {
      // A context that cannot be entered is gone, and its memory and events with it.
      if (!device.PushContext(context_).empty()) return;
      pushed = true;
    }
    for (Half& half : halves_) {
      if (half.pending) (void)device.WaitEvent(half.event);
      device.DestroyEvent(half.event);
    }
    device.FreeHost(memory_);
    if (pushed) (void)device.PopContext();
  }

  // send(handle, action, env_ids) -> handle_out.
  std::string Send(Device& device, Stream stream, const void* handle, void* handle_out,
                   const CallBuffer& action, const CallBuffer& env_ids) {
    std::lock_guard<std::mutex> lock(mutex_);
    ContextScope scope;
    std::string error = Prepare(device, stream, scope);
    if (error.empty()) error = StageInputs(device, stream, handle, action, env_ids);
    if (!error.empty()) return error;
    const EnvfleetArray actions = StagedActions(action);
    if (const char* failed =
            pool_.api->send(pool_.api->pool, &actions, StagedEnvIds(), env_ids.elements)) {
      return failed;
    }
    return PassHandle(device, stream, handle, handle_out);
  }

  // recv(handle) -> handle_out, outputs[0..num_outputs): the batch's arrays, then `first`.
  std::string Recv(Device& device, Stream stream, const void* handle, void* handle_out,
                   const CallBuffer* outputs, size_t num_outputs) {
    std::lock_guard<std::mutex> lock(mutex_);
    ContextScope scope;
    std::string error = Prepare(device, stream, scope);
    if (error.empty()) error = CheckOutputs(outputs, num_outputs);
    Half& half = halves_[next_half_];
    if (error.empty()) error = ClaimHalf(device, half, outputs);
    if (!error.empty()) return error;
    if (const char* failed =
            pool_.api->recv(pool_.api->pool, arrays_.data(), pool_.api->num_keys)) {
      return failed;
    }
    return Deliver(device, stream, half, handle, handle_out, outputs);
  }

  // step(handle, action, env_ids) -> handle_out, outputs: send, then recv, with one
  // synchronise (for the inputs).
  std::string Step(Device& device, Stream stream, const void* handle, void* handle_out,
                   const CallBuffer& action, const CallBuffer& env_ids, const CallBuffer* outputs,
                   size_t num_outputs) {
    std::lock_guard<std::mutex> lock(mutex_);
    ContextScope scope;
    std::string error = Prepare(device, stream, scope);
    if (error.empty()) error = CheckOutputs(outputs, num_outputs);
    if (error.empty()) error = StageInputs(device, stream, handle, action, env_ids);
    Half& half = halves_[next_half_];
    if (error.empty()) error = ClaimHalf(device, half, outputs);
    if (!error.empty()) return error;
    const EnvfleetArray actions = StagedActions(action);
    if (const char* failed =
            pool_.api->step(pool_.api->pool, &actions, StagedEnvIds(), env_ids.elements,
                            arrays_.data(), pool_.api->num_keys)) {
      return failed;
    }
    return Deliver(device, stream, half, handle, handle_out, outputs);
  }

  // Bytes of page-locked memory the staging takes (once allocated).
  size_t total_bytes() const { return total_bytes_; }

 private:
  static constexpr size_t kAlign = 64;  // each buffer on its own cache line
  static size_t RoundUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

  struct Half {
    std::vector<size_t> offsets;  // of each output in the staging memory
    Event event = nullptr;        // recorded after the copies that read this half
    bool pending = false;         // recorded and not yet waited on
  };

  // Makes the stream's context current on this thread for one call where none is (XLA's
  // threads have theirs current; another caller may not), and leaves the thread as it was.
  class ContextScope {
   public:
    ContextScope() = default;
    ContextScope(const ContextScope&) = delete;
    ContextScope& operator=(const ContextScope&) = delete;
    ~ContextScope() {
      if (pushed_ != nullptr) (void)pushed_->PopContext();
    }
    std::string Enter(Device& device, Stream stream, Context* context) {
      if (std::string error = device.CurrentContext(context); !error.empty()) return error;
      if (*context != nullptr) return {};
      if (std::string error = device.StreamContext(stream, context); !error.empty()) return error;
      if (std::string error = device.PushContext(*context); !error.empty()) return error;
      pushed_ = &device;
      return {};
    }

   private:
    Device* pushed_ = nullptr;
  };

  // Enters the stream's context and, on the first call, allocates the staging in it.
  std::string Prepare(Device& device, Stream stream, ContextScope& scope) {
    Context context = nullptr;
    if (std::string error = scope.Enter(device, stream, &context); !error.empty()) return error;
    if (memory_ != nullptr) {
      if (context == context_) return {};
      return "envfleet: this pool's GPU calls ran in another CUDA context (another GPU) "
             "before; one pool's env.xla() calls run on one device";
    }
    void* memory = nullptr;
    if (std::string error = device.AllocHost(total_bytes_, &memory); !error.empty()) {
      return error;
    }
    for (size_t h = 0; h < 2; ++h) {
      if (std::string error = device.CreateEvent(&halves_[h].event); !error.empty()) {
        if (h == 1) device.DestroyEvent(halves_[0].event);
        device.FreeHost(memory);
        return error;
      }
    }
    memory_ = static_cast<char*>(memory);
    device_ = &device;
    context_ = context;
    return {};
  }

  // Copies the call's inputs into the input staging and synchronises the stream once, so
  // that the pool reads them on the host; then checks the handle's value.
  std::string StageInputs(Device& device, Stream stream, const void* handle,
                          const CallBuffer& action, const CallBuffer& env_ids) {
    const int32_t num_envs = pool_.api->num_envs;
    if (env_ids.elements > num_envs) {  // the pool's own message (RawSend in env_module.h)
      return "env_id has " + std::to_string(env_ids.elements) + " entries but there are only " +
             std::to_string(num_envs) + " envs";
    }
    if (action.bytes > action_capacity_) {
      return "envfleet: the action batch has " + std::to_string(action.bytes) +
             " bytes, more than actions for all " + std::to_string(num_envs) + " envs take (" +
             std::to_string(action_capacity_) + ")";
    }
    std::string error =
        device.CopyToHost(memory_ + handle_offset_, handle, sizeof(uint32_t), stream);
    if (error.empty()) {
      error = device.CopyToHost(StagedEnvIds(), env_ids.data,
                                static_cast<size_t>(env_ids.elements) * sizeof(int32_t), stream);
    }
    if (error.empty()) {
      error = device.CopyToHost(memory_ + actions_offset_, action.data, action.bytes, stream);
    }
    // On a failed copy the synchronise still runs: no copy into the staging may outlive the
    // call.
    const std::string synchronised = device.Synchronize(stream);
    if (!error.empty()) return error;
    if (!synchronised.empty()) return synchronised;
    uint32_t value;
    std::memcpy(&value, memory_ + handle_offset_, sizeof(value));
    return HandleProblem(value, pool_id_);
  }

  // Why XLA's result buffers cannot take the batch, or "".
  std::string CheckOutputs(const CallBuffer* outputs, size_t num_outputs) const {
    if (num_outputs != output_capacity_.size()) {
      return "envfleet: the call has " + std::to_string(num_outputs + 1) +
             " results but this pool gives " + std::to_string(output_capacity_.size() + 1);
    }
    for (size_t i = 0; i < num_outputs; ++i) {
      if (outputs[i].bytes > output_capacity_[i]) {
        return "envfleet: result " + std::to_string(i + 1) + " has " +
               std::to_string(outputs[i].bytes) + " bytes, more than the batch's array takes (" +
               std::to_string(output_capacity_[i]) + ")";
      }
    }
    return {};
  }

  // Waits until no copy reads `half` any more and points the pool's outputs into it, with
  // the dtypes and sizes of XLA's buffers.
  std::string ClaimHalf(Device& device, Half& half, const CallBuffer* outputs) {
    if (half.pending) {
      if (std::string error = device.WaitEvent(half.event); !error.empty()) return error;
      half.pending = false;
    }
    for (size_t i = 0; i < arrays_.size(); ++i) {
      arrays_[i] = {memory_ + half.offsets[i], outputs[i].dtype, outputs[i].elements};
    }
    return {};
  }

  // After the pool filled `half`: `first`, the H2D copies of the results, the handle, the
  // event that guards the half, and the other half for the next call.
  std::string Deliver(Device& device, Stream stream, Half& half, const void* handle,
                      void* handle_out, const CallBuffer* outputs) {
    MarkFirsts(pool_, arrays_.data());
    std::string error;
    for (size_t i = 0; i < arrays_.size() && error.empty(); ++i) {
      error = device.CopyToDevice(outputs[i].data, arrays_[i].data, outputs[i].bytes, stream);
    }
    // Recorded even after a failed copy: the ones queued before it read the half.
    std::string recorded = device.RecordEvent(half.event, stream);
    if (recorded.empty()) {
      half.pending = true;
    } else {
      (void)device.Synchronize(stream);  // no event to wait on later: drain the copies now
    }
    next_half_ ^= 1;
    if (error.empty()) error = recorded;
    if (error.empty()) error = PassHandle(device, stream, handle, handle_out);
    return error;
  }

  std::string PassHandle(Device& device, Stream stream, const void* handle, void* handle_out) {
    if (handle_out == handle) return {};
    return device.CopyOnDevice(handle_out, handle, sizeof(uint32_t), stream);
  }

  int32_t* StagedEnvIds() { return reinterpret_cast<int32_t*>(memory_ + env_ids_offset_); }
  EnvfleetArray StagedActions(const CallBuffer& action) {
    return {memory_ + actions_offset_, action.dtype, action.elements};
  }

  std::mutex mutex_;
  const PoolEntry pool_;
  const uint32_t pool_id_;
  // The layout, fixed at construction: offsets into one allocation of total_bytes_.
  size_t handle_offset_ = 0, env_ids_offset_ = 0, actions_offset_ = 0, action_capacity_ = 0;
  std::vector<size_t> output_capacity_;  // per result after the handle: keys, then `first`
  size_t total_bytes_ = 0;
  Half halves_[2];
  size_t next_half_ = 0;
  std::vector<EnvfleetArray> arrays_;  // the pool's outputs, pointing into a half
  // Set by the first call.
  char* memory_ = nullptr;
  Device* device_ = nullptr;
  Context context_ = nullptr;
};

}  // namespace envfleet::xla

#endif  // ENVFLEET_XLA_GPU_STAGING_H_
