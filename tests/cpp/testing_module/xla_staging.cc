// StagedXlaPool: env.xla()'s GPU calls (cpp/xla/gpu_staging.h) over a real pool's plain-C
// table (Pool.pool_api()), with the fake device of tests/cpp/xla/fake_device.h standing in for
// CUDA and NumPy arrays for XLA's device buffers. tests/test_xla_gpu.py runs whole
// trajectories through it and compares them with the CPU handlers'.
//
//   StagedXlaPool(api, ended_address, first, pool_id, context_current=True)
//   .send(handle, handle_out, action, env_id)
//   .recv(handle, handle_out, outputs)          outputs: the result arrays after the handle
//   .step(handle, handle_out, action, env_id, outputs)
//   .flush()      runs every copy still queued: what XLA's later work on the stream reads
//   .close()      frees the staging, as unregister_pool does
//   .queued, .violations, .counts()
// A call that fails raises RuntimeError with the handlers' message. context_current=False
// calls from a thread with no context current (the staging pushes the stream's).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bind/pool_api.h"
#include "xla/fake_device.h"
#include "xla/gpu_staging.h"
#include "xla/pool_entry.h"

namespace envfleet {
namespace {

namespace nb = nanobind;
using xla::CallBuffer;
using xla::testing::FakeDevice;
using Array = nb::ndarray<nb::c_contig, nb::device::cpu>;

int32_t DTypeOf(const Array& array) {
  const nb::dlpack::dtype dtype = array.dtype();
  if (dtype == nb::dtype<bool>()) return ENVFLEET_BOOL;
  if (dtype == nb::dtype<int8_t>()) return ENVFLEET_INT8;
  if (dtype == nb::dtype<uint8_t>()) return ENVFLEET_UINT8;
  if (dtype == nb::dtype<int32_t>()) return ENVFLEET_INT32;
  if (dtype == nb::dtype<int64_t>()) return ENVFLEET_INT64;
  if (dtype == nb::dtype<float>()) return ENVFLEET_FLOAT32;
  if (dtype == nb::dtype<double>()) return ENVFLEET_FLOAT64;
  return -1;
}

CallBuffer ToCallBuffer(const Array& array) {
  return {array.data(), DTypeOf(array), static_cast<int64_t>(array.size()), array.nbytes()};
}

class StagedXlaPool {
 public:
  StagedXlaPool(nb::handle api_capsule, uintptr_t ended_address, bool first, uint32_t pool_id,
                bool context_current)
      : context_(device_.NewContext()),
        stream_(device_.NewStream(context_)),
        context_current_(context_current) {
    auto* api = static_cast<const EnvfleetPoolApi*>(
        PyCapsule_GetPointer(api_capsule.ptr(), ENVFLEET_POOL_API_CAPSULE));
    if (api == nullptr) throw nb::python_error();
    const xla::PoolEntry entry{api, reinterpret_cast<bool*>(ended_address), first};
    staging_ = std::make_unique<xla::GpuStaging<FakeDevice>>(entry, pool_id);
  }

  void Send(const Array& handle, const Array& handle_out, const Array& action,
            const Array& env_id) {
    const CallBuffer actions = ToCallBuffer(action), ids = ToCallBuffer(env_id);
    Run([&] {
      return staging_->Send(device_, stream_, handle.data(), handle_out.data(), actions, ids);
    });
  }

  void Recv(const Array& handle, const Array& handle_out, const std::vector<Array>& outputs) {
    const std::vector<CallBuffer> buffers = ToCallBuffers(outputs);
    Run([&] {
      return staging_->Recv(device_, stream_, handle.data(), handle_out.data(), buffers.data(),
                            buffers.size());
    });
  }

  void Step(const Array& handle, const Array& handle_out, const Array& action, const Array& env_id,
            const std::vector<Array>& outputs) {
    const CallBuffer actions = ToCallBuffer(action), ids = ToCallBuffer(env_id);
    const std::vector<CallBuffer> buffers = ToCallBuffers(outputs);
    Run([&] {
      return staging_->Step(device_, stream_, handle.data(), handle_out.data(), actions, ids,
                            buffers.data(), buffers.size());
    });
  }

  void Flush() { device_.Flush(); }
  void Close() {
    nb::gil_scoped_release release;
    staging_.reset();
  }
  size_t queued() const { return device_.Queued(); }
  int violations() const { return device_.violations; }
  std::map<std::string, int> counts() const { return device_.calls; }

 private:
  static std::vector<CallBuffer> ToCallBuffers(const std::vector<Array>& arrays) {
    std::vector<CallBuffer> buffers;
    for (const Array& array : arrays) buffers.push_back(ToCallBuffer(array));
    return buffers;
  }

  // One call as an XLA thread makes it: the GIL released (the pool may wait for its
  // workers), the stream's context current unless the pool was made to test without.
  template <typename Call>
  void Run(Call&& call) {
    if (staging_ == nullptr) throw std::runtime_error("StagedXlaPool is closed");
    std::string error;
    {
      nb::gil_scoped_release release;
      if (context_current_) FakeDevice::CurrentStack() = {context_};
      error = call();
      FakeDevice::CurrentStack().clear();
    }
    if (!error.empty()) throw std::runtime_error(error);
  }

  FakeDevice device_;
  FakeDevice::Context context_;
  FakeDevice::Stream stream_;
  bool context_current_;
  std::unique_ptr<xla::GpuStaging<FakeDevice>> staging_;
};

}  // namespace

void BindXlaStagingTesting(nb::module_& m) {
  nb::class_<StagedXlaPool>(m, "StagedXlaPool")
      .def(nb::init<nb::handle, uintptr_t, bool, uint32_t, bool>(), nb::arg("api"),
           nb::arg("ended_address"), nb::arg("first"), nb::arg("pool_id"),
           nb::arg("context_current") = true)
      .def("send", &StagedXlaPool::Send, nb::arg("handle"), nb::arg("handle_out"),
           nb::arg("action"), nb::arg("env_id"))
      .def("recv", &StagedXlaPool::Recv, nb::arg("handle"), nb::arg("handle_out"),
           nb::arg("outputs"))
      .def("step", &StagedXlaPool::Step, nb::arg("handle"), nb::arg("handle_out"),
           nb::arg("action"), nb::arg("env_id"), nb::arg("outputs"))
      .def("flush", &StagedXlaPool::Flush)
      .def("close", &StagedXlaPool::Close)
      .def_prop_ro("queued", &StagedXlaPool::queued)
      .def_prop_ro("violations", &StagedXlaPool::violations)
      .def("counts", &StagedXlaPool::counts);
}

}  // namespace envfleet
