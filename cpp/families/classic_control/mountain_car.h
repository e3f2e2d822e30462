// MountainCar-v0, a port of Gymnasium 1.4.0's
// gymnasium/envs/classic_control/mountain_car.py (MountainCarEnv). The state stays float64 as
// there (np.float64 scalars and Python floats); the observation is the state cast to float32.
// MountainCarTrack holds what MountainCarContinuous-v0 (continuous_mountain_car.h) shares,
// the drawing of MountainCarEnv.render()'s rgb_array frame included.
#ifndef ENVFLEET_FAMILIES_CLASSIC_CONTROL_MOUNTAIN_CAR_H_
#define ENVFLEET_FAMILIES_CLASSIC_CONTROL_MOUNTAIN_CAR_H_

#include <cmath>
#include <cstdint>

#include "common/numpy/math.h"
#include "common/render2d/canvas.h"
#include "common/render2d/draw.h"
#include "common/render2d/geometry.h"
#include "common/render2d/gfxdraw.h"
#include "core/env.h"
#include "core/spec.h"

namespace envfleet::classic_control {

// What MountainCar and MountainCarContinuous share: the track's bounds, the goal_velocity
// option, the reset and the observation (the state cast to float32).
class MountainCarTrack : public Env {
 public:
  static Config DefaultConfig() { return {{"goal_velocity", 0.0}}; }

  void Reset() override {
    // np.array([np_random.uniform(low=-0.6, high=-0.4), 0])
    position_ = rng().Uniform(-0.6, -0.4);
    velocity_ = 0.0;
  }

  void Write(const OutputSlot& out) const override {
    float* obs = out.Get<float>(0);
    obs[0] = static_cast<float>(position_);
    obs[1] = static_cast<float>(velocity_);
  }

 protected:
  MountainCarTrack(const Config& config, uint64_t seed)
      : Env(seed), goal_velocity_(config.Get<double>("goal_velocity")) {}

  // low/high = np.array([min_position, -max_speed] / [max_position, max_speed], np.float32)
  static ArraySpec ObsSpec() {
    const double pos_low = static_cast<float>(kMinPosition);
    const double pos_high = static_cast<float>(kMaxPosition);
    const double speed = static_cast<float>(kMaxSpeed);
    return Box("obs", DType::kFloat32, {2}, {pos_low, -speed}, {pos_high, speed});
  }

  static RenderSpec ScreenSpec() {
    return {kScreenWidth, kScreenHeight, /*resizable=*/false, /*fps=*/30, /*num_cameras=*/0};
  }

