// A stand-in for the CUDA driver (the `Device` of cpp/xla/gpu_staging.h) that makes the
// staging's ordering mistakes visible as wrong data, for the C++ unit tests
// (tests/cpp/xla/gpu_staging_test.cc) and the test-only module's StagedXlaPool
// (tests/cpp/testing_module/xla_staging.cc). "Device memory" is ordinary host memory.
//
// - A stream runs nothing when asked: every copy waits in its queue until Synchronize, a
//   WaitEvent on an event recorded behind it, or Flush, as late as a real GPU may run it.
// - A copy to the host poisons its destination at once; the bytes arrive when it runs. A
//   read before the synchronise sees poison, not last call's values.
// - A copy from the host reads its source when it runs: host memory rewritten before that
//   delivers the new bytes, as a DMA would.
// - Host allocations start poisoned; freeing memory that a queued copy still touches, or an
//   event still queued, is counted as a violation.
// - Every operation is counted by name, and one can be made to fail (fail_op, fail_after).
// - Contexts are tracked per thread: a stream belongs to one, and copies on a stream need a
//   current context (the driver's rule), else they fail.
#ifndef ENVFLEET_TESTS_CPP_XLA_FAKE_DEVICE_H_
#define ENVFLEET_TESTS_CPP_XLA_FAKE_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace envfleet::xla::testing {

constexpr unsigned char kPoison = 0xA5;

class FakeDevice {
 public:
  struct ContextState {
    int id;
  };
  struct StreamState;
  struct EventState {
    ContextState* context = nullptr;
    StreamState* stream = nullptr;  // where it was last recorded
    uint64_t recorded = 0;          // how many times it was recorded
    uint64_t reached = 0;           // how many of those records the stream has run
  };
  struct Op {
    enum Kind { kCopy, kRecord } kind;
    void* to;
    const void* from;
    size_t bytes;
    EventState* event;
  };
  struct StreamState {
    ContextState* context;
    std::deque<Op> queue;
  };
  using Stream = StreamState*;
  using Event = EventState*;
  using Context = ContextState*;

  FakeDevice() = default;
  FakeDevice(const FakeDevice&) = delete;
  FakeDevice& operator=(const FakeDevice&) = delete;
  ~FakeDevice() {
    for (auto& [memory, bytes] : allocations_) std::free(memory);
  }

  Context NewContext() {
    contexts_.push_back(std::make_unique<ContextState>(ContextState{next_context_id_++}));
    return contexts_.back().get();
  }
  Stream NewStream(Context context) {
    streams_.push_back(std::make_unique<StreamState>(StreamState{context, {}}));
    return streams_.back().get();
  }

