// The few CUDA driver entry points envfleet._xla's GPU handlers use, loaded at run time:
// libcuda.so.1 is dlopen'ed on the first GPU call, so the module builds without CUDA headers
// or libraries and imports on machines without a GPU; and it links no CUDA runtime, so one
// build serves JAX's CUDA 12 and CUDA 13 plugins alike (the driver's C ABI is stable, and the
// driver is what JAX itself runs on). The types are declared here as cuda.h declares them.
//
// CudaDriver is the `Device` of GpuStaging (gpu_staging.h, which lists the operations). Every
// failure, loading included, comes back as an error string for XLA, never an abort.
#ifndef ENVFLEET_XLA_CUDA_DRIVER_H_
#define ENVFLEET_XLA_CUDA_DRIVER_H_

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace envfleet::xla {

using CUresult = int;                    // CUDA_SUCCESS is 0
using CUdeviceptr = unsigned long long;  // NOLINT(runtime/int): cuda.h's type
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUcontext = struct CUctx_st*;

class CudaDriver {
 public:
  using Stream = CUstream;
  using Event = CUevent;
  using Context = CUcontext;

  // The driver, loaded on the first call (thread-safe); null with *error set where
  // libcuda.so.1 or one of its entry points is missing, or cuInit fails.
  static CudaDriver* Get(std::string* error) {
    static const Loaded loaded = Load();
    if (loaded.driver == nullptr) *error = loaded.error;
    return loaded.driver;
  }

  std::string CurrentContext(Context* context) {
    return Check(ctx_get_current_(context), "cuCtxGetCurrent");
  }
  std::string StreamContext(Stream stream, Context* context) {
    return Check(stream_get_ctx_(stream, context), "cuStreamGetCtx");
  }
  std::string PushContext(Context context) {
    return Check(ctx_push_current_(context), "cuCtxPushCurrent");
  }
  std::string PopContext() {
    Context popped = nullptr;
    return Check(ctx_pop_current_(&popped), "cuCtxPopCurrent");
  }

  // Page-locked host memory, usable by every context (PORTABLE): copies from and to it are
  // truly asynchronous.
  std::string AllocHost(size_t bytes, void** memory) {
    constexpr unsigned kPortable = 0x01;  // CU_MEMHOSTALLOC_PORTABLE
    return Check(mem_host_alloc_(memory, bytes, kPortable), "cuMemHostAlloc");
  }
  void FreeHost(void* memory) { (void)mem_free_host_(memory); }

  std::string CopyToHost(void* host, const void* device, size_t bytes, Stream stream) {
    if (bytes == 0) return {};
    return Check(memcpy_dtoh_async_(host, Address(device), bytes, stream), "cuMemcpyDtoHAsync");
  }
  std::string CopyToDevice(void* device, const void* host, size_t bytes, Stream stream) {
    if (bytes == 0) return {};
    return Check(memcpy_htod_async_(Address(device), host, bytes, stream), "cuMemcpyHtoDAsync");
  }
  std::string CopyOnDevice(void* to, const void* from, size_t bytes, Stream stream) {
    if (bytes == 0) return {};
    return Check(memcpy_dtod_async_(Address(to), Address(from), bytes, stream),
                 "cuMemcpyDtoDAsync");
  }
  std::string Synchronize(Stream stream) {
    return Check(stream_synchronize_(stream), "cuStreamSynchronize");
  }

  // Events only order host and stream: no timing (CU_EVENT_DISABLE_TIMING makes them cheaper).
  std::string CreateEvent(Event* event) {
    constexpr unsigned kDisableTiming = 0x02;
    return Check(event_create_(event, kDisableTiming), "cuEventCreate");
  }
  void DestroyEvent(Event event) { (void)event_destroy_(event); }
  std::string RecordEvent(Event event, Stream stream) {
    return Check(event_record_(event, stream), "cuEventRecord");
  }
  std::string WaitEvent(Event event) {
    return Check(event_synchronize_(event), "cuEventSynchronize");
  }

 private:
  struct Loaded {
    CudaDriver* driver = nullptr;
    std::string error;
  };

  static Loaded Load() {
    Loaded loaded;
    // Never closed: the handlers may run until the process ends.
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      loaded.error = std::string(
                         "envfleet: env.xla()'s GPU calls need the CUDA driver, "
                         "libcuda.so.1, which could not be loaded: ") +
                     (why != nullptr ? why : "unknown reason");
      return loaded;
    }
    auto* driver = new CudaDriver();
    std::string missing;
    const auto find = [&](auto& function, const char* name) {
      function =
          reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, name));
      if (function == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    find(driver->init_, "cuInit");
    find(driver->get_error_string_, "cuGetErrorString");
    find(driver->get_error_name_, "cuGetErrorName");
    find(driver->ctx_get_current_, "cuCtxGetCurrent");
    find(driver->stream_get_ctx_, "cuStreamGetCtx");
    find(driver->ctx_push_current_, "cuCtxPushCurrent_v2");
    find(driver->ctx_pop_current_, "cuCtxPopCurrent_v2");
    find(driver->mem_host_alloc_, "cuMemHostAlloc");
    find(driver->mem_free_host_, "cuMemFreeHost");
    find(driver->memcpy_dtoh_async_, "cuMemcpyDtoHAsync_v2");
    find(driver->memcpy_htod_async_, "cuMemcpyHtoDAsync_v2");
    find(driver->memcpy_dtod_async_, "cuMemcpyDtoDAsync_v2");
    find(driver->stream_synchronize_, "cuStreamSynchronize");
    find(driver->event_create_, "cuEventCreate");
    find(driver->event_destroy_, "cuEventDestroy_v2");
    find(driver->event_record_, "cuEventRecord");
    find(driver->event_synchronize_, "cuEventSynchronize");
    if (!missing.empty()) {
      loaded.error = "envfleet: the CUDA driver libcuda.so.1 lacks " + missing;
      delete driver;
      return loaded;
    }
    // JAX has initialised the driver before any GPU call runs; this is a cheap no-op then.
    if (std::string error = driver->Check(driver->init_(0), "cuInit"); !error.empty()) {
      loaded.error = error;
      delete driver;
      return loaded;
    }
    loaded.driver = driver;
    return loaded;
  }

  static CUdeviceptr Address(const void* device) {
    return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(device));
  }

  // "" for CUDA_SUCCESS, else "envfleet: <call> failed: <the driver's name and text>".
  std::string Check(CUresult result, const char* call) const {
    if (result == 0) return {};
    const char* name = nullptr;
    const char* text = nullptr;
    if (get_error_name_(result, &name) != 0 || name == nullptr) name = "unknown CUDA error";
    if (get_error_string_(result, &text) != 0 || text == nullptr) text = "";
    return std::string("envfleet: ") + call + " failed: " + name + " (" + std::to_string(result) +
           ")" + (*text != '\0' ? std::string(": ") + text : "");
  }

  CUresult (*init_)(unsigned) = nullptr;
  CUresult (*get_error_string_)(CUresult, const char**) = nullptr;
  CUresult (*get_error_name_)(CUresult, const char**) = nullptr;
  CUresult (*ctx_get_current_)(CUcontext*) = nullptr;
  CUresult (*stream_get_ctx_)(CUstream, CUcontext*) = nullptr;
  CUresult (*ctx_push_current_)(CUcontext) = nullptr;
  CUresult (*ctx_pop_current_)(CUcontext*) = nullptr;
  CUresult (*mem_host_alloc_)(void**, size_t, unsigned) = nullptr;
  CUresult (*mem_free_host_)(void*) = nullptr;
  CUresult (*memcpy_dtoh_async_)(void*, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*memcpy_htod_async_)(CUdeviceptr, const void*, size_t, CUstream) = nullptr;
  CUresult (*memcpy_dtod_async_)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*stream_synchronize_)(CUstream) = nullptr;
  CUresult (*event_create_)(CUevent*, unsigned) = nullptr;
  CUresult (*event_destroy_)(CUevent) = nullptr;
  CUresult (*event_record_)(CUevent, CUstream) = nullptr;
  CUresult (*event_synchronize_)(CUevent) = nullptr;
};

}  // namespace envfleet::xla

#endif  // ENVFLEET_XLA_CUDA_DRIVER_H_
