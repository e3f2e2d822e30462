// MuJoCo frames drawn on the pool's worker threads, for the families that run libmujoco: the
// rgb_array path of Gymnasium 1.4.0's MujocoRenderer (gymnasium/envs/mujoco/mujoco_rendering.py)
// and of dm_control 1.0.50's Physics.render (dm_control/mujoco/engine.py: Camera) are the same
// calls, per frame:
//
//   mjv_updateScene(model, data, option, perturb, camera, mjCAT_ALL, scene)
//   mjr_render(viewport, scene, context); mjr_readPixels(rgb, viewport, context)
//   flip the rows (OpenGL's first row is the bottom one)
//
// with a default mjvOption (dm_control's hides rangefinder rays) and mjvPerturb, the context made
// as MjrContext(model, mjFONTSCALE_150) and bound with mjr_setBuffer(mjFB_OFFSCREEN), on a model
// whose offscreen size is max(the XML's, the frame's) (Gymnasium grows it to the frame; dm_control
// refuses bigger frames, so within its sizes the buffer is its own). No markers or overlays. What
// differs between the two is the caller's: the camera (each family sets up its own), the
// scene's geom budget (Gymnasium: 1000; dm_control: max(1000, an estimate from the model)) and
// whether height fields are re-uploaded (a dm_control task that rewrites its terrain per
// episode uploads it, as quadruped's Escape does).
//
// Each worker thread owns the GL side (a headless context, gl_context.h; the MjrContext
// holding the model's meshes, textures and offscreen buffers; the mjvScene) and each env owns
// only its camera. The thread's objects are made on the first render on that thread and freed
// when the thread ends (a thread_local owner): the pool's workers end when it closes.
#ifndef ENVFLEET_COMMON_MUJOCO_RENDER_H_
#define ENVFLEET_COMMON_MUJOCO_RENDER_H_

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/mujoco/gl_context.h"

namespace envfleet {
namespace mujoco {

// What one worker thread draws with: its GL context, and the MjrContext and scene for the
// model it last drew (the envs of one pool share one model), rebuilt for another model or a
// frame bigger than its offscreen buffer.
class ThreadRenderer {
 public:
  ThreadRenderer() = default;
  ThreadRenderer(const ThreadRenderer&) = delete;
  ThreadRenderer& operator=(const ThreadRenderer&) = delete;
  ~ThreadRenderer() { Free(); }

  // This thread's renderer (made on first use, freed when the thread ends).
  static ThreadRenderer& OfThisThread() {
    thread_local ThreadRenderer renderer;
    return renderer;
  }

  // How a frame is drawn, besides the camera.
  struct Options {
    bool fast = false;    // shadows and reflections off
    int max_geom = 1000;  // the scene's geom budget (MjvScene's max_geom)
    // Draw rangefinder rays (mjVIS_RANGEFINDER: on in a default mjvOption, as Gymnasium leaves
    // it; dm_control's MjvOption turns it off).
    bool rangefinders = true;
    // Upload every height field of the scene model before drawing: for envs whose terrain
    // differs from the one the context was made with (mjr_uploadHField).
    bool upload_hfields = false;
    // Called on the scene after mjv_updateScene, before drawing: for envs that show something
    // the shared model cannot hold per env (Gymnasium-Robotics moves its goal markers by
    // editing the model before each frame; its envs move the markers' geoms here instead).
    std::function<void(mjvScene*)> edit_scene;
  };

  // Draws `d` of model `m` through `cam` into rgb: height rows of width RGB pixels, top row
  // first. `context_model` is the shared model the thread's MjrContext is made from (its
  // meshes and textures; kept alive by the pointer, whose address identifies it); `m` may be an
  // env's own copy of it with edited fields (colours, sizes, lights), which the scene reads.
  void Draw(const std::shared_ptr<const mjModel>& context_model, const mjModel* m, mjData* d,
            mjvCamera* cam, const Options& options, int width, int height, uint8_t* rgb) {
    Prepare(context_model, options.max_geom, width, height);
    option_.flags[mjVIS_RANGEFINDER] = options.rangefinders;  // the thread's envs share option_
    mjv_updateScene(m, d, &option_, &perturb_, cam, mjCAT_ALL, &scene_);
    // The scene is shared by the thread's envs, so its flags are set on every frame.
    scene_.flags[mjRND_SHADOW] = options.fast ? 0 : default_shadow_;
    scene_.flags[mjRND_REFLECTION] = options.fast ? 0 : default_reflection_;
    if (options.edit_scene) options.edit_scene(&scene_);
    if (options.upload_hfields) {
      for (int h = 0; h < m->nhfield; ++h) mjr_uploadHField(m, &context_, h);
    }
    const mjrRect viewport = {0, 0, width, height};
    mjr_render(viewport, &scene_, &context_);
    mjr_readPixels(rgb, nullptr, viewport, &context_);
    FlipRows(rgb, width, height);
  }

