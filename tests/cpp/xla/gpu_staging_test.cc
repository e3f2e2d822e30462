// cpp/xla/gpu_staging.h: env.xla()'s GPU calls, driven with the fake device
// (tests/cpp/xla/fake_device.h), whose streams defer every copy as late as a GPU may run it
// and poison what a copy has yet to fill, over a small fake pool behind the plain-C table.
// A missing synchronise shows as poison read by the pool, a staging buffer reused too early
// as another call's data in XLA's buffers, a leak or a premature free as a count or a
// violation. Also: cpp/xla/cuda_driver.h loads the driver or says why not.
#include "xla/gpu_staging.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "bind/pool_api.h"
#include "check.h"
#include "xla/cuda_driver.h"
#include "xla/fake_device.h"
#include "xla/pool_entry.h"

namespace envfleet::xla {
namespace {

using testing::FakeDevice;
using testing::kPoison;
using Staging = GpuStaging<FakeDevice>;

// A pool behind the plain-C table, each env a counter: an env's row carries the last action
// it was sent, its step count and its id, so every value a call delivers says where it came
// from. Keys as the real pool's common keys, then one observation of two float64s:
//   reward f64 (= action), terminated bool (every 3rd step), truncated bool (false),
//   env_id i32, elapsed_step i32, obs f64[2] (= {100 * step + action, env id}).
// Results are converted to float32 where the output asks for it (JAX without x64).
class CountingPool {
 public:
  CountingPool(int32_t num_envs, int32_t batch_size) : steps_(num_envs, 0), actions_(num_envs, 0) {
    api_.version = ENVFLEET_POOL_API_VERSION;
    api_.pool = this;
    api_.num_envs = num_envs;
    api_.batch_size = batch_size;
    api_.num_keys = 6;
    api_.keys = keys_;
    api_.action = {ENVFLEET_INT64, 0, nullptr};
    api_.send = &Send;
    api_.recv = &Recv;
    api_.step = &Step;
  }

  const EnvfleetPoolApi* api() const { return &api_; }
  bool closed = false;
  std::vector<int64_t> actions_seen;  // every action value the pool read, in order

 private:
  static const char* Send(void* self, const EnvfleetArray* action, const int32_t* env_ids,
                          int64_t count) {
    auto& pool = *static_cast<CountingPool*>(self);
    if (pool.closed) return "this env pool is closed";
    for (int64_t i = 0; i < count; ++i) {
      const int64_t value = action->dtype == ENVFLEET_INT32
                                ? static_cast<const int32_t*>(action->data)[i]
                                : static_cast<const int64_t*>(action->data)[i];
      pool.actions_seen.push_back(value);
      if (value < 0 || value >= 1000) return "action out of range";
      if (env_ids[i] < 0 || env_ids[i] >= pool.api_.num_envs) return "env_id out of range";
    }
    for (int64_t i = 0; i < count; ++i) {
      const int32_t id = env_ids[i];
      pool.actions_[id] = action->dtype == ENVFLEET_INT32
                              ? static_cast<const int32_t*>(action->data)[i]
                              : static_cast<const int64_t*>(action->data)[i];
      ++pool.steps_[id];
      pool.pending_.push_back(id);
    }
    return nullptr;
  }

  static const char* Recv(void* self, const EnvfleetArray* outputs, int64_t num_outputs) {
    auto& pool = *static_cast<CountingPool*>(self);
    if (pool.closed) return "this env pool is closed";
    if (num_outputs != 6) return "wrong number of outputs";
    if (static_cast<int32_t>(pool.pending_.size()) < pool.api_.batch_size) {
      return "recv() would wait forever";
    }
    for (int32_t row = 0; row < pool.api_.batch_size; ++row) {
      const int32_t id = pool.pending_.front();
      pool.pending_.pop_front();
      const double action = static_cast<double>(pool.actions_[id]);
      const int32_t step = pool.steps_[id];
      Put(outputs[0], row, action);
      static_cast<bool*>(outputs[1].data)[row] = step % 3 == 0;
      static_cast<bool*>(outputs[2].data)[row] = false;
      static_cast<int32_t*>(outputs[3].data)[row] = id;
      static_cast<int32_t*>(outputs[4].data)[row] = step;
      Put(outputs[5], 2 * row, 100.0 * step + action);
      Put(outputs[5], 2 * row + 1, id);
    }
    return nullptr;
  }

