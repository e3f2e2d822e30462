// Pendulum-v1, a port of Gymnasium 1.4.0's gymnasium/envs/classic_control/pendulum.py
// (PendulumEnv), and Pendulum-v0 (option version=0), the integration order before gym PR #2423
// (gym <= 0.20, and EnvPool's Pendulum-v0): the angle moves by the new angular velocity before
// that is clipped to max_speed, where v1 moves it by the clipped one. Nothing else differs.
//
// The state is a float64 array as there; the action arrives as float32 and np.clip keeps it
// float32, so the terms that involve it are computed in float32 exactly as NumPy 2 does
// (`3.0 * u` and `0.001 * (u**2)` are float32 products) before joining the float64 sums.
// `x ** 2` on NumPy scalars calls libm pow/powf (see cpp/common/numpy/math.h).
//
// Render() draws PendulumEnv.render()'s rgb_array frame. Its torque arrow is Gymnasium's own
// sprite, clockwise.png in the installed gymnasium's envs/classic_control/assets, whose path
// the option `assets_dir` gives (src/envfleet/families/classic_control.py sets it, as toy text
// and MuJoCo do theirs): the asset is never copied into envfleet. It is decoded once per process
// (cpp/common/image), on the first frame that needs it.
#ifndef ENVFLEET_FAMILIES_CLASSIC_CONTROL_PENDULUM_H_
#define ENVFLEET_FAMILIES_CLASSIC_CONTROL_PENDULUM_H_

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/files.h"
#include "common/image/sprite_cache.h"
#include "common/image/surface.h"
#include "common/numpy/math.h"
#include "common/render2d/canvas.h"
#include "common/render2d/geometry.h"
#include "common/render2d/gfxdraw.h"
#include "common/render2d/smoothscale.h"
#include "core/env.h"
#include "core/spec.h"

namespace envfleet::classic_control {

class PendulumEnv : public Env {
 public:
  // assets_dir: the installed gymnasium's envs/classic_control/assets, where render() finds
  // its arrow ("": a frame that needs the arrow fails, naming the option).
  // version: 1 (Pendulum-v1) or 0 (Pendulum-v0's integration order).
  static Config DefaultConfig() {
    return {{"g", 10.0}, {"version", int64_t{1}}, {"assets_dir", std::string()}};
  }

