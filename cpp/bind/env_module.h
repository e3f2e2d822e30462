// The one Python binding every extension module uses. BindEnvModule<Module>(m, types) adds to
// module m, over that module's own table of env types:
//   env_types()      {type: {option: (kind, default)}}
//   env_spec(...)    the spec of one env of a type with given options
//   Pool(...)        the pool: argument checks with the GIL held, stepping without it, and
//                    zero-copy NumPy arrays over each delivered output block
//   raw_step_rate()  the physical limit the bench compares with: one env in a bare C++ loop
// Each Pool also hands out its plain-C entry points (Pool.pool_api(), cpp/bind/pool_api.h),
// which envfleet._xla's XLA handlers call without Python; a lock per pool serialises them
// with the Python methods.
// Module is a tag type of the calling module. PyPool<Module> is a distinct C++ type in every
// module, so nanobind registers one Pool class per module and no C++ object crosses a module
// boundary. Include this header from exactly one translation unit of a module: that unit
// holds the module's NumPy C-API table (no PY_ARRAY_UNIQUE_SYMBOL, so it is local to it).
#ifndef ENVFLEET_BIND_ENV_MODULE_H_
#define ENVFLEET_BIND_ENV_MODULE_H_

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>
#include <pthread.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "bind/pool_api.h"
#include "core/output_blocks.h"
#include "core/pool.h"
#include "core/registry.h"
#include "core/signal_mask.h"