 private:
  void Prepare(const std::shared_ptr<const mjModel>& model, int max_geom, int width, int height) {
    if (gl_ == nullptr) gl_ = std::make_unique<gl::HeadlessContext>(width, height);
    gl_->Reserve(width, height);
    const mjModel* m = model.get();
    // Gymnasium's offscreen size: the XML's, grown to the frame (never shrunk).
    const int off_width = std::max(m->vis.global.offwidth, width);
    const int off_height = std::max(m->vis.global.offheight, height);
    if (model == model_ && max_geom == max_geom_ && off_width <= off_width_ &&
        off_height <= off_height_) {
      return;
    }
    // Another model, or a bigger frame than the buffer holds: grow the buffer to cover both
    // this frame and the frames drawn before (for the same model).
    const bool same_model = model == model_;
    const int want_width = same_model ? std::max(off_width, off_width_) : off_width;
    const int want_height = same_model ? std::max(off_height, off_height_) : off_height;
    FreeMujoco();
    // mjr_makeContext reads the offscreen size from the model; the shared model is read-only,
    // so a copy carries the size.
    mjModel* sized = mj_copyModel(nullptr, m);
    if (sized == nullptr) throw std::runtime_error("MuJoCo could not copy the model");
    sized->vis.global.offwidth = want_width;
    sized->vis.global.offheight = want_height;
    try {
      mjv_defaultScene(&scene_);
      scene_made_ = true;
      mjv_makeScene(m, &scene_, max_geom);
      mjr_defaultContext(&context_);
      context_made_ = true;
      mjr_makeContext(sized, &context_, mjFONTSCALE_150);
      mjr_setBuffer(mjFB_OFFSCREEN, &context_);
    } catch (...) {
      mj_deleteModel(sized);
      FreeMujoco();
      throw;
    }
    mj_deleteModel(sized);
    if (context_.currentBuffer != mjFB_OFFSCREEN) {
      FreeMujoco();
      throw std::runtime_error("MuJoCo could not bind its offscreen framebuffer");
    }
    mjv_defaultOption(&option_);
    mjv_defaultPerturb(&perturb_);
    default_shadow_ = scene_.flags[mjRND_SHADOW];
    default_reflection_ = scene_.flags[mjRND_REFLECTION];
    model_ = model;
    off_width_ = want_width;
    off_height_ = want_height;
    max_geom_ = max_geom;
  }

  static void FlipRows(uint8_t* rgb, int width, int height) {
    const size_t row = static_cast<size_t>(width) * 3;
    std::vector<uint8_t> tmp(row);
    for (int top = 0, bottom = height - 1; top < bottom; ++top, --bottom) {
      uint8_t* a = rgb + top * row;
      uint8_t* b = rgb + bottom * row;
      std::memcpy(tmp.data(), a, row);
      std::memcpy(a, b, row);
      std::memcpy(b, tmp.data(), row);
    }
  }

  void FreeMujoco() {
    if (context_made_) mjr_freeContext(&context_);
    if (scene_made_) mjv_freeScene(&scene_);
    context_made_ = scene_made_ = false;
    model_.reset();
    off_width_ = off_height_ = 0;
  }

  void Free() {
    // The MjrContext's GL objects belong to the GL context, current on this thread since it
    // was made: free them first.
    FreeMujoco();
    gl_.reset();
  }

  std::unique_ptr<gl::HeadlessContext> gl_;
  std::shared_ptr<const mjModel> model_;  // the model context_ holds (kept alive: its address
                                          // identifies it)
  int off_width_ = 0, off_height_ = 0, max_geom_ = 0;
  mjrContext context_;
  mjvScene scene_;
  bool context_made_ = false, scene_made_ = false;
  mjvOption option_;
  mjvPerturb perturb_;
  mjtByte default_shadow_ = 1, default_reflection_ = 1;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_MUJOCO_RENDER_H_
