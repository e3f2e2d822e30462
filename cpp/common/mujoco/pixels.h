// from_pixels=True: a MuJoCo task (of the mujoco or the dm_control family) whose observation is
// what its camera sees, rendered on the worker thread inside Reset and Step (render.h), as
// EnvPool's from_pixels and dm_control's pixels wrapper offer it. The observation "pixels" is uint8
// (3 * frame_stack, H, W): the last frame_stack frames, oldest first, each as three channel planes
// (R, G, B), rows top first; a reset fills the stack with its frame. Dynamics, reward, termination
// and info are the task's own; only the observation changes. The frames are the task's render()
// frames (render_width x render_height from render_camera_id, the reference's to the pixel), so the
// same seed gives the same pixels whatever the threads.
//
// The task E provides Render(camera_id, width, height, rgb) and NumCameras(); its spec
// declares the options below (AddPixelDefaults) and its obs is replaced by PixelSpec. The one
// observation keeps the task's layout: an array for the mujoco family, {"pixels": ...} for
// dm_control (the key of dm_control's pixels wrapper with pixels_only=True).
#ifndef ENVFLEET_COMMON_MUJOCO_PIXELS_H_
#define ENVFLEET_COMMON_MUJOCO_PIXELS_H_

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/mujoco/state_stack.h"
#include "core/env.h"
#include "core/spec.h"

namespace envfleet {
namespace mujoco {

// The pixel options and their defaults: off; one 84x84 frame from the default view.
inline void AddPixelDefaults(Config& config) {
  config.Set("from_pixels", false);
  config.Set("frame_stack", int64_t{1});
  config.Set("render_width", int64_t{84});  // from_pixels' frames; render()'s are the task's
  config.Set("render_height", int64_t{84});
  config.Set("render_camera_id", int64_t{-1});
  config.Set("render_device", int64_t{-1});  // the EGL device frames are drawn on (render.h)
}

// render_device, checked: -1 (MUJOCO_EGL_DEVICE_ID's device, else the first EGL device that
// initializes) or an index into EGL's device list; whether that device exists is known only
// once the first frame opens EGL.
inline int ReadRenderDevice(const Config& config) {
  const int64_t device = config.Get<int64_t>("render_device");
  if (device < -1 || device > 1023) {
    throw std::invalid_argument(
        "render_device must be -1 (the default EGL device) or an EGL device index, got " +
        std::to_string(device));
  }
  return static_cast<int>(device);
}

// The pixel options, checked.
struct PixelOptions {
  int width, height, camera_id, frame_stack;
};

inline PixelOptions ReadPixelOptions(const Config& config, int num_cameras) {
  const auto get = [&config](const char* key) { return config.Get<int64_t>(key); };
  const int64_t width = get("render_width"), height = get("render_height");
  const int64_t camera = get("render_camera_id");
  const int stack = ReadFrameStack(config);
  constexpr int64_t kMaxSide = 16384;
  if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide) {
    throw std::invalid_argument("from_pixels: render_width and render_height must be in 1.." +
                                std::to_string(kMaxSide) + ", got " + std::to_string(width) + "x" +
                                std::to_string(height));
  }
  if (camera < -1 || camera >= num_cameras) {
    throw std::invalid_argument("from_pixels: render_camera_id must be -1 (the default view)" +
                                (num_cameras > 0 ? " or 0.." + std::to_string(num_cameras - 1)
                                                 : std::string(" (the model has no camera)")) +
                                ", got " + std::to_string(camera));
  }
  return {static_cast<int>(width), static_cast<int>(height), static_cast<int>(camera), stack};
}

// The spec of task E with pixel observations: the task's info and action, "pixels" as the one
// observation, the render size the frames have, and worker threads only (each holds a GL
// context; the caller's thread must never make one).
inline EnvSpec PixelSpec(EnvSpec spec, const Config& config) {
  const PixelOptions p = ReadPixelOptions(config, spec.render.num_cameras);
  spec.obs = {Box("pixels", DType::kUint8, {3 * p.frame_stack, p.height, p.width}, {0.0}, {255.0})};
  spec.render.width = p.width;
  spec.render.height = p.height;
  spec.workers_only = true;
  return spec;
}

template <typename E>
class PixelEnv final : public E {
 public:
  // The task's constructor arguments: (config, seed) and whatever else it takes (a version).
  template <typename... More>
  PixelEnv(const Config& config, uint64_t seed, More... more)
      : E(config, seed, more...), options_(ReadPixelOptions(config, this->NumCameras())) {
    plane_ = static_cast<size_t>(options_.width) * options_.height;
    frame_.resize(plane_ * 3);
    stack_.resize(plane_ * 3 * options_.frame_stack);
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
    uint8_t* dst = out.Get<uint8_t>(0);
    const size_t frame_bytes = plane_ * 3;
    for (int k = 0; k < options_.frame_stack; ++k) {  // oldest first
      const int slot = (newest_ + 1 + k) % options_.frame_stack;
      std::memcpy(dst + k * frame_bytes, stack_.data() + slot * frame_bytes, frame_bytes);
    }
    this->WriteInfo(out);
  }

 private:
  // Renders the current state into the next stack slot (every slot after a reset), as planes.
  void Capture(bool fill) {
    this->Render(options_.camera_id, options_.width, options_.height, frame_.data());
    newest_ = (newest_ + 1) % options_.frame_stack;
    uint8_t* planes = stack_.data() + newest_ * plane_ * 3;
    for (size_t i = 0; i < plane_; ++i) {
      planes[i] = frame_[3 * i];
      planes[plane_ + i] = frame_[3 * i + 1];
      planes[2 * plane_ + i] = frame_[3 * i + 2];
    }
    if (!fill) return;
    for (int k = 0; k < options_.frame_stack; ++k) {
      if (k != newest_) std::memcpy(stack_.data() + k * plane_ * 3, planes, plane_ * 3);
    }
  }

  PixelOptions options_;
  size_t plane_ = 0;            // pixels per frame
  std::vector<uint8_t> frame_;  // the latest frame as rendered: rows of RGB pixels
  std::vector<uint8_t> stack_;  // frame_stack frames as planes, a ring; newest_ is the latest
  int newest_ = 0;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_MUJOCO_PIXELS_H_