namespace envfleet {
namespace bind {

namespace nb = nanobind;

// The env types of the module that instantiated BindEnvModule<Module>.
template <typename Module>
EnvTypeMap*& ModuleTypes() {
  static EnvTypeMap* types = nullptr;
  return types;
}

inline int NumpyType(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return NPY_BOOL;
    case DType::kInt8:
      return NPY_INT8;
    case DType::kUint8:
      return NPY_UINT8;
    case DType::kInt32:
      return NPY_INT32;
    case DType::kInt64:
      return NPY_INT64;
    case DType::kFloat32:
      return NPY_FLOAT32;
    case DType::kFloat64:
      return NPY_FLOAT64;
  }
  return NPY_NOTYPE;
}

inline nb::dict ArraySpecToDict(const ArraySpec& spec) {
  nb::dict d;
  d["name"] = spec.name;
  d["dtype"] = DTypeName(spec.dtype);
  nb::list shape;
  for (int64_t s : spec.shape) shape.append(s);
  d["shape"] = nb::tuple(shape);
  d["low"] = spec.low;
  d["high"] = spec.high;
  d["discrete"] = spec.discrete;
  return d;
}

inline nb::object ConfigValueToPython(const ConfigValue& value) {
  return std::visit([](const auto& v) -> nb::object { return nb::cast(v); }, value);
}

// The kind of an option, so Python can check and convert values (an empty default list
// alone would not say what it holds).
inline const char* ConfigKind(const ConfigValue& value) {
  const char* kinds[] = {
      "bool", "int", "float", "str", "list[str]", "list[float]", "dict[str, list[float]]"};
  return kinds[value.index()];
}

// Converts Python option values to the kinds the env's defaults have. The Python layer has
// already checked names and coerced kinds with readable messages; this is the last guard.
inline Config ToConfig(const Config& defaults, const nb::dict& options) {
  Config config = defaults;
  for (auto [key, value] : options) {
    std::string name = nb::cast<std::string>(key);
    if (!defaults.Has(name)) throw nb::value_error(("unknown option '" + name + "'").c_str());
    const ConfigValue& kind = defaults.values().at(name);
    if (std::holds_alternative<bool>(kind)) {
      config.Set(name, nb::cast<bool>(value));
    } else if (std::holds_alternative<int64_t>(kind)) {
      config.Set(name, nb::cast<int64_t>(value));
    } else if (std::holds_alternative<double>(kind)) {
      config.Set(name, nb::cast<double>(value));
    } else if (std::holds_alternative<std::string>(kind)) {
      config.Set(name, nb::cast<std::string>(value));
    } else if (std::holds_alternative<std::vector<double>>(kind)) {
      config.Set(name, nb::cast<std::vector<double>>(value));
    } else if (std::holds_alternative<ConfigTable>(kind)) {
      config.Set(name, nb::cast<ConfigTable>(value));
    } else {
      config.Set(name, nb::cast<std::vector<std::string>>(value));
    }
  }
  return config;
}

inline const EnvType& FindType(const EnvTypeMap& types, const std::string& name) {
  auto it = types.find(name);
  if (it == types.end()) throw nb::value_error(("unknown env type '" + name + "'").c_str());
  return it->second;
}

// The config of every env: `options` over the type's defaults, then env i's own
// `per_env_options[i]` over those. No per-env options: one config that every env shares.
inline std::vector<Config> PerEnvConfigs(const EnvType& type, const nb::dict& options,
                                         const std::vector<nb::dict>& per_env_options,
                                         int num_envs) {
  Config common = ToConfig(type.defaults, options);
  if (per_env_options.empty()) return {std::move(common)};
  if (per_env_options.size() != static_cast<size_t>(num_envs)) {
    throw nb::value_error("per_env_options must hold one dict per env");
  }
  std::vector<Config> configs;
  configs.reserve(per_env_options.size());
  for (const nb::dict& own : per_env_options) configs.push_back(ToConfig(common, own));
  return configs;
}

// Every env writes rows laid out by env 0's spec, so an env whose options would change it
// must not join the pool; only the render rate (frame_skip sets it; the pool states env
// 0's) and the env's own time limit (each env truncates itself) may differ. The Python layer
// names the option at fault; this is the last guard. Runs of equal configs (the usual
// layout) are checked once.
inline void CheckSameSpec(const EnvType& type, const std::vector<Config>& configs,
                          const EnvSpec& spec) {
  for (size_t i = 1; i < configs.size(); ++i) {
    if (configs[i].values() == configs[i - 1].values()) continue;
    EnvSpec own = type.spec(configs[i]);
    own.render.fps = spec.render.fps;
    own.time_limit = spec.time_limit;
    if (!(own == spec)) {
      const std::string message = "the options of env " + std::to_string(i) +
                                  " change its spec (spaces, info keys, reward range or "
                                  "renderer) from env 0's; all envs of a pool must share one";
      throw nb::value_error(message.c_str());
    }
  }
}

inline nb::dict SpecToDict(const EnvSpec& spec) {
  nb::dict d;
  nb::list obs, info;
  for (const auto& key : spec.obs) obs.append(ArraySpecToDict(key));
  for (const auto& key : spec.info) info.append(ArraySpecToDict(key));
  d["obs"] = obs;
  d["info"] = info;
  d["action"] = ArraySpecToDict(spec.action);
  const char* layouts[] = {"single", "tuple", "dict"};
  d["obs_layout"] = layouts[static_cast<int>(spec.obs_layout)];
  d["reward_range"] = nb::make_tuple(spec.reward_low, spec.reward_high);
  nb::dict render;
  render["width"] = spec.render.width;
  render["height"] = spec.render.height;
  render["resizable"] = spec.render.resizable;
  render["fps"] = spec.render.fps;
  render["num_cameras"] = spec.render.num_cameras;
  d["render"] = render;
  d["time_limit"] = spec.time_limit;
  return d;
}

// pool_api.h numbers its element types as DType does.
static_assert(static_cast<int>(DType::kBool) == ENVFLEET_BOOL &&
              static_cast<int>(DType::kInt8) == ENVFLEET_INT8 &&
              static_cast<int>(DType::kUint8) == ENVFLEET_UINT8 &&
              static_cast<int>(DType::kInt32) == ENVFLEET_INT32 &&
              static_cast<int>(DType::kInt64) == ENVFLEET_INT64 &&
              static_cast<int>(DType::kFloat32) == ENVFLEET_FLOAT32 &&
              static_cast<int>(DType::kFloat64) == ENVFLEET_FLOAT64);

// Copies `count` elements from `from` to `to` (EnvfleetDType codes), converting between the
// pairs that JAX's x64 switch maps to each other (int64 and int32, float64 and float32) as
// NumPy's astype does. Returns false for any other pair; with null pointers only checks.
inline bool ConvertElements(const void* src, int32_t from, void* dst, int32_t to, size_t count) {
  const auto convert = [&](auto source, auto target) {
    using Source = decltype(source);
    using Target = decltype(target);
    const auto* in = static_cast<const Source*>(src);
    auto* out = static_cast<Target*>(dst);
    for (size_t i = 0; i < count; ++i) out[i] = static_cast<Target>(in[i]);
    return true;
  };
  if (from == to) {
    if (from < ENVFLEET_BOOL || from > ENVFLEET_FLOAT64) return false;
    if (count > 0) std::memcpy(dst, src, count * ItemSize(static_cast<DType>(from)));
    return true;
  }
  if (from == ENVFLEET_INT64 && to == ENVFLEET_INT32) return convert(int64_t{}, int32_t{});
  if (from == ENVFLEET_INT32 && to == ENVFLEET_INT64) return convert(int32_t{}, int64_t{});
  if (from == ENVFLEET_FLOAT64 && to == ENVFLEET_FLOAT32) return convert(double{}, float{});
  if (from == ENVFLEET_FLOAT32 && to == ENVFLEET_FLOAT64) return convert(float{}, double{});
  return false;
}

inline void ReleaseBlockLease(PyObject* capsule) {
  auto* block = static_cast<Block*>(PyCapsule_GetPointer(capsule, "envfleet.block"));
  block->arena->EndLease(block);
}

// The Python-facing pool. Every method runs with the GIL held except the waits.
// An env's error message as str: bytes that are not UTF-8 (an engine quoting a file) are
// replaced rather than turning the error into a UnicodeDecodeError (bind/error_text.h).
inline nb::object LenientText(const std::string& text) {
  PyObject* str =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (str == nullptr) throw nb::python_error();
  return nb::steal(str);
}

// How many fork()s led to this process: a child's count is one more than its parent's was.
// A pool remembers the count it was made under; its worker threads exist only there.
inline uint64_t ForkGeneration() {
  static std::atomic<uint64_t> forks{0};
  static const bool registered =
      pthread_atfork(nullptr, nullptr, [] { forks.fetch_add(1, std::memory_order_relaxed); }) == 0;
  (void)registered;
  return forks.load(std::memory_order_relaxed);
}

// Asked by a waiting recv()/step()/reset() every Pool::kPollInterval: runs Python's signal
// handlers (main thread only), so Ctrl-C raises KeyboardInterrupt instead of waiting out
// the batch.
inline bool PythonSignalRaised() {
  nb::gil_scoped_acquire gil;
  return PyErr_CheckSignals() != 0;
}

// Whether every values[i] is in [lo, hi]: one pass the compiler vectorises (an integer OR,
// not a bool, as the reduction). Compiled for AVX2 too, picked when the CPU has it: x86-64's
// baseline (SSE2) has no 64-bit integer compare, so that build checks one value at a time
// (CartPole, 2048 actions: 2 us of a 45 us step call).
[[gnu::target_clones("avx2", "default")]] static bool IntsWithin(const int64_t* values,
                                                                 size_t count, int64_t lo,
                                                                 int64_t hi) {
  int64_t bad = 0;
  for (size_t i = 0; i < count; ++i) bad |= (values[i] < lo) | (values[i] > hi);
  return bad == 0;
}

template <typename Module>
class PyPool {
 public:
  PyPool(const std::string& type_name, const nb::dict& options, int num_envs, int batch_size,
         int num_threads, const std::vector<uint64_t>& seeds, int thread_affinity_offset,
         int autoreset_mode, int64_t max_episode_steps,
         const std::vector<nb::dict>& per_env_options) {
    const EnvType& type = FindType(*ModuleTypes<Module>(), type_name);
    const std::vector<Config> configs = PerEnvConfigs(type, options, per_env_options, num_envs);
    EnvSpec spec = type.spec(configs[0]);
    CheckSameSpec(type, configs, spec);
    PoolOptions pool_options;
    pool_options.num_envs = num_envs;
    pool_options.batch_size = batch_size;
    pool_options.num_threads = num_threads;
    pool_options.thread_affinity_offset = thread_affinity_offset;
    pool_options.max_episode_steps = max_episode_steps;
    pool_options.autoreset_mode = static_cast<AutoresetMode>(autoreset_mode);
    pool_options.seeds = seeds;
    {
      // Building envs takes a while for some families (ROM loads, model compiles) and uses
      // worker threads; none of it touches Python.
      nb::gil_scoped_release release;
      pool_ = std::make_unique<Pool>(spec, configs, type.factory, std::move(pool_options),
                                     type.kernels);
    }
    fork_generation_ = ForkGeneration();
    const ArraySpec& action = pool_->spec().action;
    action_type_ = NumpyType(action.dtype);
    action_elements_ = action.NumElements();
    marks_.assign(static_cast<size_t>(num_envs), 0);
    all_ids_.resize(static_cast<size_t>(num_envs));
    given_ids_.resize(static_cast<size_t>(num_envs));
    for (int i = 0; i < num_envs; ++i) all_ids_[i] = i;
    action_scratch_.resize(static_cast<size_t>(num_envs) * pool_->action_bytes());
    for (const ArraySpec& key : pool_->layout().keys) {
      api_keys_.push_back({static_cast<int32_t>(key.dtype), static_cast<int32_t>(key.shape.size()),
                           key.shape.data()});
    }
    api_ = {ENVFLEET_POOL_API_VERSION,
            this,
            num_envs,
            batch_size,
            static_cast<int32_t>(api_keys_.size()),
            api_keys_.data(),
            {static_cast<int32_t>(action.dtype), static_cast<int32_t>(action.shape.size()),
             action.shape.data()},
            &ApiSend,
            &ApiRecv,
            &ApiStep};
  }

