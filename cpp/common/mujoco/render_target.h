// The GL side of MuJoCo frames, shared by the two ways envfleet draws them (render.h): the
// MjrContext of one model in the GL context current on this thread, and reading a drawn frame
// back, either at once (mjr_readPixels, what Gymnasium and dm_control do) or into a pixel
// buffer object that is mapped once for many frames (PixelPack, the render service's).
#ifndef ENVFLEET_COMMON_MUJOCO_RENDER_TARGET_H_
#define ENVFLEET_COMMON_MUJOCO_RENDER_TARGET_H_

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/mujoco/gl_context.h"

namespace envfleet {
namespace mujoco {

// One model's MjrContext (meshes, textures, offscreen buffers) in the current GL context, with
// Gymnasium's offscreen size: the XML's, grown to the largest frame drawn (never shrunk; the
// size does not change the pixels of a frame drawn at the buffer's origin).
class ModelTarget {
 public:
  ModelTarget() = default;
  ModelTarget(const ModelTarget&) = delete;
  ModelTarget& operator=(const ModelTarget&) = delete;
  ~ModelTarget() { Free(); }  // on the thread whose GL context made it

  // Makes the context for `model`, or remakes it for another model or a frame bigger than its
  // buffer. `model` is kept alive while the context exists: its address identifies it.
  void Prepare(const std::shared_ptr<const mjModel>& model, int width, int height) {
    const mjModel* m = model.get();
    const int off_width = std::max(m->vis.global.offwidth, width);
    const int off_height = std::max(m->vis.global.offheight, height);
    if (model == model_ && off_width <= off_width_ && off_height <= off_height_) return;
    // Grow to cover both this frame and the frames drawn before (for the same model).
    const bool same_model = model == model_;
    const int want_width = same_model ? std::max(off_width, off_width_) : off_width;
    const int want_height = same_model ? std::max(off_height, off_height_) : off_height;
    Free();
    // mjr_makeContext reads the offscreen size from the model; the shared model is read-only,
    // so a copy carries the size.
    mjModel* sized = mj_copyModel(nullptr, m);
    if (sized == nullptr) throw std::runtime_error("MuJoCo could not copy the model");
    sized->vis.global.offwidth = want_width;
    sized->vis.global.offheight = want_height;
    try {
      mjr_defaultContext(&context_);
      made_ = true;
      mjr_makeContext(sized, &context_, mjFONTSCALE_150);
      mjr_setBuffer(mjFB_OFFSCREEN, &context_);
    } catch (...) {
      mj_deleteModel(sized);
      Free();
      throw;
    }
    mj_deleteModel(sized);
    if (context_.currentBuffer != mjFB_OFFSCREEN) {
      Free();
      throw std::runtime_error("MuJoCo could not bind its offscreen framebuffer");
    }
    model_ = model;
    off_width_ = want_width;
    off_height_ = want_height;
  }

  mjrContext* context() { return &context_; }
  const std::shared_ptr<const mjModel>& model() const { return model_; }

  void Free() {
    if (made_) mjr_freeContext(&context_);
    made_ = false;
    model_.reset();
    off_width_ = off_height_ = 0;
  }

 private:
  mjrContext context_;
  bool made_ = false;
  std::shared_ptr<const mjModel> model_;
  int off_width_ = 0, off_height_ = 0;
};

// Copies a frame read from OpenGL (bottom row first) into `rgb` top row first.
inline void CopyFlipped(const uint8_t* gl_rows, int width, int height, uint8_t* rgb) {
  const size_t row = static_cast<size_t>(width) * 3;
  for (int r = 0; r < height; ++r) {
    std::memcpy(rgb + static_cast<size_t>(r) * row, gl_rows + (height - 1 - r) * row, row);
  }
}

// Frames read back into one pixel buffer object: each Read queues the copy of a frame
// (mjr_readPixels's resolve-blit and glReadPixels, to an offset of the buffer instead of client
// memory, so the bytes are the same) without waiting for the GPU; Map waits once for all of
// them. Drawing the next frame into the same offscreen buffer is safe: OpenGL runs a context's
// commands in order. Made and used on the thread whose GL context is current.
class PixelPack {
 public:
  PixelPack() = default;
  PixelPack(const PixelPack&) = delete;
  PixelPack& operator=(const PixelPack&) = delete;
  ~PixelPack() {
    if (buffer_ != 0) gl_.DeleteBuffers(1, &buffer_);
  }

  // Makes room for `bytes` of frames (the buffer's previous contents are dropped).
  void Reserve(size_t bytes) {
    if (!loaded_) Load();
    if (buffer_ == 0) gl_.GenBuffers(1, &buffer_);
    if (bytes <= capacity_) return;
    capacity_ = std::max(bytes, capacity_ * 2);
    gl_.BindBuffer(kPixelPackBuffer, buffer_);
    gl_.BufferData(kPixelPackBuffer, static_cast<std::ptrdiff_t>(capacity_), nullptr, kStreamRead);
    gl_.BindBuffer(kPixelPackBuffer, 0);
  }