  // ---- the Device interface --------------------------------------------------------------
  std::string CurrentContext(Context* context) {
    if (std::string error = Call("CurrentContext"); !error.empty()) return error;
    *context = CurrentStack().empty() ? nullptr : CurrentStack().back();
    return {};
  }
  std::string StreamContext(Stream stream, Context* context) {
    if (std::string error = Call("StreamContext"); !error.empty()) return error;
    *context = stream->context;
    return {};
  }
  std::string PushContext(Context context) {
    if (std::string error = Call("PushContext"); !error.empty()) return error;
    CurrentStack().push_back(context);
    return {};
  }
  std::string PopContext() {
    if (std::string error = Call("PopContext"); !error.empty()) return error;
    if (CurrentStack().empty()) return "fake device: PopContext with no context current";
    CurrentStack().pop_back();
    return {};
  }
  std::string AllocHost(size_t bytes, void** memory) {
    if (std::string error = Call("AllocHost"); !error.empty()) return error;
    *memory = std::malloc(bytes == 0 ? 1 : bytes);
    std::memset(*memory, kPoison, bytes);
    allocations_[*memory] = bytes;
    return {};
  }
  void FreeHost(void* memory) {
    (void)Call("FreeHost");
    auto it = allocations_.find(memory);
    if (it == allocations_.end()) {
      ++violations;  // not allocated here, or freed twice
      return;
    }
    const char* begin = static_cast<const char*>(memory);
    const char* end = begin + it->second;
    for (auto& stream : streams_) {
      for (const Op& op : stream->queue) {
        if (op.kind == Op::kCopy && (Within(op.to, begin, end) || Within(op.from, begin, end))) {
          ++violations;  // a queued copy would touch freed memory
        }
      }
    }
    std::free(memory);
    allocations_.erase(it);
  }
  std::string CopyToHost(void* host, const void* device, size_t bytes, Stream stream) {
    if (std::string error = Enqueue("CopyToHost", stream); !error.empty()) return error;
    std::memset(host, kPoison, bytes);
    stream->queue.push_back({Op::kCopy, host, device, bytes, nullptr});
    return {};
  }
  std::string CopyToDevice(void* device, const void* host, size_t bytes, Stream stream) {
    if (std::string error = Enqueue("CopyToDevice", stream); !error.empty()) return error;
    stream->queue.push_back({Op::kCopy, device, host, bytes, nullptr});
    return {};
  }
  std::string CopyOnDevice(void* to, const void* from, size_t bytes, Stream stream) {
    if (std::string error = Enqueue("CopyOnDevice", stream); !error.empty()) return error;
    stream->queue.push_back({Op::kCopy, to, from, bytes, nullptr});
    return {};
  }
  std::string Synchronize(Stream stream) {
    if (std::string error = Enqueue("Synchronize", stream); !error.empty()) return error;
    Run(stream, stream->queue.size());
    return {};
  }
  std::string CreateEvent(Event* event) {
    if (std::string error = Call("CreateEvent"); !error.empty()) return error;
    Context current = CurrentStack().empty() ? nullptr : CurrentStack().back();
    if (current == nullptr) return "fake device: CreateEvent with no context current";
    events_.push_back(std::make_unique<EventState>());
    events_.back()->context = current;
    *event = events_.back().get();
    return {};
  }
  void DestroyEvent(Event event) {
    (void)Call("DestroyEvent");
    for (auto& stream : streams_) {
      for (const Op& op : stream->queue) {
        if (op.kind == Op::kRecord && op.event == event) ++violations;
      }
    }
    event->context = nullptr;  // kept allocated, so that a later use is seen, not a crash
  }
  std::string RecordEvent(Event event, Stream stream) {
    if (std::string error = Enqueue("RecordEvent", stream); !error.empty()) return error;
    if (event->context != stream->context) return "fake device: event of another context";
    event->stream = stream;
    ++event->recorded;
    stream->queue.push_back({Op::kRecord, nullptr, nullptr, 0, event});
    return {};
  }
  std::string WaitEvent(Event event) {
    if (std::string error = Call("WaitEvent"); !error.empty()) return error;
    if (event->context == nullptr) return "fake device: WaitEvent on a destroyed event";
    while (event->reached < event->recorded) Run(event->stream, 1);
    return {};
  }

  // ---- for the tests -----------------------------------------------------------------------
  // Runs every queued operation of every stream: what a reader later on the stream sees.
  void Flush() {
    for (auto& stream : streams_) Run(stream.get(), stream->queue.size());
  }
  size_t Queued() const {
    size_t n = 0;
    for (auto& stream : streams_) n += stream->queue.size();
    return n;
  }
  size_t LiveAllocations() const { return allocations_.size(); }
  int Count(const std::string& op) const {
    auto it = calls.find(op);
    return it == calls.end() ? 0 : it->second;
  }
  // The calling thread's stack of current contexts (the driver keeps one per thread).
  static std::vector<Context>& CurrentStack() {
    thread_local std::vector<Context> stack;
    return stack;
  }

  std::map<std::string, int> calls;  // operation name -> times called
  int violations = 0;
  std::string fail_op;  // the operation to fail, once its fail_after earlier calls have passed
  int fail_after = 0;

 private:
  static bool Within(const void* p, const char* begin, const char* end) {
    const char* c = static_cast<const char*>(p);
    return c >= begin && c < end;
  }

  std::string Call(const std::string& op) {
    ++calls[op];
    if (op == fail_op && fail_after-- == 0) return "fake device: " + op + " failed";
    return {};
  }
  // Work on a stream needs the stream's context current on this thread.
  std::string Enqueue(const std::string& op, Stream stream) {
    if (std::string error = Call(op); !error.empty()) return error;
    if (CurrentStack().empty() || CurrentStack().back() != stream->context) {
      return "fake device: " + op + " without the stream's context current";
    }
    return {};
  }
  void Run(Stream stream, size_t count) {
    for (size_t i = 0; i < count && !stream->queue.empty(); ++i) {
      const Op op = stream->queue.front();
      stream->queue.pop_front();
      if (op.kind == Op::kCopy) {
        std::memcpy(op.to, op.from, op.bytes);
      } else {
        ++op.event->reached;
      }
    }
  }

  std::map<void*, size_t> allocations_;
  std::vector<std::unique_ptr<ContextState>> contexts_;
  std::vector<std::unique_ptr<StreamState>> streams_;
  std::vector<std::unique_ptr<EventState>> events_;
  int next_context_id_ = 1;
};

}  // namespace envfleet::xla::testing

#endif  // ENVFLEET_TESTS_CPP_XLA_FAKE_DEVICE_H_