  ~PyPool() {
    // In a child of fork() the pool's worker threads do not exist: joining them would hang
    // or abort, so the child leaves the pool's memory to the process's exit.
    if (forked()) (void)pool_.release();
  }

  nb::list Keys() const {
    nb::list keys;
    for (const auto& key : pool_->layout().keys) keys.append(key.name);
    return keys;
  }

  void Send(nb::handle action, nb::handle env_id) {
    auto lock = LockPool();
    CheckOpen();
    Ids ids = CheckIds(env_id, action, /*reset=*/false);
    CopyActions(action, ids);
    pool_->Enqueue(ids.data, ids.count, /*reset=*/false, /*seal=*/false, /*caller_waits=*/false);
  }

  nb::object Recv() {
    auto lock = LockPool();
    CheckOpen();
    CheckRecvable("recv()");
    return WaitAndDeliver();
  }

  nb::object Step(nb::handle action, nb::handle env_id) {
    auto lock = LockPool();
    CheckOpen();
    Ids ids = CheckIds(env_id, action, /*reset=*/false);
    CheckFillable("step()", ids.count);
    CopyActions(action, ids);
    pool_->Enqueue(ids.data, ids.count, /*reset=*/false, /*seal=*/true, /*caller_waits=*/true);
    return WaitAndDeliver();
  }

  nb::object Reset(nb::handle env_id) {
    auto lock = LockPool();
    CheckOpen();
    DropInterruptedBatches();
    Ids ids = CheckIds(env_id, nb::none(), /*reset=*/true);
    CheckFillable("reset()", ids.count);
    pool_->Enqueue(ids.data, ids.count, /*reset=*/true, /*seal=*/true, /*caller_waits=*/true);
    return WaitAndDeliver();
  }

  void Reseed(nb::handle env_id, const std::vector<uint64_t>& seeds) {
    auto lock = LockPool();
    CheckOpen();
    Ids ids = CheckIds(env_id, nb::none(), /*reset=*/true);
    if (seeds.size() != ids.count) throw nb::value_error("need one seed per env id");
    for (size_t i = 0; i < ids.count; ++i) pool_->Reseed(ids.data[i], seeds[i]);
  }

  void AsyncReset() {
    auto lock = LockPool();
    CheckOpen();
    DropInterruptedBatches();
    for (int i = 0; i < pool_->options().num_envs; ++i) {
      if (pool_->in_flight(i)) {
        throw nb::value_error(
            "async_reset(): some envs still have actions in flight (was async_reset() called "
            "twice?); recv() their results first");
      }
    }
    pool_->Enqueue(all_ids_.data(), all_ids_.size(), /*reset=*/true, /*seal=*/false,
                   /*caller_waits=*/false);
  }