  static const char* Step(void* self, const EnvfleetArray* action, const int32_t* env_ids,
                          int64_t count, const EnvfleetArray* outputs, int64_t num_outputs) {
    if (const char* error = Send(self, action, env_ids, count)) return error;
    return Recv(self, outputs, num_outputs);
  }

  static void Put(const EnvfleetArray& out, int64_t i, double value) {
    if (out.dtype == ENVFLEET_FLOAT32) {
      static_cast<float*>(out.data)[i] = static_cast<float>(value);
    } else {
      static_cast<double*>(out.data)[i] = value;
    }
  }

  static constexpr int64_t kObsShape[1] = {2};
  EnvfleetKey keys_[6] = {{ENVFLEET_FLOAT64, 0, nullptr}, {ENVFLEET_BOOL, 0, nullptr},
                          {ENVFLEET_BOOL, 0, nullptr},    {ENVFLEET_INT32, 0, nullptr},
                          {ENVFLEET_INT32, 0, nullptr},   {ENVFLEET_FLOAT64, 1, kObsShape}};
  EnvfleetPoolApi api_{};
  std::vector<int32_t> steps_;
  std::vector<int64_t> actions_;
  std::deque<int32_t> pending_;
};

// XLA's side of one call: its buffers in "device memory" (host memory, for the fake).
struct DeviceCall {
  DeviceCall(int32_t batch_size, bool with_first)
      : reward(batch_size),
        terminated(batch_size),
        truncated(batch_size),
        env_id(batch_size),
        elapsed(batch_size),
        obs(2 * static_cast<size_t>(batch_size)),
        first(batch_size) {
    outputs = {Buffer(reward, ENVFLEET_FLOAT32), Buffer(terminated, ENVFLEET_BOOL),
               Buffer(truncated, ENVFLEET_BOOL), Buffer(env_id, ENVFLEET_INT32),
               Buffer(elapsed, ENVFLEET_INT32),  Buffer(obs, ENVFLEET_FLOAT32)};
    if (with_first) outputs.push_back(Buffer(first, ENVFLEET_BOOL));
  }

  template <typename T>
  static CallBuffer Buffer(std::vector<T>& data, int32_t dtype) {
    return {data.data(), dtype, static_cast<int64_t>(data.size()), data.size() * sizeof(T)};
  }

  uint32_t handle = 0;
  uint32_t handle_out = 0;
  std::vector<float> reward;
  std::vector<char> terminated, truncated;  // bools, as bytes
  std::vector<int32_t> env_id, elapsed;
  std::vector<float> obs;
  std::vector<char> first;
  std::vector<CallBuffer> outputs;
};

struct Inputs {
  Inputs(std::vector<int32_t> action_values, std::vector<int32_t> ids)
      : actions(std::move(action_values)), env_ids(std::move(ids)) {}
  CallBuffer action() { return DeviceCall::Buffer(actions, ENVFLEET_INT32); }
  CallBuffer env_id() { return DeviceCall::Buffer(env_ids, ENVFLEET_INT32); }
  std::vector<int32_t> actions;
  std::vector<int32_t> env_ids;
};

// The fake device with one context and one stream; the test thread has the context current,
// as XLA's threads have theirs, unless a test pops it.
struct Rig {
  explicit Rig(int32_t num_envs = 4, int32_t batch_size = 4, bool first = false,
               uint32_t pool_id = 7)
      : pool(num_envs, batch_size),
        entry{pool.api(), nullptr, first},
        context(device.NewContext()),
        stream(device.NewStream(context)),
        staging(std::make_unique<Staging>(entry, pool_id)),
        pool_id(pool_id) {
    FakeDevice::CurrentStack() = {context};
  }
  ~Rig() { FakeDevice::CurrentStack().clear(); }

  std::string Step(DeviceCall& call, Inputs& in) {
    call.handle = pool_id;
    return staging->Step(device, stream, &call.handle, &call.handle, in.action(), in.env_id(),
                         call.outputs.data(), call.outputs.size());
  }
  std::string Send(Inputs& in, uint32_t* handle) {
    return staging->Send(device, stream, handle, handle, in.action(), in.env_id());
  }
  std::string Recv(DeviceCall& call) {
    call.handle = pool_id;
    return staging->Recv(device, stream, &call.handle, &call.handle, call.outputs.data(),
                         call.outputs.size());
  }

