// frame_stack > 1 without from_pixels: a MuJoCo task (of the mujoco or the dm_control family)
// whose every observation array holds the last frame_stack values of the task's own, oldest
// first, along a new leading axis: shape (frame_stack, *shape), the bounds repeated per frame.
// A reset (the autoreset after a termination included) fills the stack with its observation;
// each step drops the oldest. This is EnvPool 1.2.5's frame_stack for state observations
// (envpool/mujoco/frame_stack.h: StackSpec and FrameStackBuffer); frame_stack=1 leaves the
// task's shapes as they are. Dynamics, reward, termination and info are the task's own.
//
// The wrapper captures the task's observation when it changes (after Reset and Step) by letting
// the task's Write fill this env's own buffers: the observation arrays go to the newest slot of
// each key's ring, the info arrays to a copy that Write hands on unchanged.
#ifndef ENVFLEET_COMMON_MUJOCO_STATE_STACK_H_
#define ENVFLEET_COMMON_MUJOCO_STATE_STACK_H_

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/env.h"
#include "core/spec.h"

namespace envfleet {
namespace mujoco {

// The task's frame_stack, checked (the option that from_pixels also reads).
inline int ReadFrameStack(const Config& config) {
  const int64_t stack = config.Get<int64_t>("frame_stack");
  if (stack < 1 || stack > 64) {
    throw std::invalid_argument("frame_stack must be in 1..64, got " + std::to_string(stack));
  }
  return static_cast<int>(stack);
}

// The spec of a task whose observations are stacked: each obs array gains a leading axis of
// frame_stack; per-element bounds are repeated for every frame (uniform ones stay as they are).
inline EnvSpec StateStackSpec(EnvSpec spec, int frame_stack) {
  for (ArraySpec& obs : spec.obs) {
    obs.shape.insert(obs.shape.begin(), frame_stack);
    for (std::vector<double>* bound : {&obs.low, &obs.high}) {
      if (bound->size() <= 1) continue;
      const std::vector<double> one(*bound);
      for (int k = 1; k < frame_stack; ++k) bound->insert(bound->end(), one.begin(), one.end());
    }
  }
  return spec;
}

template <typename E>
class StateStackEnv final : public E {
 public:
  // task_spec: the spec of the task E as built from the same config (unstacked); then E's own
  // constructor arguments.
  template <typename... More>
  StateStackEnv(const EnvSpec& task_spec, int frame_stack, More&&... more)
      : E(std::forward<More>(more)...), frame_stack_(frame_stack) {
    for (const ArraySpec& obs : task_spec.obs) {
      obs_bytes_.push_back(obs.NumBytes());
      stacks_.emplace_back(obs.NumBytes() * static_cast<size_t>(frame_stack_));
    }
    for (const ArraySpec& info : task_spec.info) infos_.emplace_back(info.NumBytes());
    bases_.resize(obs_bytes_.size() + infos_.size());
    row_bytes_.assign(bases_.size(), 0);  // one row: the capture writes row 0 of each base
  }

  // Also the autoreset after a termination (Env::ResetAfterTermination calls Reset()).
  void Reset() override {
    E::Reset();
    Capture(/*fill=*/true);
  }

  void Step(const void* action) override {
    E::Step(action);
    Capture(/*fill=*/false);
  }

  void Write(const OutputSlot& out) const override {
    for (size_t key = 0; key < obs_bytes_.size(); ++key) {
      char* dst = out.Get<char>(key);
      const size_t bytes = obs_bytes_[key];
      for (int k = 0; k < frame_stack_; ++k) {  // oldest first
        const size_t slot = static_cast<size_t>((newest_ + 1 + k) % frame_stack_);
        std::memcpy(dst + static_cast<size_t>(k) * bytes, stacks_[key].data() + slot * bytes,
                    bytes);
      }
    }
    for (size_t j = 0; j < infos_.size(); ++j) {
      std::memcpy(out.Get<char>(obs_bytes_.size() + j), infos_[j].data(), infos_[j].size());
    }
  }

 private:
  // Lets the task write its current observation into the next ring slot of each key (every
  // slot after a reset) and its info into infos_.
  void Capture(bool fill) {
    newest_ = (newest_ + 1) % frame_stack_;
    const size_t newest = static_cast<size_t>(newest_);
    for (size_t key = 0; key < obs_bytes_.size(); ++key) {
      bases_[key] = stacks_[key].data() + newest * obs_bytes_[key];
    }
    for (size_t j = 0; j < infos_.size(); ++j) bases_[obs_bytes_.size() + j] = infos_[j].data();
    E::Write(OutputSlot(bases_.data(), row_bytes_.data(), 0));
    if (!fill) return;
    for (size_t key = 0; key < obs_bytes_.size(); ++key) {
      const size_t bytes = obs_bytes_[key];
      char* ring = stacks_[key].data();
      for (size_t k = 0; k < static_cast<size_t>(frame_stack_); ++k) {
        if (k != newest) std::memcpy(ring + k * bytes, ring + newest * bytes, bytes);
      }
    }
  }

  int frame_stack_;
  std::vector<size_t> obs_bytes_;          // one frame of each obs key
  std::vector<std::vector<char>> stacks_;  // per obs key: frame_stack frames, a ring
  std::vector<std::vector<char>> infos_;   // the task's latest info arrays
  std::vector<char*> bases_;               // where the capture's OutputSlot writes each key
  std::vector<size_t> row_bytes_;
  int newest_ = 0;  // the ring slot holding the latest frame
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_MUJOCO_STATE_STACK_H_
