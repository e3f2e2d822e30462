// The free camera of Gymnasium 1.4.0's MuJoCo viewer (gymnasium/envs/mujoco/mujoco_rendering.py:
// OffScreenViewer._init_camera and MujocoRenderer._set_cam_config), which every task's frames
// with camera_id -1 are seen through (the MuJoCo and Gymnasium-Robotics families, whose envs
// take default_camera_config dicts the same way); cpp/common/mujoco/render.h draws them.
#ifndef ENVFLEET_COMMON_MUJOCO_CAMERA_H_
#define ENVFLEET_COMMON_MUJOCO_CAMERA_H_

#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

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

}  // namespace mujoco
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_MUJOCO_CAMERA_H_