  // XLA's buffers for one call; they live as long as the rig, so that copies still queued
  // when the staging goes have somewhere to land.
  DeviceCall& NewCall(int32_t batch_size, bool with_first) {
    calls.push_back(std::make_unique<DeviceCall>(batch_size, with_first));
    return *calls.back();
  }

  CountingPool pool;
  PoolEntry entry;
  FakeDevice device;
  FakeDevice::Context context;
  FakeDevice::Stream stream;
  std::vector<std::unique_ptr<DeviceCall>> calls;  // destroyed after the staging
  std::deque<Inputs> inputs;
  std::unique_ptr<Staging> staging;
  uint32_t pool_id;
};

TEST(GpuStaging, StepGivesThePoolTheActionsAndTheStreamTheBatch) {
  Rig rig;
  Inputs in({3, 1, 4, 1}, {0, 1, 2, 3});
  DeviceCall& call = rig.NewCall(4, false);
  REQUIRE_EQ(rig.Step(call, in), "");
  // The pool read the real actions: the copies ran before it (poison otherwise).
  CHECK(rig.pool.actions_seen == std::vector<int64_t>({3, 1, 4, 1}));
  // The results are queued on the stream, not yet in XLA's buffers.
  CHECK_GT(rig.device.Queued(), 0u);
  CHECK_EQ(call.env_id, std::vector<int32_t>(4, 0));
  rig.device.Flush();
  CHECK(call.reward == std::vector<float>({3, 1, 4, 1}));
  CHECK(call.env_id == std::vector<int32_t>({0, 1, 2, 3}));
  CHECK(call.elapsed == std::vector<int32_t>(4, 1));
  CHECK(call.obs == std::vector<float>({103, 0, 101, 1, 104, 2, 101, 3}));
  CHECK_EQ(call.handle, rig.pool_id);
  CHECK_EQ(rig.device.violations, 0);
}

TEST(GpuStaging, StepSynchronisesOnceAndAllocatesOnce) {
  Rig rig;
  std::vector<DeviceCall*> calls;
  for (int t = 0; t < 10; ++t) {
    Inputs in({t, t + 1, t + 2, t + 3}, {3, 2, 1, 0});
    calls.push_back(&rig.NewCall(4, false));
    REQUIRE_EQ(rig.Step(*calls.back(), in), "");
  }
  CHECK_EQ(rig.device.Count("Synchronize"), 10);
  CHECK_EQ(rig.device.Count("AllocHost"), 1);
  CHECK_EQ(rig.device.Count("CreateEvent"), 2);
  CHECK_EQ(rig.device.Count("RecordEvent"), 10);
  CHECK_EQ(rig.device.Count("CopyToHost"), 30);    // handle, env ids, actions
  CHECK_EQ(rig.device.Count("CopyToDevice"), 60);  // the six arrays
  CHECK_EQ(rig.device.Count("CopyOnDevice"), 0);   // the handle result aliases its argument
  CHECK_EQ(rig.device.Count("PushContext"), 0);    // the thread had the context current
  rig.device.Flush();
  for (int t = 0; t < 10; ++t) {
    // Rows in send order: env 3 got action t.
    CHECK(calls[t]->env_id == std::vector<int32_t>({3, 2, 1, 0}));
    CHECK(calls[t]->reward ==
          std::vector<float>({float(t), float(t + 1), float(t + 2), float(t + 3)}));
    CHECK(calls[t]->elapsed == std::vector<int32_t>(4, t + 1));
  }
}

TEST(GpuStaging, RecvNeverSynchronisesAndNeverOverwritesStagingACopyStillReads) {
  // Two envs per batch out of eight: one send queues four batches, received back to back
  // with no synchronise, each into its own buffers, all read only at the end.
  Rig rig(/*num_envs=*/8, /*batch_size=*/2);
  uint32_t handle = rig.pool_id;
  Inputs in({10, 11, 12, 13, 14, 15, 16, 17}, {0, 1, 2, 3, 4, 5, 6, 7});
  REQUIRE_EQ(rig.Send(in, &handle), "");
  const int synchronised = rig.device.Count("Synchronize");
  std::vector<DeviceCall*> calls;
  for (int b = 0; b < 4; ++b) {
    calls.push_back(&rig.NewCall(2, false));
    REQUIRE_EQ(rig.Recv(*calls.back()), "");
  }
  CHECK_EQ(rig.device.Count("Synchronize"), synchronised);
  // Calls 3 and 4 reused the halves of calls 1 and 2: each waited for that half's copies.
  CHECK_EQ(rig.device.Count("WaitEvent"), 2);
  rig.device.Flush();
  for (int b = 0; b < 4; ++b) {
    CHECK(calls[b]->env_id == std::vector<int32_t>({2 * b, 2 * b + 1}));
    CHECK(calls[b]->reward == std::vector<float>({float(10 + 2 * b), float(11 + 2 * b)}));
  }
}

TEST(GpuStaging, SendAndStepCheckTheHandleAfterTheSynchroniseAndNeverCallThePool) {
  Rig rig;
  uint32_t foreign = rig.pool_id + 1;
  Inputs in({1, 1, 1, 1}, {0, 1, 2, 3});
  const std::string error = rig.Send(in, &foreign);
  CHECK_EQ(error, HandleProblem(rig.pool_id + 1, rig.pool_id));
  CHECK_NE(error.find("the handle holds 8 but the call is pool 7's"), std::string::npos);
  DeviceCall& call = rig.NewCall(4, false);
  call.handle = foreign;
  CHECK_EQ(rig.staging->Step(rig.device, rig.stream, &call.handle, &call.handle, in.action(),
                             in.env_id(), call.outputs.data(), call.outputs.size()),
           error);
  CHECK(rig.pool.actions_seen.empty());
  CHECK_EQ(rig.device.Count("CopyToDevice"), 0);
  CHECK_EQ(rig.device.Queued(), 0u);
  // The pool was never touched: the right handle carries on.
  CHECK_EQ(rig.Step(call, in), "");
}

TEST(GpuStaging, AHandleResultOfItsOwnGetsTheHandleByADeviceCopy) {
  Rig rig;
  Inputs in({2, 2, 2, 2}, {0, 1, 2, 3});
  DeviceCall& call = rig.NewCall(4, false);
  call.handle = rig.pool_id;
  call.handle_out = 0;
  REQUIRE_EQ(rig.staging->Step(rig.device, rig.stream, &call.handle, &call.handle_out, in.action(),
                               in.env_id(), call.outputs.data(), call.outputs.size()),
             "");
  CHECK_EQ(rig.device.Count("CopyOnDevice"), 1);
  rig.device.Flush();
  CHECK_EQ(call.handle_out, rig.pool_id);
  uint32_t handle = rig.pool_id, handle_out = 0;
  REQUIRE_EQ(
      rig.staging->Send(rig.device, rig.stream, &handle, &handle_out, in.action(), in.env_id()),
      "");
  rig.device.Flush();
  CHECK_EQ(handle_out, rig.pool_id);
}

TEST(GpuStaging, PushesTheStreamsContextOnlyWhereNoneIsCurrent) {
  Rig rig;
  FakeDevice::CurrentStack().clear();  // a thread that has no context current
  Inputs in({1, 2, 3, 4}, {0, 1, 2, 3});
  DeviceCall& call = rig.NewCall(4, false);
  REQUIRE_EQ(rig.Step(call, in), "");
  CHECK_EQ(rig.device.Count("PushContext"), 1);
  CHECK_EQ(rig.device.Count("PopContext"), 1);
  CHECK(FakeDevice::CurrentStack().empty());  // the thread is left as it was
  FakeDevice::CurrentStack() = {rig.context};
  REQUIRE_EQ(rig.Step(call, in), "");
  CHECK_EQ(rig.device.Count("PushContext"), 1);
  CHECK_EQ(FakeDevice::CurrentStack().size(), 1u);
}

TEST(GpuStaging, ACallInAnotherContextIsRefused) {
  Rig rig;
  Inputs in({1, 2, 3, 4}, {0, 1, 2, 3});
  DeviceCall& call = rig.NewCall(4, false);
  REQUIRE_EQ(rig.Step(call, in), "");
  FakeDevice::Context other = rig.device.NewContext();
  FakeDevice::Stream other_stream = rig.device.NewStream(other);
  FakeDevice::CurrentStack() = {other};
  const std::string error =
      rig.staging->Step(rig.device, other_stream, &call.handle, &call.handle, in.action(),
                        in.env_id(), call.outputs.data(), call.outputs.size());
  CHECK_NE(error.find("another CUDA context"), std::string::npos);
  FakeDevice::CurrentStack() = {rig.context};
  CHECK_EQ(rig.Step(call, in), "");
}

TEST(GpuStaging, InputsTooLargeForTheStagingAreRefusedBeforeAnyCopy) {
  Rig rig;
  uint32_t handle = rig.pool_id;
  Inputs too_many({1, 1, 1, 1, 1}, {0, 1, 2, 3, 0});
  CHECK_EQ(rig.Send(too_many, &handle), "env_id has 5 entries but there are only 4 envs");
  Inputs wide(std::vector<int32_t>(9, 1), {0, 1, 2, 3});  // 36 bytes > 4 envs x 8 bytes
  CHECK_NE(rig.Send(wide, &handle).find("the action batch has 36 bytes"), std::string::npos);
  DeviceCall& call = rig.NewCall(4, false);
  call.outputs.pop_back();
  Inputs in({1, 1, 1, 1}, {0, 1, 2, 3});
  CHECK_EQ(rig.Step(call, in), "envfleet: the call has 6 results but this pool gives 7");
  CHECK_EQ(rig.device.Count("CopyToHost"), 0);
  CHECK(rig.pool.actions_seen.empty());
}

TEST(GpuStaging, PoolErrorsComeBackAndTheNextCallWorks) {
  Rig rig;
  Inputs bad({1, 5000, 1, 1}, {0, 1, 2, 3});
  DeviceCall& call = rig.NewCall(4, false);
  CHECK_EQ(rig.Step(call, bad), "action out of range");
  CHECK_EQ(rig.device.Queued(), 0u);
  Inputs good({1, 2, 3, 4}, {0, 1, 2, 3});
  REQUIRE_EQ(rig.Step(call, good), "");
  rig.device.Flush();
  CHECK(call.reward == std::vector<float>({1, 2, 3, 4}));
  rig.pool.closed = true;
  CHECK_EQ(rig.Recv(call), "this env pool is closed");
}

// Rounds of send + two recvs (batch 2 of 4 envs), each result read after a flush.
std::string Round(Rig& rig, int t, std::vector<DeviceCall*>& calls) {
  // Kept by the rig: after a failed synchronise the fake stream still holds copies from them.
  Inputs& in =
      rig.inputs.emplace_back(std::vector<int32_t>{t, t, t, t}, std::vector<int32_t>{0, 1, 2, 3});
  uint32_t handle = rig.pool_id;
  if (std::string error = rig.Send(in, &handle); !error.empty()) return error;
  for (int r = 0; r < 2; ++r) {
    calls.push_back(&rig.NewCall(2, false));
    if (std::string error = rig.Recv(*calls.back()); !error.empty()) return error;
  }
  return {};
}

TEST(GpuStaging, DriverFailuresComeBackAsErrorsAndLeaveTheStagingUsable) {
  for (const char* op : {"CurrentContext", "AllocHost", "CreateEvent", "CopyToHost", "Synchronize",
                         "CopyToDevice", "RecordEvent", "WaitEvent"}) {
    Rig rig(/*num_envs=*/4, /*batch_size=*/2);
    rig.device.fail_op = op;
    // The op's first use fails (CreateEvent's second: the first event is then destroyed);
    // WaitEvent's first use is the third recv, in the second round.
    rig.device.fail_after = std::string(op) == "CreateEvent" ? 1 : 0;
    std::vector<DeviceCall*> calls;
    std::string error;
    for (int t = 0; t < 2 && error.empty(); ++t) error = Round(rig, t, calls);
    CHECK_EQ(error, std::string("fake device: ") + op + " failed");
    rig.device.fail_op.clear();
    calls.clear();
    REQUIRE_EQ(Round(rig, 50, calls), "");
    rig.device.Flush();
    CHECK(calls[0]->reward == std::vector<float>({50, 50}));
    CHECK(calls[1]->reward == std::vector<float>({50, 50}));
    rig.staging.reset();
    CHECK_EQ(rig.device.violations, 0);
    CHECK_EQ(rig.device.LiveAllocations(), 0u);
    CHECK_EQ(rig.device.Count("DestroyEvent"), 2 + (std::string(op) == "CreateEvent" ? 1 : 0));
  }
}

TEST(GpuStaging, DestructionWaitsForQueuedCopiesAndFreesInItsContext) {
  Rig rig;
  Inputs in({1, 2, 3, 4}, {0, 1, 2, 3});
  DeviceCall& a = rig.NewCall(4, false);
  DeviceCall& b = rig.NewCall(4, false);
  REQUIRE_EQ(rig.Step(a, in), "");
  REQUIRE_EQ(rig.Step(b, in), "");
  CHECK_GT(rig.device.Queued(), 0u);
  FakeDevice::CurrentStack().clear();  // unregister_pool runs on a Python thread
  rig.staging.reset();
  CHECK_EQ(rig.device.violations, 0);  // nothing queued touched the freed staging
  CHECK_EQ(rig.device.LiveAllocations(), 0u);
  CHECK_EQ(rig.device.Count("DestroyEvent"), 2);
  CHECK(FakeDevice::CurrentStack().empty());
  // The copies ran before the free: XLA's buffers got the batches.
  CHECK(b.elapsed == std::vector<int32_t>(4, 2));
}

TEST(GpuStaging, AStagingNeverCalledAllocatesNothing) {
  Rig rig;
  rig.staging.reset();
  CHECK_EQ(rig.device.Count("AllocHost"), 0);
  CHECK_EQ(rig.device.Count("FreeHost"), 0);
}

TEST(GpuStaging, FirstFlagsAreComputedOnTheHostAndCopiedWithTheBatch) {
  // A dm pool: `first` for elapsed_step 0 or an env whose previous result ended.
  Rig rig(/*num_envs=*/2, /*batch_size=*/2, /*first=*/true);
  bool ended[2] = {false, true};
  rig.entry.ended = ended;
  rig.staging = std::make_unique<Staging>(rig.entry, rig.pool_id);
  std::vector<DeviceCall*> calls;
  for (int t = 0; t < 4; ++t) {
    Inputs in({t, t}, {0, 1});
    calls.push_back(&rig.NewCall(2, true));
    REQUIRE_EQ(rig.Step(*calls.back(), in), "");
  }
  rig.device.Flush();
  // Steps 1..4; terminated at step 3. Env 1 starts "ended", so its step 1 is first.
  CHECK(calls[0]->first == std::vector<char>({0, 1}));
  CHECK(calls[1]->first == std::vector<char>({0, 0}));
  CHECK(calls[2]->first == std::vector<char>({0, 0}));
  CHECK(calls[3]->first == std::vector<char>({1, 1}));
  CHECK(!ended[0] && !ended[1]);
}

TEST(GpuStaging, StagingIsSizedForAllEnvsAtTheWidestTypes) {
  Rig rig(/*num_envs=*/4, /*batch_size=*/2);
  // handle, 4 env ids, 4 int64 actions; two halves of: 2 rewards f64, 2 + 2 bools, 2 + 2
  // int32 (room for int64), 4 obs f64: each on its own 64-byte line.
  CHECK_EQ(rig.staging->total_bytes(), 3 * 64u + 2 * 6 * 64u);
}

TEST(CudaDriver, LoadsTheDriverOrSaysWhyNot) {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  std::string error;
  CudaDriver* driver = CudaDriver::Get(&error);
  if (library == nullptr) {
    CHECK(driver == nullptr);
    CHECK_NE(error.find("libcuda.so.1"), std::string::npos);
    CHECK_NE(error.find("env.xla()"), std::string::npos);
  } else {
    // A machine with the driver (it may still have no GPU: cuInit then says so).
    CHECK(driver != nullptr || error.find("cuInit failed") != std::string::npos);
    dlclose(library);
  }
  CHECK(CudaDriver::Get(&error) == driver);  // loaded once
}

}  // namespace
}  // namespace envfleet::xla