  // Queues the copy of `viewport` of the context's offscreen buffer to `offset` (width * height
  // * 3 bytes, bottom row first, as mjr_readPixels writes them).
  void Read(const mjrContext& con, const mjrRect& viewport, size_t offset) {
    const int l = viewport.left, b = viewport.bottom, w = viewport.width, h = viewport.height;
    if (con.offSamples) {  // multisampled: resolve into offFBO_r first, as mjr_readPixels does
      gl_.BindFramebuffer(kReadFramebuffer, con.offFBO);
      gl_.ReadBuffer(kColorAttachment0);
      gl_.BindFramebuffer(kDrawFramebuffer, con.offFBO_r);
      gl_.DrawBuffer(kColorAttachment0);
      gl_.BlitFramebuffer(l, b, l + w, b + h, l, b, l + w, b + h, kColorBufferBit, kNearest);
      gl_.BindFramebuffer(kReadFramebuffer, con.offFBO_r);
    } else {
      gl_.BindFramebuffer(kReadFramebuffer, con.offFBO);
    }
    gl_.ReadBuffer(kColorAttachment0);
    gl_.BindBuffer(kPixelPackBuffer, buffer_);
    gl_.ReadPixels(l, b, w, h, static_cast<unsigned>(con.readPixelFormat), kUnsignedByte,
                   reinterpret_cast<void*>(offset));
    gl_.BindBuffer(kPixelPackBuffer, 0);
    mjr_restoreBuffer(&con);
  }

  // Waits for every queued copy and returns the buffer's bytes, valid until Unmap.
  const uint8_t* Map(size_t bytes) {
    gl_.BindBuffer(kPixelPackBuffer, buffer_);
    void* pixels =
        gl_.MapBufferRange(kPixelPackBuffer, 0, static_cast<std::ptrdiff_t>(bytes), kMapReadBit);
    if (pixels == nullptr) {
      gl_.BindBuffer(kPixelPackBuffer, 0);
      throw std::runtime_error("OpenGL could not map the frames' pixel buffer");
    }
    return static_cast<const uint8_t*>(pixels);
  }

  void Unmap() {
    gl_.UnmapBuffer(kPixelPackBuffer);
    gl_.BindBuffer(kPixelPackBuffer, 0);
  }

 private:
  // OpenGL 3.0's names and values (glcorearb.h), so that no GL headers are needed to build.
  static constexpr unsigned kPixelPackBuffer = 0x88EB, kStreamRead = 0x88E1, kMapReadBit = 0x1;
  static constexpr unsigned kReadFramebuffer = 0x8CA8, kDrawFramebuffer = 0x8CA9;
  static constexpr unsigned kColorAttachment0 = 0x8CE0, kColorBufferBit = 0x4000;
  static constexpr unsigned kNearest = 0x2600, kUnsignedByte = 0x1401;

  struct Api {
    void (*GenBuffers)(int, unsigned*);
    void (*DeleteBuffers)(int, const unsigned*);
    void (*BindBuffer)(unsigned, unsigned);
    void (*BufferData)(unsigned, std::ptrdiff_t, const void*, unsigned);
    void* (*MapBufferRange)(unsigned, std::ptrdiff_t, std::ptrdiff_t, unsigned);
    unsigned char (*UnmapBuffer)(unsigned);
    void (*BindFramebuffer)(unsigned, unsigned);
    void (*ReadBuffer)(unsigned);
    void (*DrawBuffer)(unsigned);
    void (*BlitFramebuffer)(int, int, int, int, int, int, int, int, unsigned, unsigned);
    void (*ReadPixels)(int, int, int, int, unsigned, unsigned, void*);
  };

  template <typename F>
  static void Find(const char* name, F* fn) {
    *fn = reinterpret_cast<F>(gl::GlProc(name));
    if (*fn == nullptr) {
      throw std::runtime_error(std::string("the OpenGL context lacks ") + name +
                               " (OpenGL 3.0), which batched read-back needs");
    }
  }

  void Load() {
    Find("glGenBuffers", &gl_.GenBuffers);
    Find("glDeleteBuffers", &gl_.DeleteBuffers);
    Find("glBindBuffer", &gl_.BindBuffer);
    Find("glBufferData", &gl_.BufferData);
    Find("glMapBufferRange", &gl_.MapBufferRange);
    Find("glUnmapBuffer", &gl_.UnmapBuffer);
    Find("glBindFramebuffer", &gl_.BindFramebuffer);
    Find("glReadBuffer", &gl_.ReadBuffer);
    Find("glDrawBuffer", &gl_.DrawBuffer);
    Find("glBlitFramebuffer", &gl_.BlitFramebuffer);
    Find("glReadPixels", &gl_.ReadPixels);
    loaded_ = true;
  }

  Api gl_{};
  bool loaded_ = false;
  unsigned buffer_ = 0;
  size_t capacity_ = 0;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_MUJOCO_RENDER_TARGET_H_
