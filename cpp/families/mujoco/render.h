// MuJoCo frames as Gymnasium 1.4.0 renders them: a port of the rgb_array path of
// gymnasium/envs/mujoco/mujoco_rendering.py (MujocoRenderer, OffScreenViewer) onto the pool's
// worker threads.
//
// Gymnasium gives each env its own GL context, scene and camera. Here each worker thread owns
// the GL side (a headless context, gl_context.h; the MjrContext holding the model's meshes,
// textures and offscreen buffers; the mjvScene) and each env owns only its camera, the one
// piece of viewer state that differs between envs. The thread's objects are made on the first
// render on that thread and freed when the thread ends (a thread_local owner): the pool's
// workers end when it closes. The calls, per frame, are Gymnasium's:
//
//   mjv_updateScene(model, data, option, perturb, camera, mjCAT_ALL, scene)
//   mjr_render(viewport, scene, context); mjr_readPixels(rgb, viewport, context)
//   flip the rows (OpenGL's first row is the bottom one)
//
// with the scene made as MjvScene(model, 1000), a default mjvOption and mjvPerturb, the
// context as MjrContext(model, mjFONTSCALE_150) on a model whose offscreen size is
// max(the XML's, the frame's) (MujocoEnv._initialize_simulation), bound with
// mjr_setBuffer(mjFB_OFFSCREEN). No markers or overlays: Gymnasium's tasks add none.
#ifndef ENVFLEET_FAMILIES_MUJOCO_RENDER_H_
#define ENVFLEET_FAMILIES_MUJOCO_RENDER_H_

#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "families/mujoco/gl_context.h"

namespace envfleet {
namespace mujoco {

// The entries of a Gymnasium env's default_camera_config (the keys it sets; the others keep
// the viewer's initial values). trackbodyid is set as Gymnasium sets it although a free camera
// ignores it.
struct CameraConfig {
  std::optional<double> distance, elevation, azimuth;
  std::optional<std::array<double, 3>> lookat;
  std::optional<int> trackbodyid;
};

// np.median of n values: the middle one, or the mean of the two middle ones; NaN if any is.
inline double NpMedian(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  for (double x : v) {
    if (std::isnan(x)) return x;
  }
  const size_t half = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + half, v.end());
  if (v.size() % 2 == 1) return v[half];
  const double upper = v[half];
  const double lower = *std::max_element(v.begin(), v.begin() + half);
  return (lower + upper) / 2;
}

// The camera of an env's free view, as OffScreenViewer._init_camera and then
// MujocoRenderer._set_cam_config leave it when the viewer is made, i.e. on the env's first
// render: looking at the median of the geom positions of that moment, from the model's extent,
// then the task's default_camera_config on top.
inline mjvCamera InitialCamera(const mjModel* m, const mjData* d, const CameraConfig& config) {
  mjvCamera cam;
  mjv_defaultCamera(&cam);
  cam.type = mjCAMERA_FREE;
  cam.fixedcamid = -1;
  std::vector<double> column(m->ngeom);
  for (int axis = 0; axis < 3; ++axis) {
    for (int g = 0; g < m->ngeom; ++g) column[g] = d->geom_xpos[3 * g + axis];
    cam.lookat[axis] = NpMedian(column);
  }
  cam.distance = m->stat.extent;
  if (config.trackbodyid) cam.trackbodyid = *config.trackbodyid;
  if (config.distance) cam.distance = *config.distance;
  if (config.lookat) {
    for (int i = 0; i < 3; ++i) cam.lookat[i] = (*config.lookat)[i];
  }
  if (config.elevation) cam.elevation = *config.elevation;
  if (config.azimuth) cam.azimuth = *config.azimuth;
  return cam;
}

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

  // Draws `d` (of model `m`, kept alive by `model`) through `cam` into rgb: height rows of
  // width RGB pixels, top row first. `fast`: shadows and reflections off.
  void Draw(const std::shared_ptr<const mjModel>& model, mjData* d, mjvCamera* cam, bool fast,
            int width, int height, uint8_t* rgb) {
    Prepare(model, width, height);
    const mjModel* m = model.get();
    mjv_updateScene(m, d, &option_, &perturb_, cam, mjCAT_ALL, &scene_);
    // The scene is shared by the thread's envs, so its flags are set on every frame.
    scene_.flags[mjRND_SHADOW] = fast ? 0 : default_shadow_;
    scene_.flags[mjRND_REFLECTION] = fast ? 0 : default_reflection_;
    const mjrRect viewport = {0, 0, width, height};
    mjr_render(viewport, &scene_, &context_);
    mjr_readPixels(rgb, nullptr, viewport, &context_);
    FlipRows(rgb, width, height);
  }

 private:
  void Prepare(const std::shared_ptr<const mjModel>& model, int width, int height) {
    if (gl_ == nullptr) gl_ = std::make_unique<gl::HeadlessContext>(width, height);
    gl_->Reserve(width, height);
    const mjModel* m = model.get();
    // Gymnasium's offscreen size: the XML's, grown to the frame (never shrunk).
    const int off_width = std::max(m->vis.global.offwidth, width);
    const int off_height = std::max(m->vis.global.offheight, height);
    if (model == model_ && off_width <= off_width_ && off_height <= off_height_) return;
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
      mjv_makeScene(m, &scene_, kMaxGeom);
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

  static constexpr int kMaxGeom = 1000;  // MujocoRenderer's max_geom

  std::unique_ptr<gl::HeadlessContext> gl_;
  std::shared_ptr<const mjModel> model_;  // the model context_ holds (kept alive: its address
                                          // identifies it)
  int off_width_ = 0, off_height_ = 0;
  mjrContext context_;
  mjvScene scene_;
  bool context_made_ = false, scene_made_ = false;
  mjvOption option_;
  mjvPerturb perturb_;
  mjtByte default_shadow_ = 1, default_reflection_ = 1;
};

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MUJOCO_RENDER_H_
