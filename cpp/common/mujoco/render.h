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
// Two ways to run that, chosen per process by ENVFLEET_MUJOCO_RENDERER:
//  - "per-thread" (the default): each worker thread owns the GL side (a headless context,
//    gl_context.h; the MjrContext holding the model's meshes, textures and offscreen buffers)
//    and draws and reads back its own frames. Best where rendering is software (llvmpipe,
//    OSMesa): every worker rasterizes on its own core.
//  - "service": the workers build the scenes and one render thread draws them all in one GL
//    context, reading frames back in passes (render_service.h, which says why).
// The pixels are the same bytes either way. Either way each env owns only its camera, and the
// thread's objects are made on the first render on that thread and freed when the thread ends
// (a thread_local owner): the pool's workers end when it closes.
#ifndef ENVFLEET_COMMON_MUJOCO_RENDER_H_
#define ENVFLEET_COMMON_MUJOCO_RENDER_H_

#include <mujoco/mujoco.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/mujoco/gl_context.h"
#include "common/mujoco/render_service.h"
#include "common/mujoco/render_target.h"

namespace envfleet {
namespace mujoco {

enum class RendererKind { kPerThread, kService };

// ENVFLEET_MUJOCO_RENDERER, read once per process.
inline RendererKind ProcessRendererKind() {
  static const RendererKind kind = [] {
    const char* value = std::getenv("ENVFLEET_MUJOCO_RENDERER");
    const std::string name = value != nullptr ? value : "";
    if (name.empty() || name == "per-thread") return RendererKind::kPerThread;
    if (name == "service") return RendererKind::kService;
    throw std::invalid_argument(
        "ENVFLEET_MUJOCO_RENDERER must be 'per-thread' (the default) or 'service', got '" + name +
        "'");
  }();
  return kind;
}

// What one worker thread draws with: the scene for the model it last drew (the envs of one pool
// share one model), and the GL side (per-thread) or a hold on the render service.
class ThreadRenderer {
 public:
  ThreadRenderer() = default;
  ThreadRenderer(const ThreadRenderer&) = delete;
  ThreadRenderer& operator=(const ThreadRenderer&) = delete;
  ~ThreadRenderer() {
    // The MjrContext's GL objects belong to the GL context, current on this thread since it
    // was made: free them first.
    target_.Free();
    gl_.reset();
    FreeScene();
  }

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
    // The EGL device to draw on (the render_device option): an index into EGL's device list,
    // or -1 for MUJOCO_EGL_DEVICE_ID's, else the first that initializes.
    int device = -1;
  };

  // Draws `d` of model `m` through `cam` into rgb: height rows of width RGB pixels, top row
  // first. `context_model` is the shared model the MjrContext is made from (its meshes and
  // textures; kept alive by the pointer, whose address identifies it); `m` may be an env's own
  // copy of it with edited fields (colours, sizes, lights), which the scene reads.
  void Draw(const std::shared_ptr<const mjModel>& context_model, const mjModel* m, mjData* d,
            mjvCamera* cam, const Options& options, int width, int height, uint8_t* rgb) {
    const RendererKind kind = ProcessRendererKind();
    if (kind == RendererKind::kPerThread) {
      if (gl_ != nullptr && options.device != device_) {  // another pool's device
        target_.Free();
        gl_.reset();
      }
      if (gl_ == nullptr) {
        gl_ = std::make_unique<gl::HeadlessContext>(width, height, options.device);
        device_ = options.device;
      }
      gl_->Reserve(width, height);
      target_.Prepare(context_model, width, height);
    }
    UpdateScene(context_model, m, d, cam, options);
    if (kind == RendererKind::kService) {
      if (service_ == nullptr || options.device != device_) {
        service_ = RenderService::Acquire(options.device);
        device_ = options.device;
      }
      service_->Draw({&context_model, m, &scene_, options.upload_hfields, width, height, rgb});
      return;
    }
    mjrContext* context = target_.context();
    if (options.upload_hfields) {
      for (int h = 0; h < m->nhfield; ++h) mjr_uploadHField(m, context, h);
    }
    const mjrRect viewport = {0, 0, width, height};
    mjr_render(viewport, &scene_, context);
    frame_.resize(static_cast<size_t>(width) * height * 3);
    mjr_readPixels(frame_.data(), nullptr, viewport, context);
    CopyFlipped(frame_.data(), width, height, rgb);
  }

 private:
  // mjv_updateScene into the thread's scene (remade for another model or geom budget), with
  // the frame's flags: the thread's envs share the scene and its options.
  void UpdateScene(const std::shared_ptr<const mjModel>& context_model, const mjModel* m, mjData* d,
                   mjvCamera* cam, const Options& options) {
    if (context_model != scene_model_ || options.max_geom != max_geom_) {
      FreeScene();
      mjv_defaultScene(&scene_);
      scene_made_ = true;
      mjv_makeScene(context_model.get(), &scene_, options.max_geom);
      mjv_defaultOption(&option_);
      mjv_defaultPerturb(&perturb_);
      default_shadow_ = scene_.flags[mjRND_SHADOW];
      default_reflection_ = scene_.flags[mjRND_REFLECTION];
      scene_model_ = context_model;
      max_geom_ = options.max_geom;
    }
    option_.flags[mjVIS_RANGEFINDER] = options.rangefinders;
    mjv_updateScene(m, d, &option_, &perturb_, cam, mjCAT_ALL, &scene_);
    scene_.flags[mjRND_SHADOW] = options.fast ? 0 : default_shadow_;
    scene_.flags[mjRND_REFLECTION] = options.fast ? 0 : default_reflection_;
    if (options.edit_scene) options.edit_scene(&scene_);
  }

  void FreeScene() {
    if (scene_made_) mjv_freeScene(&scene_);
    scene_made_ = false;
    scene_model_.reset();
    max_geom_ = 0;
  }

  int device_ = -1;  // the device of gl_ or service_
  // Per-thread drawing.
  std::unique_ptr<gl::HeadlessContext> gl_;
  ModelTarget target_;
  std::vector<uint8_t> frame_;  // a frame as OpenGL reads it, bottom row first
  // The service, held while this thread lives.
  std::shared_ptr<RenderService> service_;
  // The scene, either way.
  std::shared_ptr<const mjModel> scene_model_;
  int max_geom_ = 0;
  mjvScene scene_;
  bool scene_made_ = false;
  mjvOption option_;
  mjvPerturb perturb_;
  mjtByte default_shadow_ = 1, default_reflection_ = 1;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_MUJOCO_RENDER_H_