  // MountainCarEnv.render() (and Continuous_MountainCarEnv.render(), the same code with another
  // goal position), in its order. T is the kind of the state's position: np.float64 (both envs
  // after a reset, MountainCar always), or np.float32 (MountainCarContinuous after a step);
  // NumPy 2 then computes every term that involves the position in float32, rounding the
  // Python floats it meets to float32 first (NEP 50), and np.sin is NumPy's float32 sin.
  template <typename T>
  void DrawScene(int width, int height, uint8_t* rgb, double goal_position) const {
    namespace gfx = render2d::gfx;
    using render2d::GfxInt;
    using render2d::Vec2;
    const render2d::Canvas canvas(rgb, width, height, /*flip_y=*/true);
    canvas.Fill({255, 255, 255});
    const double world_width = kMaxPosition - kMinPosition;
    const double scale = kScreenWidth / world_width;
    const double carwidth = 40, carheight = 20;

    // xs = np.linspace(min_position, max_position, 100): arange(100) * step + start, the last
    // point set to stop; ys = np.sin(3 * xs) * 0.45 + 0.55 (float64 libm sin); the points go
    // to pygame.draw.aalines as single-precision floats.
    constexpr int kTrackPoints = 100;
    float track_x[kTrackPoints], track_y[kTrackPoints];
    const double step = (kMaxPosition - kMinPosition) / (kTrackPoints - 1);
    for (int i = 0; i < kTrackPoints; ++i) {
      const double x = i == kTrackPoints - 1 ? kMaxPosition : i * step + kMinPosition;
      track_x[i] = static_cast<float>((x - kMinPosition) * scale);
      track_y[i] = static_cast<float>(Height(x) * scale);
    }
    render2d::draw::AaLines(canvas, track_x, track_y, kTrackPoints, false, {0, 0, 0});

    const double clearance = 10;
    const T pos = static_cast<T>(position_);
    // math.cos(3 * pos): the product is a T, the cosine a Python float.
    const double angle = std::cos(static_cast<double>(static_cast<T>(3) * pos));
    // (pos - min_position) * scale and self._height(pos) * scale, as T.
    const T car_x = (pos - static_cast<T>(kMinPosition)) * static_cast<T>(scale);
    const T car_y = HeightOf(pos) * static_cast<T>(scale);
    const double l = -carwidth / 2, r = carwidth / 2, t = carheight, b = 0;
    const Vec2 body[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
    int16_t xs[4], ys[4];
    for (int i = 0; i < 4; ++i) {
      const Vec2 c = render2d::RotateRad(body[i], angle);
      // c[0] + car_x; c[1] + clearance + car_y (a Python float, then a T)
      xs[i] = GfxInt(static_cast<double>(static_cast<T>(c.x) + car_x));
      ys[i] = GfxInt(static_cast<double>(static_cast<T>(c.y + clearance) + car_y));
    }
    gfx::AaPolygon(canvas, xs, ys, 4, {0, 0, 0});
    gfx::FilledPolygon(canvas, xs, ys, 4, {0, 0, 0});

    const Vec2 wheels[2] = {{carwidth / 4, 0}, {-carwidth / 4, 0}};
    const int16_t wheel_r = GfxInt(carheight / 2.5);
    for (const Vec2& w : wheels) {
      const Vec2 c = render2d::RotateRad(w, angle);
      const int16_t wx = GfxInt(static_cast<double>(static_cast<T>(c.x) + car_x));
      const int16_t wy = GfxInt(static_cast<double>(static_cast<T>(c.y + clearance) + car_y));
      gfx::AaCircle(canvas, wx, wy, wheel_r, {128, 128, 128});
      gfx::FilledCircle(canvas, wx, wy, wheel_r, {128, 128, 128});
    }

    const int flagx = static_cast<int>(render2d::PyInt((goal_position - kMinPosition) * scale));
    const int flagy1 = static_cast<int>(render2d::PyInt(Height(goal_position) * scale));
    const int flagy2 = flagy1 + 50;
    gfx::VLine(canvas, static_cast<int16_t>(flagx), static_cast<int16_t>(flagy1),
               static_cast<int16_t>(flagy2), {0, 0, 0});
    const int16_t fx[3] = {static_cast<int16_t>(flagx), static_cast<int16_t>(flagx),
                           static_cast<int16_t>(flagx + 25)};
    const int16_t fy[3] = {static_cast<int16_t>(flagy2), static_cast<int16_t>(flagy2 - 10),
                           static_cast<int16_t>(flagy2 - 5)};
    gfx::AaPolygon(canvas, fx, fy, 3, {204, 204, 0});
    gfx::FilledPolygon(canvas, fx, fy, 3, {204, 204, 0});
  }

  // self._height(xs) = np.sin(3 * xs) * 0.45 + 0.55 on float64.
  static double Height(double x) { return std::sin(3 * x) * 0.45 + 0.55; }
  // ... and on an np.float32 scalar: float32 sin, float32 constants.
  static float HeightOf(float x) {
    return numpy_math::NpSinF(3.0f * x) * static_cast<float>(0.45) + static_cast<float>(0.55);
  }
  static double HeightOf(double x) { return Height(x); }

  static constexpr double kMinPosition = -1.2;
  static constexpr double kMaxPosition = 0.6;
  static constexpr double kMaxSpeed = 0.07;
  static constexpr int kScreenWidth = 600;
  static constexpr int kScreenHeight = 400;

  double goal_velocity_;
  double position_ = 0.0;
  double velocity_ = 0.0;
};

class MountainCarEnv : public MountainCarTrack {
 public:
  static EnvSpec Spec(const Config&) {
    EnvSpec spec;
    spec.obs = {ObsSpec()};
    spec.action = Discrete("action", 3);
    spec.render = ScreenSpec();
    return spec;
  }

  MountainCarEnv(const Config& config, uint64_t seed) : MountainCarTrack(config, seed) {}

  void Step(const void* action) override {
    const int64_t a = *static_cast<const int64_t*>(action);
    double position = position_, velocity = velocity_;
    // velocity += (action - 1) * force + math.cos(3 * position) * (-gravity)
    velocity += static_cast<double>(a - 1) * kForce + std::cos(3 * position) * (-kGravity);
    // np.clip(velocity, -max_speed, max_speed)
    velocity = std::fmin(std::fmax(velocity, -kMaxSpeed), kMaxSpeed);
    position += velocity;
    position = std::fmin(std::fmax(position, kMinPosition), kMaxPosition);
    if (position == kMinPosition && velocity < 0) velocity = 0;

    terminated_ = position >= kGoalPosition && velocity >= goal_velocity_;
    reward_ = -1.0;
    position_ = position;
    velocity_ = velocity;
  }

  void Render(int, int width, int height, uint8_t* rgb) override {
    DrawScene<double>(width, height, rgb, kGoalPosition);
  }

 private:
  static constexpr double kGoalPosition = 0.5;
  static constexpr double kForce = 0.001;
  static constexpr double kGravity = 0.0025;
};

}  // namespace envfleet::classic_control

#endif  // ENVFLEET_FAMILIES_CLASSIC_CONTROL_MOUNTAIN_CAR_H_