  // Frames of envs `env_id` (None: every env) as a new (B, height, width, 3) uint8 array,
  // drawn on the worker threads. The Python front end picks the defaults and checks the
  // render options with friendlier messages; these checks keep a direct call safe.
  nb::object Render(nb::handle env_id, int camera_id, int width, int height) {
    auto lock = LockPool();
    CheckOpen();
    const RenderSpec& render = pool_->spec().render;
    if (render.width <= 0) throw nb::value_error("this env type has no renderer");
    if (camera_id < -1 || camera_id >= render.num_cameras) {
      throw nb::value_error(
          ("camera_id " + std::to_string(camera_id) +
           " is out of range: valid ids are -1 (the default view)" +
           (render.num_cameras > 0 ? " and 0.." + std::to_string(render.num_cameras - 1)
                                   : std::string(" only")))
              .c_str());
    }
    if (!render.resizable && (width > render.width || height > render.height)) {
      throw nb::value_error(("this env draws " + std::to_string(render.width) + "x" +
                             std::to_string(render.height) +
                             " frames, shrunk to smaller sizes, never enlarged; got " +
                             std::to_string(width) + "x" + std::to_string(height))
                                .c_str());
    }
    if (width < 1 || height < 1 || width > kMaxRenderSide || height > kMaxRenderSide) {
      throw nb::value_error(("render width and height must be in 1.." +
                             std::to_string(kMaxRenderSide) + ", got " + std::to_string(width) +
                             "x" + std::to_string(height))
                                .c_str());
    }
    Ids ids = ParseIds(env_id);
    for (size_t i = 0; i < ids.count; ++i) {
      const int32_t id = ids.data[i];
      if (pool_->in_flight(id)) {
        throw nb::value_error(("env_id " + std::to_string(id) +
                               " has a step in flight: recv() its result before rendering it")
                                  .c_str());
      }
      if (!pool_->started(id)) {
        throw nb::value_error(("env_id " + std::to_string(id) +
                               " has not been reset yet: reset() it before rendering it")
                                  .c_str());
      }
    }
    npy_intp dims[4] = {static_cast<npy_intp>(ids.count), height, width, 3};
    nb::object frames = nb::steal(PyArray_SimpleNew(4, dims, NPY_UINT8));
    if (!frames.is_valid()) throw nb::python_error();
    auto* rgb = static_cast<uint8_t*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(frames.ptr())));
    std::string error;
    {
      nb::gil_scoped_release release;
      error = pool_->Render(ids.data, ids.count, camera_id, width, height, rgb);
    }
    if (!error.empty()) {
      nb::object type = nb::module_::import_("envfleet.errors").attr("EnvError");
      PyErr_SetObject(type.ptr(), type(LenientText(error)).ptr());
      throw nb::python_error();
    }
    return frames;
  }

  void Close() {
    auto lock = LockPool();
    if (!forked()) pool_->Close();
  }

  // The plain-C table of this pool (cpp/bind/pool_api.h) in a capsule; valid while the pool
  // lives, which the holder ensures by keeping the pool too.
  nb::object PoolApi() {
    PyObject* capsule = PyCapsule_New(&api_, ENVFLEET_POOL_API_CAPSULE, nullptr);
    if (capsule == nullptr) throw nb::python_error();
    return nb::steal(capsule);
  }
  bool closed() const { return pool_->closed(); }
  int64_t pending() const { return pool_->pending(); }
  bool episode_over(int env_id) const { return pool_->episode_over(env_id); }
  size_t num_blocks() const { return pool_->arena()->num_blocks(); }

 private:
  struct Ids {
    const int32_t* data;
    size_t count;
  };

  void CheckOpen() const {
    const std::string problem = OpenProblem();
    if (!problem.empty()) throw std::runtime_error(problem);
  }

  // Why the pool cannot be used at all (closed, or inherited through fork()), or "".
  std::string OpenProblem() const {
    if (forked()) {
      return "this env pool was made before fork(), and its worker threads live only in the "
             "parent process: make the pool in the child (with multiprocessing, make it inside "
             "the worker function, or use the 'spawn' or 'forkserver' start method)";
    }
    if (pool_->closed()) return "this env pool is closed";
    return {};
  }

  bool forked() const { return fork_generation_ != ForkGeneration(); }

  // Holds the pool's lock. If an XLA call has it (it may be waiting for a whole batch), waits
  // without the GIL: other Python threads, and Python callbacks of the same jitted program,
  // must not stall behind it.
  std::unique_lock<std::mutex> LockPool() {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      nb::gil_scoped_release release;
      lock.lock();
    }
    return lock;
  }

  void CheckRecvable(const char* call) const {
    const std::string problem = RecvProblem(call);
    if (!problem.empty()) throw nb::value_error(problem.c_str());
  }

  std::string RecvProblem(const char* call) const {
    const int64_t needs = pool_->HeadNeeds();
    if (pool_->pending() >= needs) return {};
    return std::string(call) + " would wait forever: the next batch needs " +
           std::to_string(needs) + " results but only " + std::to_string(pool_->pending()) +
           " envs have actions in flight; send() more first";
  }

  void CheckFillable(const char* call, size_t count) const {
    const std::string problem = FillProblem(call, count, /*sealed=*/true);
    if (!problem.empty()) throw nb::value_error(problem.c_str());
  }

  // Why sending `count` more envs and waiting would never complete the head block, or "".
  // A sealed call (Python's step/reset) fixes the head block to its envs when none are in
  // flight; an unsealed one (the XLA step, whose batch is always batch_size rows) does not.
  std::string FillProblem(const char* call, size_t count, bool sealed) const {
    const int64_t would_pend = pool_->pending() + static_cast<int64_t>(count);
    if (sealed ? pool_->CanFillHead(count) : would_pend >= pool_->HeadNeeds()) return {};
    return std::string(call) + " would wait forever: the next batch needs " +
           std::to_string(pool_->HeadNeeds()) + " results but only " + std::to_string(would_pend) +
           " envs would have actions in flight; send() more or recv() first";
  }

  nb::object WaitAndDeliver() {
    WaitInterruptibly();
    Block* block = pool_->Deliver();
    if (pool_->pending() == 0) interrupted_ = false;
    if (block->failed.load(std::memory_order_acquire)) RaiseEnvError(block);
    pool_->arena()->AddRef();
    return Wrap(block);
  }

  // Waits for the head block without the GIL. If Ctrl-C (or another signal whose handler
  // raises) arrives, raises that exception; the batch goes on without the caller, and the
  // next recv() returns it (reset() drops it: DropInterruptedBatches).
  void WaitInterruptibly() {
    Block* head;
    {
      nb::gil_scoped_release release;
      head = pool_->Wait(PythonSignalRaised);
    }
    if (head == nullptr) {
      interrupted_ = true;
      throw nb::python_error();
    }
  }

  // reset() starts from idle envs: batches that an interrupt left running are awaited and
  // dropped first (only whole batches: in async mode, envs sent beyond them stay in flight).
  void DropInterruptedBatches() {
    if (!interrupted_) return;
    while (pool_->pending() > 0 && RecvProblem("reset()").empty()) {
      WaitInterruptibly();
      pool_->Discard(pool_->Deliver());
    }
    interrupted_ = false;
  }

  // Raises envfleet.EnvError for a batch in which an env threw. The batch's results are
  // dropped, and its envs are idle again: err.env_ids lists them all, so an async loop can
  // send them new actions; the env that failed starts a new episode on its next step.
  [[noreturn]] void RaiseEnvError(Block* block) {
    const BlockLayout& layout = pool_->layout();
    const int64_t first = block->first_row;
    npy_intp rows = static_cast<npy_intp>(layout.batch_size - first);
    nb::object ids = nb::steal(PyArray_SimpleNew(1, &rows, NPY_INT32));
    if (!ids.is_valid()) throw nb::python_error();
    std::memcpy(PyArray_DATA(reinterpret_cast<PyArrayObject*>(ids.ptr())),
                block->key_bases[kEnvId] + first * sizeof(int32_t), rows * sizeof(int32_t));
    const int32_t failed = block->failed_env;
    const std::string message = EnvErrorMessage(block);
    pool_->Discard(block);
    nb::object type = nb::module_::import_("envfleet.errors").attr("EnvError");
    nb::object error = type(LenientText(message));
    nb::setattr(error, "env_id", nb::int_(failed));
    nb::setattr(error, "env_ids", ids);
    PyErr_SetObject(type.ptr(), error.ptr());
    throw nb::python_error();
  }

  static std::string EnvErrorMessage(const Block* block) {
    return "env " + std::to_string(block->failed_env) + " raised: " + block->error;
  }

  nb::object Wrap(Block* block) {
    PyObject* capsule = PyCapsule_New(block, "envfleet.block", ReleaseBlockLease);
    if (capsule == nullptr) {
      block->arena->EndLease(block);
      throw nb::python_error();
    }
    nb::object owner = nb::steal(capsule);
    const BlockLayout& layout = pool_->layout();
    const int64_t first = block->first_row;
    const npy_intp rows = static_cast<npy_intp>(layout.batch_size - first);
    nb::object out = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(layout.keys.size())));
    for (size_t k = 0; k < layout.keys.size(); ++k) {
      const ArraySpec& key = layout.keys[k];
      npy_intp dims[NPY_MAXDIMS];
      dims[0] = rows;
      for (size_t d = 0; d < key.shape.size(); ++d) dims[d + 1] = key.shape[d];
      void* data = block->key_bases[k] + first * layout.row_bytes[k];
      PyObject* array =
          PyArray_New(&PyArray_Type, static_cast<int>(key.shape.size() + 1), dims,
                      NumpyType(key.dtype), nullptr, data, 0, NPY_ARRAY_CARRAY, nullptr);
      if (array == nullptr) throw nb::python_error();
      Py_INCREF(capsule);
      if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array), capsule) != 0) {
        Py_DECREF(array);
        throw nb::python_error();
      }
      PyTuple_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(k), array);
    }
    return out;
  }

  // Checks env ids: None means every env (then the action batch must cover all of them);
  // otherwise a 1-D integer array of distinct, in-range ids of envs waiting for an action.
  Ids CheckIds(nb::handle env_id, nb::handle action, bool reset) {
    const int num_envs = pool_->options().num_envs;
    Ids ids = ParseIds(env_id);
    if (!action.is_none() && env_id.is_none()) {
      // With env_id omitted, the action batch must cover every env.
      PyObject* a = action.ptr();
      npy_intp lead = PyArray_Check(a) && PyArray_NDIM(reinterpret_cast<PyArrayObject*>(a)) > 0
                          ? PyArray_DIM(reinterpret_cast<PyArrayObject*>(a), 0)
                          : -1;
      if (lead != num_envs) {
        throw nb::value_error(("action has a batch of " + std::to_string(lead) +
                               " but env_id was not given: "
                               "either pass one action per env (" +
                               std::to_string(num_envs) + ") or pass env_id")
                                  .c_str());
      }
    }
    const std::string problem = IdStateProblem(ids, reset);
    if (!problem.empty()) throw nb::value_error(problem.c_str());
    return ids;
  }

  // Why envs `ids` cannot be sent an action (or a reset) now, or "" if they can.
  std::string IdStateProblem(const Ids& ids, bool reset) const {
    const bool disabled = pool_->options().autoreset_mode == AutoresetMode::kDisabled;
    // Nothing in flight and every episode able to go on: no id can be refused (the sync
    // loop's case, which this skips a pass over every env for).
    if (pool_->pending() == 0 && (reset || !disabled)) return {};
    for (size_t i = 0; i < ids.count; ++i) {
      const int32_t id = ids.data[i];
      if (pool_->in_flight(id)) {
        return "env_id " + std::to_string(id) +
               " is not waiting for an action: its previous action is still in flight; recv() "
               "its result first" +
               (interrupted_ ? " (an interrupted recv()/step() left its batch running: recv() "
                               "returns it, reset() drops it)"
                             : "");
      }
      if (!reset && disabled && pool_->episode_over(id)) {
        return "env_id " + std::to_string(id) +
               " has no running episode and autoreset_mode is DISABLED: reset it first";
      }
    }
    return {};
  }

  // Converts env ids: None means every env; otherwise an integer or a 1-D integer array of
  // distinct ids in range.
  Ids ParseIds(nb::handle env_id) {
    if (env_id.is_none()) return {all_ids_.data(), all_ids_.size()};  // every env, in order
    const int num_envs = pool_->options().num_envs;
    nb::object given = nb::steal(PyArray_FromAny(env_id.ptr(), nullptr, 0, 0, 0, nullptr));
    if (!given.is_valid()) PyErr_Clear();
    auto* array = reinterpret_cast<PyArrayObject*>(given.ptr());
    if (!given.is_valid() || !PyArray_ISINTEGER(array) || PyArray_NDIM(array) > 1) {
      throw nb::type_error("env_id must be an integer or a 1-D array of integers");
    }
    nb::object wide = nb::steal(PyArray_Cast(array, NPY_INT64));
    if (!wide.is_valid()) throw nb::python_error();
    const auto* values =
        static_cast<const int64_t*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(wide.ptr())));
    const npy_intp count = PyArray_SIZE(array);
    if (count > num_envs) {
      throw nb::value_error(("env_id has " + std::to_string(count) + " entries but there are " +
                             "only " + std::to_string(num_envs) + " envs")
                                .c_str());
    }
    for (npy_intp i = 0; i < count; ++i) {
      const std::string problem = IdRangeProblem(values[i]);
      if (!problem.empty()) throw nb::value_error(problem.c_str());
      given_ids_[static_cast<size_t>(i)] = static_cast<int32_t>(values[i]);
    }
    const Ids ids{given_ids_.data(), static_cast<size_t>(count)};
    const std::string problem = IdListProblem(ids);
    if (!problem.empty()) throw nb::value_error(problem.c_str());
    return ids;
  }

  std::string IdRangeProblem(int64_t id) const {
    const int num_envs = pool_->options().num_envs;
    if (id >= 0 && id < num_envs) return {};
    return "env_id " + std::to_string(id) + " is out of range: valid ids are 0.." +
           std::to_string(num_envs - 1);
  }

  // Why in-range ids `ids` are not a valid list (empty, or an id given twice), or "".
  std::string IdListProblem(const Ids& ids) {
    if (ids.count == 0) return "env_id is empty: give at least one env id";
    ++epoch_;
    for (size_t i = 0; i < ids.count; ++i) {
      const int32_t id = ids.data[i];
      if (marks_[id] == epoch_) return "env_id " + std::to_string(id) + " appears twice";
      marks_[id] = epoch_;
    }
    return {};
  }

  // Checks the action batch (already of the spec's dtype, C-contiguous: the Python front end
  // converts) and copies one action into each env's slot.
  void CopyActions(nb::handle action, const Ids& ids) {
    const ArraySpec& spec = pool_->spec().action;
    PyObject* a = action.ptr();
    if (!PyArray_Check(a)) throw nb::type_error("action must be a numpy array");
    auto* array = reinterpret_cast<PyArrayObject*>(a);
    if (PyArray_TYPE(array) != action_type_ || !PyArray_IS_C_CONTIGUOUS(array)) {
      throw nb::type_error(
          (std::string("action must be a C-contiguous ") + DTypeName(spec.dtype) + " array")
              .c_str());
    }
    const int ndim = PyArray_NDIM(array);
    bool shape_ok = ndim == static_cast<int>(spec.shape.size()) + 1 &&
                    PyArray_DIM(array, 0) == static_cast<npy_intp>(ids.count);
    for (size_t d = 0; shape_ok && d < spec.shape.size(); ++d) {
      shape_ok = PyArray_DIM(array, static_cast<int>(d) + 1) == spec.shape[d];
    }
    if (!shape_ok) {
      std::string expected = "(" + std::to_string(ids.count);
      for (int64_t s : spec.shape) expected += ", " + std::to_string(s);
      expected += spec.shape.empty() ? ",)" : ")";
      std::string got = "(";
      for (int d = 0; d < ndim; ++d) got += (d ? ", " : "") + std::to_string(PyArray_DIM(array, d));
      got += ndim == 1 ? ",)" : ")";
      throw nb::value_error(
          ("action has shape " + got + " but shape " + expected + " was expected").c_str());
    }
    const char* data = static_cast<const char*>(PyArray_DATA(array));
    const std::string problem = ActionValueProblem(data, ids);
    if (!problem.empty()) throw nb::value_error(problem.c_str());
    StoreActions(data, ids);
  }

  // Why actions `data` (one per env of `ids`, in the spec's dtype) are out of the action
  // space, or "".
  std::string ActionValueProblem(const char* data, const Ids& ids) const {
    const ArraySpec& spec = pool_->spec().action;
    const size_t total = ids.count * action_elements_;
    if (ActionValuesFine(data, total)) return {};
    if (spec.discrete) {
      const auto* values = reinterpret_cast<const int64_t*>(data);
      for (size_t i = 0; i < total; ++i) {
        const size_t e = i % action_elements_;
        const double low = spec.low.size() == 1 ? spec.low[0] : spec.low[e];
        const double high = spec.high.size() == 1 ? spec.high[0] : spec.high[e];
        if (values[i] < low || values[i] > high) {
          return "action " + std::to_string(values[i]) + " for env_id " +
                 std::to_string(ids.data[i / action_elements_]) +
                 " is out of range: valid actions are " +
                 std::to_string(static_cast<int64_t>(low)) + ".." +
                 std::to_string(static_cast<int64_t>(high));
        }
      }
    } else if (spec.dtype == DType::kFloat32 || spec.dtype == DType::kFloat64) {
      for (size_t i = 0; i < total; ++i) {
        double v = spec.dtype == DType::kFloat32 ? reinterpret_cast<const float*>(data)[i]
                                                 : reinterpret_cast<const double*>(data)[i];
        if (!std::isfinite(v)) {
          return "action for env_id " + std::to_string(ids.data[i / action_elements_]) +
                 " is not finite (nan or inf)";
        }
      }
    }
    return {};
  }

  // The common case of ActionValueProblem, in one branch-free pass the compiler vectorises:
  // every discrete action within one shared [low, high], or every float finite. False means
  // "look closer" (per-element bounds, or a bad value), not necessarily a problem.
  bool ActionValuesFine(const char* data, size_t total) const {
    const ArraySpec& spec = pool_->spec().action;
    if (spec.discrete) {
      if (spec.low.size() != 1 || spec.high.size() != 1) return false;
      const auto* values = reinterpret_cast<const int64_t*>(data);
      const double low = spec.low[0], high = spec.high[0];
      // Integer bounds compared as integers (the spec's doubles hold small integers).
      const int64_t lo = low < -9.2e18 ? INT64_MIN : static_cast<int64_t>(low);
      const int64_t hi = high > 9.2e18 ? INT64_MAX : static_cast<int64_t>(high);
      if (static_cast<double>(lo) != low || static_cast<double>(hi) != high) return false;
      return IntsWithin(values, total, lo, hi);
    }
    // Finite means an exponent that is not all ones.
    if (spec.dtype == DType::kFloat32) {
      const auto* bits = reinterpret_cast<const uint32_t*>(data);
      uint32_t bad = 0;
      for (size_t i = 0; i < total; ++i) bad |= (bits[i] & 0x7f800000u) == 0x7f800000u;
      return bad == 0;
    }
    if (spec.dtype == DType::kFloat64) {
      const auto* bits = reinterpret_cast<const uint64_t*>(data);
      const uint64_t exponent = 0x7ff0000000000000ull;
      uint64_t bad = 0;
      for (size_t i = 0; i < total; ++i) bad |= (bits[i] & exponent) == exponent;
      return bad == 0;
    }
    return true;  // other dtypes have no value check
  }

  void StoreActions(const char* data, const Ids& ids) {
    const size_t bytes = pool_->action_bytes();
    if (ids.data == all_ids_.data()) {  // every env in order: the slots are one array
      std::memcpy(pool_->action_slot(0), data, ids.count * bytes);
      return;
    }
    for (size_t i = 0; i < ids.count; ++i) {
      std::memcpy(pool_->action_slot(ids.data[i]), data + i * bytes, bytes);
    }
  }

  // ---- the plain-C path (cpp/bind/pool_api.h): no GIL, no Python objects ---------------------

  // Runs `call` under the pool's lock; returns NULL or its error message, which lives until
  // this thread's next call.
  template <typename Call>
  static const char* RawCall(void* self, Call&& call) {
    thread_local std::string error;
    auto* pool = static_cast<PyPool*>(self);
    try {
      std::lock_guard<std::mutex> lock(pool->mutex_);
      error = call(*pool);
    } catch (const std::exception& e) {
      error = std::string("envfleet pool: ") + e.what();
    } catch (...) {
      error = "envfleet pool: unknown C++ exception";
    }
    return error.empty() ? nullptr : error.c_str();
  }

  static const char* ApiSend(void* self, const EnvfleetArray* action, const int32_t* env_ids,
                             int64_t count) {
    return RawCall(self, [&](PyPool& pool) {
      return pool.RawSend("send()", *action, env_ids, count, /*step=*/false);
    });
  }

  static const char* ApiRecv(void* self, const EnvfleetArray* outputs, int64_t num_outputs) {
    return RawCall(self, [&](PyPool& pool) {
      std::string problem = pool.OutputsProblem(outputs, num_outputs);
      return problem.empty() ? pool.RawReceive("recv()", outputs) : problem;
    });
  }

  static const char* ApiStep(void* self, const EnvfleetArray* action, const int32_t* env_ids,
                             int64_t count, const EnvfleetArray* outputs, int64_t num_outputs) {
    return RawCall(self, [&](PyPool& pool) {
      std::string problem = pool.OutputsProblem(outputs, num_outputs);
      if (problem.empty()) problem = pool.RawSend("step()", *action, env_ids, count, true);
      return problem.empty() ? pool.RawReceive("step()", outputs) : problem;
    });
  }

  // Send's checks (the messages of the Python path) and queueing, over raw buffers. A step
  // also checks that the batch can fill and reserves the caller's share of the envs.
  std::string RawSend(const char* call, const EnvfleetArray& action, const int32_t* env_ids,
                      int64_t count, bool step) {
    if (std::string problem = OpenProblem(); !problem.empty()) return problem;
    const int num_envs = pool_->options().num_envs;
    if (count > num_envs) {
      return "env_id has " + std::to_string(count) + " entries but there are only " +
             std::to_string(num_envs) + " envs";
    }
    for (int64_t i = 0; i < count; ++i) {
      std::string problem = IdRangeProblem(env_ids[i]);
      if (!problem.empty()) return problem;
    }
    const Ids ids{env_ids, static_cast<size_t>(count)};
    std::string problem = IdListProblem(ids);
    if (problem.empty()) problem = IdStateProblem(ids, /*reset=*/false);
    if (!problem.empty()) return problem;
    const ArraySpec& spec = pool_->spec().action;
    const int64_t expected = count * static_cast<int64_t>(action_elements_);
    if (action.elements != expected) {
      return std::string(call) + ": the action batch has " + std::to_string(action.elements) +
             " elements but " + std::to_string(count) + " envs need " + std::to_string(expected);
    }
    if (!ConvertElements(action.data, action.dtype, action_scratch_.data(),
                         static_cast<int32_t>(spec.dtype), static_cast<size_t>(expected))) {
      return std::string(call) + ": the action must be " + DTypeName(spec.dtype) +
             " (or its 32-bit counterpart)";
    }
    problem = ActionValueProblem(action_scratch_.data(), ids);
    if (problem.empty() && step) problem = FillProblem(call, ids.count, /*sealed=*/false);
    if (!problem.empty()) return problem;
    StoreActions(action_scratch_.data(), ids);
    pool_->Enqueue(ids.data, ids.count, /*reset=*/false, /*seal=*/false, /*caller_waits=*/step);
    return {};
  }

  // Why `outputs` cannot receive the next batch (wrong count, size or dtype), or "".
  std::string OutputsProblem(const EnvfleetArray* outputs, int64_t num_outputs) const {
    if (std::string problem = OpenProblem(); !problem.empty()) return problem;
    const BlockLayout& layout = pool_->layout();
    if (num_outputs != static_cast<int64_t>(layout.keys.size())) {
      return "the batch has " + std::to_string(layout.keys.size()) + " arrays, not " +
             std::to_string(num_outputs);
    }
    const int64_t rows = pool_->HeadNeeds();
    if (rows != static_cast<int64_t>(layout.batch_size)) {
      return "the next batch has " + std::to_string(rows) +
             " rows (the rest of a partial step() or reset() made from Python), not batch_size "
             "= " +
             std::to_string(layout.batch_size) + ": recv() it from Python first";
    }
    for (size_t k = 0; k < layout.keys.size(); ++k) {
      const ArraySpec& key = layout.keys[k];
      const int64_t elements = rows * static_cast<int64_t>(key.NumElements());
      if (outputs[k].elements != elements ||
          !ConvertElements(nullptr, static_cast<int32_t>(key.dtype), nullptr, outputs[k].dtype,
                           0)) {
        return "output '" + key.name + "' must hold " + std::to_string(elements) + " " +
               DTypeName(key.dtype) + " elements (or their 32-bit counterpart)";
      }
    }
    return {};
  }

  // Waits for the head block (OutputsProblem has checked `outputs` against it), copies it
  // out and recycles it at once: nothing outside keeps a view of it.
  std::string RawReceive(const char* call, const EnvfleetArray* outputs) {
    std::string problem = RecvProblem(call);
    if (!problem.empty()) return problem;
    pool_->Wait();
    Block* block = pool_->Deliver();
    if (block->failed.load(std::memory_order_acquire)) {
      problem = EnvErrorMessage(block);
      pool_->Discard(block);
      return problem;
    }
    const BlockLayout& layout = pool_->layout();
    for (size_t k = 0; k < layout.keys.size(); ++k) {
      ConvertElements(block->key_bases[k], static_cast<int32_t>(layout.keys[k].dtype),
                      outputs[k].data, outputs[k].dtype, static_cast<size_t>(outputs[k].elements));
    }
    pool_->Discard(block);
    return {};
  }

  static constexpr int kMaxRenderSide = 16384;

  std::unique_ptr<Pool> pool_;
  uint64_t fork_generation_ = 0;  // ForkGeneration() when the pool was made
  bool interrupted_ = false;      // a wait was interrupted and its batch is still pending
  int action_type_ = NPY_NOTYPE;
  size_t action_elements_ = 1;
  std::vector<uint32_t> marks_;  // duplicate detection without allocating per call
  uint32_t epoch_ = 0;
  std::vector<int32_t> all_ids_;
  std::vector<int32_t> given_ids_;  // env ids of the current call, converted to int32
  // Serialises the Python methods with the plain-C calls, which come from XLA's threads.
  std::mutex mutex_;
  std::vector<char> action_scratch_;  // a plain-C call's actions, widened to the spec's dtype
  std::vector<EnvfleetKey> api_keys_;
  EnvfleetPoolApi api_{};
};

