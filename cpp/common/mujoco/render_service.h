// One render thread per engine module and EGL device (ENVFLEET_MUJOCO_RENDERER=service;
// render.h; each of _mujoco, _dm_control and _robotics has its own copy of this header): the
// worker threads build their scenes (mjv_updateScene, the CPU half of a frame) and hand them
// here; this thread owns its one GL context and draws every scene handed to it since its last
// pass back to back, queuing each frame's read-back into one pixel buffer object, then waits for
// the GPU once for the whole pass (PixelPack) and copies the frames out.
//
// Why this shape (issue #38): on a GPU, per-thread contexts got slower with every thread added
// (HalfCheetah-v5 from_pixels on an H200: 434 steps/s with one thread, 98 with sixteen), while
// sixteen processes reached 703: one process's contexts contend in the driver, and every frame
// waited for the GPU in its own glReadPixels. One context has nothing to contend with, and a
// pass of N frames waits once instead of N times. The frames are the same bytes: the same
// mjr_render into the same offscreen buffer at the same viewport, the same resolve-blit and
// glReadPixels, only to a buffer object instead of client memory.
//
// One service per EGL device a pool renders on (render_device; -1 is the default display). It
// lives while a worker thread holds it (RenderService::Acquire): the pools' threads
// release it when they end, and the last release stops the render thread, which frees its GL
// objects first. A context for a model is freed at the start of a pass once nobody else holds
// the model (its pools are gone).
//
// The hand-off is a mutex and two condition variables (a worker waits for its frame, as it waits
// for the GPU in the per-thread renderer's glReadPixels); the queue and a pass's bookkeeping
// keep their capacity, so a pass allocates nothing once warm.
#ifndef ENVFLEET_COMMON_MUJOCO_RENDER_SERVICE_H_
#define ENVFLEET_COMMON_MUJOCO_RENDER_SERVICE_H_

#include <mujoco/mujoco.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/mujoco/gl_context.h"
#include "common/mujoco/render_target.h"
#include "core/signal_mask.h"

namespace envfleet {
namespace mujoco {

class RenderService {
 public:
  // One frame to draw: `scene` built from `m` (an env's model, read for height fields only)
  // with `context_model` the shared model whose meshes and textures the scene refers to.
  struct Frame {
    const std::shared_ptr<const mjModel>* context_model;
    const mjModel* m;
    mjvScene* scene;
    bool upload_hfields;
    int width, height;
    uint8_t* rgb;  // height rows of width RGB pixels, top row first
  };

  // The service of EGL device `device` (-1: the default display), started if no thread
  // holds it: one render thread and GL context per device.
  static std::shared_ptr<RenderService> Acquire(int device) {
    static std::mutex mutex;
    static std::map<int, std::weak_ptr<RenderService>> services;
    std::lock_guard<std::mutex> lock(mutex);
    std::shared_ptr<RenderService> service = services[device].lock();
    if (service == nullptr) {
      service = std::shared_ptr<RenderService>(new RenderService(device));
      services[device] = service;
    }
    return service;
  }

  ~RenderService() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  RenderService(const RenderService&) = delete;
  RenderService& operator=(const RenderService&) = delete;

  // Draws `frame` and returns when its pixels are in frame.rgb; the scene and models are read
  // until then. Rethrows what went wrong on the render thread.
  void Draw(const Frame& frame) {
    Request request{frame, false, nullptr};
    std::unique_lock<std::mutex> lock(mutex_);
    queue_.push_back(&request);
    wake_.notify_one();
    done_.wait(lock, [&] { return request.done; });
    if (request.error) std::rethrow_exception(request.error);
  }

 private:
  struct Request {
    Frame frame;
    bool done;
    std::exception_ptr error;
  };

  explicit RenderService(int device) : device_(device), thread_(Start(this)) {}

  // The service's thread, started blocking the asynchronous signals (core/signal_mask.h).
  static std::thread Start(RenderService* service) {
    const NewThreadsBlockSignals blocked;
    return std::thread([service] { service->Run(); });
  }