  static EnvSpec Spec(const Config& config) {
    CheckedVersion(config);
    files::CheckFolderIfGiven("assets_dir", config.Get<std::string>("assets_dir"));
    // high = np.array([1.0, 1.0, self.max_speed], dtype=np.float32)
    const double speed = static_cast<float>(kMaxSpeed);
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kFloat32, {3}, {-1.0, -1.0, -speed}, {1.0, 1.0, speed})};
    spec.action = Box("action", DType::kFloat32, {1}, {-kMaxTorque}, {kMaxTorque});
    spec.render = {kScreenDim, kScreenDim, /*resizable=*/false, /*fps=*/30, /*num_cameras=*/0};
    return spec;
  }

  PendulumEnv(const Config& config, uint64_t seed)
      : Env(seed),
        g_(config.Get<double>("g")),
        clip_before_move_(CheckedVersion(config) == 1),
        assets_dir_(config.Get<std::string>("assets_dir")) {}

  void Reset() override {
    has_last_u_ = false;  // self.last_u = None
    // high = np.array([DEFAULT_X, DEFAULT_Y]); np_random.uniform(low=-high, high=high)
    th_ = rng().Uniform(-M_PI, M_PI);
    thdot_ = rng().Uniform(-1.0, 1.0);
  }

  void Step(const void* action) override {
    using numpy_math::NpPow;
    using numpy_math::NpPowF;
    const double th = th_, thdot = thdot_;

    // u = np.clip(u, -self.max_torque, self.max_torque)[0]: float32 in, float32 out.
    const float max_torque = static_cast<float>(kMaxTorque);
    float u = *static_cast<const float*>(action);
    u = u < -max_torque ? -max_torque : u;
    u = u > max_torque ? max_torque : u;

    // costs = angle_normalize(th) ** 2 + 0.1 * thdot**2 + 0.001 * (u**2)
    const float u_cost = static_cast<float>(0.001) * NpPowF(u, 2.0f);
    const double costs =
        NpPow(AngleNormalize(th), 2.0) + 0.1 * NpPow(thdot, 2.0) + static_cast<double>(u_cost);

    // newthdot = thdot + (3 * g / (2 * l) * np.sin(th) + 3.0 / (m * l**2) * u) * dt
    const float u_term = static_cast<float>(3.0 / (kM * (kL * kL))) * u;
    double newthdot =
        thdot + (3 * g_ / (2 * kL) * std::sin(th) + static_cast<double>(u_term)) * kDt;
    // v1: newthdot = np.clip(newthdot, -self.max_speed, self.max_speed), then
    // newth = th + newthdot * dt; v0: newth first, then the clip.
    double newth = 0.0;
    if (!clip_before_move_) newth = th + newthdot * kDt;
    newthdot = std::fmin(std::fmax(newthdot, -kMaxSpeed), kMaxSpeed);
    if (clip_before_move_) newth = th + newthdot * kDt;

    th_ = newth;
    thdot_ = newthdot;
    reward_ = -costs;
    last_u_ = u;  // self.last_u = u (the clipped np.float32)
    has_last_u_ = true;
  }

  void Write(const OutputSlot& out) const override {
    // np.array([np.cos(theta), np.sin(theta), thetadot], dtype=np.float32)
    float* obs = out.Get<float>(0);
    obs[0] = static_cast<float>(std::cos(th_));
    obs[1] = static_cast<float>(std::sin(th_));
    obs[2] = static_cast<float>(thdot_);
  }

  // PendulumEnv.render(), in its order and float64 arithmetic, except the arrow's size:
  // scale * np.abs(self.last_u) / 2 is float32 (NEP 50), then float() and int(). Drawn on the
  // frame as it is and flipped at the end, as there (the arrow is blitted in between).
  void Render(int, int width, int height, uint8_t* rgb) override {
    namespace gfx = render2d::gfx;
    using render2d::GfxInt;
    using render2d::Vec2;
    const render2d::Canvas canvas(rgb, width, height);
    canvas.Fill({255, 255, 255});
    const double bound = 2.2;
    const double scale = kScreenDim / (bound * 2);
    const int offset = kScreenDim / 2;
    const double rod_length = 1 * scale;
    const double rod_width = 0.2 * scale;
    const double l = 0, r = rod_length, t = rod_width / 2, b = -rod_width / 2;
    const double angle = th_ + M_PI / 2;
    const Vec2 rod[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
    int16_t xs[4], ys[4];
    for (int i = 0; i < 4; ++i) {
      const Vec2 c = render2d::RotateRad(rod[i], angle);
      xs[i] = GfxInt(c.x + offset);
      ys[i] = GfxInt(c.y + offset);
    }
    gfx::AaPolygon(canvas, xs, ys, 4, kRodColor);
    gfx::FilledPolygon(canvas, xs, ys, 4, kRodColor);
    const int16_t o = static_cast<int16_t>(offset);
    const int16_t rod_r = GfxInt(rod_width / 2);
    gfx::AaCircle(canvas, o, o, rod_r, kRodColor);
    gfx::FilledCircle(canvas, o, o, rod_r, kRodColor);
    const Vec2 end = render2d::RotateRad({rod_length, 0}, angle);
    const int16_t end_x = GfxInt(end.x + offset), end_y = GfxInt(end.y + offset);
    gfx::AaCircle(canvas, end_x, end_y, rod_r, kRodColor);
    gfx::FilledCircle(canvas, end_x, end_y, rod_r, kRodColor);

    if (has_last_u_) {
      const float half = static_cast<float>(scale) * std::fabs(last_u_) / 2;
      const int size = static_cast<int>(render2d::PyInt(static_cast<double>(half)));
      const bool flip_x = last_u_ > 0;  // bool(self.last_u > 0)
      if (size != arrow_size_ || flip_x != arrow_flip_x_) {
        arrow_ = image::Flip(render2d::SmoothScale(*Arrow(), size, size), flip_x, true);
        arrow_size_ = size;
        arrow_flip_x_ = flip_x;
      }
      // blit at (offset - rect.centerx, offset - rect.centery), centerx = w >> 1
      image::Blit({rgb, width, height}, arrow_, offset - (arrow_.width >> 1),
                  offset - (arrow_.height >> 1));
    }

    const int16_t axle_r = GfxInt(0.05 * scale);
    gfx::AaCircle(canvas, o, o, axle_r, {0, 0, 0});
    gfx::FilledCircle(canvas, o, o, axle_r, {0, 0, 0});
    render2d::FlipVertical(rgb, width, height);
  }

 private:
  static int64_t CheckedVersion(const Config& config) {
    const int64_t version = config.Get<int64_t>("version");
    if (version != 0 && version != 1) {
      throw std::invalid_argument(
          "Pendulum: version must be 0 (Pendulum-v0) or 1 (Pendulum-v1), got " +
          std::to_string(version));
    }
    return version;
  }

  // ((x + np.pi) % (2 * np.pi)) - np.pi
  static double AngleNormalize(double x) {
    return numpy_math::NpRemainder(x + M_PI, 2 * M_PI) - M_PI;
  }

  static constexpr double kMaxSpeed = 8;
  static constexpr double kMaxTorque = 2.0;
  static constexpr double kDt = 0.05;
  static constexpr double kM = 1.0;
  static constexpr double kL = 1.0;
  static constexpr int kScreenDim = 500;
  static constexpr render2d::Color kRodColor = {204, 77, 77};

  // Gymnasium's arrow sprite, decoded once per process (image::LoadSprite is thread-safe:
  // Render runs on the pool's worker threads).
  const image::Sprite& Arrow() {
    if (!arrow_source_) {
      if (assets_dir_.empty()) {
        throw std::runtime_error(
            "assets_dir is empty: Pendulum's frames draw clockwise.png from the installed "
            "gymnasium's envs/classic_control/assets; pass assets_dir= that directory (the ids "
            "envfleet registers set it)");
      }
      arrow_source_ = image::LoadSprite(assets_dir_ + "/clockwise.png");
    }
    return arrow_source_;
  }

  double g_;
  bool clip_before_move_;  // version 1
  std::string assets_dir_;
  double th_ = 0.0;
  double thdot_ = 0.0;
  float last_u_ = 0.0f;
  bool has_last_u_ = false;
  // What Render keeps between frames: the source sprite and its last scaled, flipped copy.
  image::Sprite arrow_source_;
  image::Image arrow_;
  int arrow_size_ = -1;
  bool arrow_flip_x_ = false;
};

}  // namespace envfleet::classic_control

#endif  // ENVFLEET_FAMILIES_CLASSIC_CONTROL_PENDULUM_H_