// Random valid actions, drawn up front so drawing them is not timed.
inline std::vector<char> SampleActions(const ArraySpec& spec, size_t count, uint64_t seed) {
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

// RawStepRate's timed loop: round-robin steps with the pool's autoreset. Returns the episodes
// begun (the first resets included) and the seconds the steps took.
inline std::pair<int64_t, double> RawLoop(std::vector<std::unique_ptr<Env>>& envs,
                                          const std::vector<char>& actions, size_t action_bytes,
                                          size_t num_actions, const OutputSlot& slot,
                                          int64_t num_steps, int64_t max_episode_steps) {
  const size_t num_envs = envs.size();
  int64_t episodes = static_cast<int64_t>(num_envs);
  for (auto& env : envs) {
    env->Reset();
    env->Write(slot);
  }
  std::vector<int64_t> elapsed_of(num_envs, 0);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < num_steps; ++i) {
    Env* env = envs[static_cast<size_t>(i) % num_envs].get();
    int64_t& elapsed = elapsed_of[static_cast<size_t>(i) % num_envs];
    env->Step(actions.data() + (static_cast<size_t>(i) % num_actions) * action_bytes);
    ++elapsed;
    // The time limit, or the env's own (Env::kTruncates: MiniGrid's per-episode max_steps,
    // which can be shorter than the pool's limit), as the pool's loops decide.
    const bool truncated =
        (max_episode_steps > 0 && elapsed >= max_episode_steps) || env->truncated();
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
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {episodes, seconds};
}

// Takes `num_steps` steps in all, round-robin over `num_envs` envs (1: the limit; more shows
// what cycling through many envs' state costs in cache misses); returns (steps, seconds,
// episodes).
inline nb::tuple RawStepRate(const EnvTypeMap& types, const std::string& type_name,
                             const nb::dict& options, int64_t num_steps, int64_t max_episode_steps,
                             uint64_t seed, int num_envs) {
  if (num_envs < 1) throw nb::value_error("raw_step_rate: num_envs must be at least 1");
  const EnvType& type = FindType(types, type_name);
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
  // Hands the block back and drops the arena however the loop ends (an env may throw).
  struct ArenaGuard {
    BlockArena* arena;
    Block* block;
    ~ArenaGuard() {
      arena->Recycle(block);
      arena->Release();
    }
  } guard{arena, block};
  OutputSlot slot(block->key_bases.data(), arena->layout().row_bytes.data(), 0);
  int64_t episodes = 0;
  double seconds = 0;
  // The loop, run on a thread of its own for envs whose steps keep per-thread state (a GL
  // context: EnvSpec::workers_only), so that state ends with it as it ends with a pool's
  // workers. Its exceptions are rethrown here.
  std::exception_ptr error;
  const auto loop = [&]() {
    try {
      std::tie(episodes, seconds) =
          RawLoop(envs, actions, action_bytes, kActions, slot, num_steps, max_episode_steps);
    } catch (...) {
      error = std::current_exception();
    }
  };
  {
    nb::gil_scoped_release release;
    if (spec.workers_only) {
      std::thread worker;
      {
        const NewThreadsBlockSignals blocked;  // core/signal_mask.h
        worker = std::thread(loop);
      }
      worker.join();
    } else {
      loop();
    }
  }
  if (error) std::rethrow_exception(error);
  return nb::make_tuple(num_steps, seconds, episodes);
}

template <typename Module>
void BindEnvModule(nb::module_& m, EnvTypeMap& types) {
  ModuleTypes<Module>() = &types;
  if (_import_array() < 0) throw nb::python_error();

  m.def(
      "env_types",
      [] {
        nb::dict types;
        for (const auto& [name, type] : *ModuleTypes<Module>()) {
          nb::dict defaults;
          for (const auto& [key, value] : type.defaults.values()) {
            defaults[key.c_str()] = nb::make_tuple(ConfigKind(value), ConfigValueToPython(value));
          }
          types[name.c_str()] = defaults;
        }
        return types;
      },
      "Every env type this module can build: {type: {option: (kind, default)}}.");

  m.def(
      "env_spec",
      [](const std::string& type_name, const nb::dict& options) {
        const EnvType& type = FindType(*ModuleTypes<Module>(), type_name);
        return SpecToDict(type.spec(ToConfig(type.defaults, options)));
      },
      nb::arg("type_name"), nb::arg("options"), "The spec of one env of this type and options.");

  nb::class_<PyPool<Module>>(m, "Pool")
      .def(
          nb::init<const std::string&, const nb::dict&, int, int, int, const std::vector<uint64_t>&,
                   int, int, int64_t, const std::vector<nb::dict>&>(),
          nb::arg("type_name"), nb::arg("options"), nb::arg("num_envs"), nb::arg("batch_size"),
          nb::arg("num_threads"), nb::arg("seeds"), nb::arg("thread_affinity_offset"),
          nb::arg("autoreset_mode"), nb::arg("max_episode_steps"),
          nb::arg("per_env_options") = std::vector<nb::dict>(),
          "Env i is built from `options` updated with per_env_options[i] (when given).")
      .def("keys", &PyPool<Module>::Keys, "Names of the arrays recv() returns, in order.")
      .def("send", &PyPool<Module>::Send, nb::arg("action"), nb::arg("env_id").none())
      .def("recv", &PyPool<Module>::Recv)
      .def("step", &PyPool<Module>::Step, nb::arg("action"), nb::arg("env_id").none())
      .def("reset", &PyPool<Module>::Reset, nb::arg("env_id").none())
      .def("reseed", &PyPool<Module>::Reseed, nb::arg("env_id").none(), nb::arg("seeds"))
      .def("async_reset", &PyPool<Module>::AsyncReset)
      .def("render", &PyPool<Module>::Render, nb::arg("env_id").none(), nb::arg("camera_id"),
           nb::arg("width"), nb::arg("height"))
      .def("close", &PyPool<Module>::Close)
      .def("episode_over", &PyPool<Module>::episode_over, nb::arg("env_id"))
      .def_prop_ro("closed", &PyPool<Module>::closed)
      .def_prop_ro("pending", &PyPool<Module>::pending)
      .def_prop_ro("num_blocks", &PyPool<Module>::num_blocks)
      .def("pool_api", &PyPool<Module>::PoolApi,
           "The pool's plain-C entry points (cpp/bind/pool_api.h) in a PyCapsule, for native\n"
           "callers such as envfleet._xla; valid while this pool lives.");
  m.def(
      "raw_step_rate",
      [](const std::string& type_name, const nb::dict& options, int64_t num_steps,
         int64_t max_episode_steps, uint64_t seed, int num_envs) {
        return RawStepRate(*ModuleTypes<Module>(), type_name, options, num_steps, max_episode_steps,
                           seed, num_envs);
      },
      nb::arg("type_name"), nb::arg("options"), nb::arg("num_steps"), nb::arg("max_episode_steps"),
      nb::arg("seed") = 0, nb::arg("num_envs") = 1,
      "Steps one env (or num_envs, round-robin) in a plain single-threaded C++ loop (the\n"
      "physical limit of a pool thread): returns (steps, seconds, episodes).");
}

}  // namespace bind
}  // namespace envfleet

#endif  // ENVFLEET_BIND_ENV_MODULE_H_