  void Run() {
    std::vector<Request*> pass;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) break;  // stopping, and nobody waits
        pass.swap(queue_);
      }
      DrawPass(pass);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        for (Request* request : pass) request->done = true;
      }
      done_.notify_all();
      pass.clear();
    }
    // The GL objects go before the context that holds them, on this thread.
    targets_.clear();
    pack_.reset();
    gl_.reset();
  }

  void DrawPass(const std::vector<Request*>& pass) {
    int max_width = 1, max_height = 1;
    size_t bytes = 0;
    for (const Request* r : pass) {
      max_width = std::max(max_width, r->frame.width);
      max_height = std::max(max_height, r->frame.height);
      bytes += static_cast<size_t>(r->frame.width) * r->frame.height * 3;
    }
    try {
      if (gl_ == nullptr) {
        gl_ = std::make_unique<gl::HeadlessContext>(max_width, max_height, device_);
      }
      gl_->Reserve(max_width, max_height);
      if (pack_ == nullptr) pack_ = std::make_unique<PixelPack>();
      pack_->Reserve(bytes);
    } catch (...) {
      for (Request* r : pass) r->error = std::current_exception();
      return;
    }
    ForgetUnusedModels();
    std::vector<size_t>& offsets = offsets_;  // kept between passes: no allocation once grown
    offsets.resize(pass.size());
    size_t offset = 0;
    bool any = false;
    for (size_t i = 0; i < pass.size(); ++i) {
      Request* r = pass[i];
      offsets[i] = offset;
      offset += static_cast<size_t>(r->frame.width) * r->frame.height * 3;
      try {
        DrawOne(r->frame, offsets[i]);
        any = true;
      } catch (...) {
        r->error = std::current_exception();
      }
    }
    if (!any) return;
    try {
      const uint8_t* pixels = pack_->Map(bytes);
      for (size_t i = 0; i < pass.size(); ++i) {
        const Frame& f = pass[i]->frame;
        if (!pass[i]->error) CopyFlipped(pixels + offsets[i], f.width, f.height, f.rgb);
      }
      pack_->Unmap();
    } catch (...) {
      for (Request* r : pass) {
        if (!r->error) r->error = std::current_exception();
      }
    }
  }

  void DrawOne(const Frame& f, size_t offset) {
    ModelTarget& target = TargetFor(*f.context_model);
    target.Prepare(*f.context_model, f.width, f.height);
    mjrContext* context = target.context();
    if (f.upload_hfields) {
      for (int h = 0; h < f.m->nhfield; ++h) mjr_uploadHField(f.m, context, h);
    }
    const mjrRect viewport = {0, 0, f.width, f.height};
    mjr_render(viewport, f.scene, context);
    pack_->Read(*context, viewport, offset);
  }

  ModelTarget& TargetFor(const std::shared_ptr<const mjModel>& model) {
    for (const auto& target : targets_) {
      if (target->model() == model) return *target;
    }
    targets_.push_back(std::make_unique<ModelTarget>());
    return *targets_.back();
  }

  // A model only this service still holds belongs to envs that are gone.
  void ForgetUnusedModels() {
    targets_.erase(std::remove_if(targets_.begin(), targets_.end(),
                                  [](const std::unique_ptr<ModelTarget>& target) {
                                    return target->model() == nullptr ||
                                           target->model().use_count() == 1;
                                  }),
                   targets_.end());
  }

  const int device_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<Request*> queue_;
  bool stop_ = false;
  // The render thread's own (touched only there).
  std::unique_ptr<gl::HeadlessContext> gl_;
  std::unique_ptr<PixelPack> pack_;
  std::vector<std::unique_ptr<ModelTarget>> targets_;
  std::vector<size_t> offsets_;  // each frame's place in the pixel buffer, this pass
  std::thread thread_;           // last: started once the members above exist
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_MUJOCO_RENDER_SERVICE_H_
