// CartPole-v0 / CartPole-v1, a port of Gymnasium 1.4.0's
// gymnasium/envs/classic_control/cartpole.py (CartPoleEnv). The arithmetic is written in the
// reference's order, in double precision, so states match bit for bit; the observation is the
// float64 state cast to float32, as there. Render() draws CartPoleEnv.render()'s rgb_array frame.
#ifndef ENVFLEET_FAMILIES_CLASSIC_CONTROL_CARTPOLE_H_
#define ENVFLEET_FAMILIES_CLASSIC_CONTROL_CARTPOLE_H_

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/render2d/canvas.h"
#include "common/render2d/geometry.h"
#include "common/render2d/gfxdraw.h"
#include "core/env.h"
#include "core/spec.h"

namespace envfleet::classic_control {

class CartPoleEnv : public Env {
 public:
  static Config DefaultConfig() { return {{"sutton_barto_reward", false}}; }

  static EnvSpec Spec(const Config&) {
    const double inf = std::numeric_limits<double>::infinity();
    const double x = static_cast<float>(kXThreshold * 2);
    const double theta = static_cast<float>(kThetaThreshold * 2);
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kFloat32, {4}, {-x, -inf, -theta, -inf}, {x, inf, theta, inf})};
    spec.action = Discrete("action", 2);
    spec.render = {kScreenWidth, kScreenHeight, /*resizable=*/false, /*fps=*/50, /*num_cameras=*/0};
    return spec;
  }

  CartPoleEnv(const Config& config, uint64_t seed)
      : Env(seed), sutton_barto_reward_(config.Get<bool>("sutton_barto_reward")) {}

  void Reset() override {
    // np_random.uniform(low=-0.05, high=0.05, size=(4,))
    for (double& s : state_) s = rng().Uniform(-0.05, 0.05);
    steps_beyond_terminated_ = -1;
  }

  void Step(const void* action) override {
    const int64_t a = *static_cast<const int64_t*>(action);
    double x = state_[0], x_dot = state_[1], theta = state_[2], theta_dot = state_[3];
    // A table rather than a branch: random actions would mispredict it every other step.
    const double force = kForces[a == 1];
    const double costheta = std::cos(theta);
    const double sintheta = std::sin(theta);
    const double temp = (force + kPolemassLength * (theta_dot * theta_dot) * sintheta) / kTotalMass;
    const double thetaacc =
        (kGravity * sintheta - costheta * temp) /
        (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
    const double xacc = temp - kPolemassLength * thetaacc * costheta / kTotalMass;
    x = x + kTau * x_dot;
    x_dot = x_dot + kTau * xacc;
    theta = theta + kTau * theta_dot;
    theta_dot = theta_dot + kTau * thetaacc;
    state_[0] = x;
    state_[1] = x_dot;
    state_[2] = theta;
    state_[3] = theta_dot;

    terminated_ =
        x < -kXThreshold || x > kXThreshold || theta < -kThetaThreshold || theta > kThetaThreshold;
    if (!terminated_) {
      reward_ = sutton_barto_reward_ ? 0.0 : 1.0;
    } else if (steps_beyond_terminated_ < 0) {
      steps_beyond_terminated_ = 0;
      reward_ = sutton_barto_reward_ ? -1.0 : 1.0;
    } else {
      ++steps_beyond_terminated_;
      reward_ = sutton_barto_reward_ ? -1.0 : 0.0;
    }
  }

  void Write(const OutputSlot& out) const override {
    float* obs = out.Get<float>(0);
    for (int i = 0; i < 4; ++i) obs[i] = static_cast<float>(state_[i]);
  }

  // CartPoleEnv.render(), in its order and float64 arithmetic; coordinates reach gfxdraw
  // through int() (GfxInt), and the final vertical flip is the canvas's flip_y.
  void Render(int, int width, int height, uint8_t* rgb) override {
    namespace gfx = render2d::gfx;
    using render2d::GfxInt;
    using render2d::Vec2;
    const render2d::Canvas canvas(rgb, width, height, /*flip_y=*/true);
    canvas.Fill({255, 255, 255});
    const double world_width = kXThreshold * 2;
    const double scale = kScreenWidth / world_width;
    const double polewidth = 10.0;
    const double polelen = scale * (2 * kLength);
    const double cartwidth = 50.0;
    const double cartheight = 30.0;

    double l = -cartwidth / 2, r = cartwidth / 2, t = cartheight / 2, b = -cartheight / 2;
    const double axleoffset = cartheight / 4.0;
    const double cartx = state_[0] * scale + kScreenWidth / 2.0;
    const int carty = 100;
    int16_t xs[4], ys[4];
    const Vec2 cart[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
    for (int i = 0; i < 4; ++i) {
      xs[i] = GfxInt(cart[i].x + cartx);
      ys[i] = GfxInt(cart[i].y + carty);
    }
    gfx::AaPolygon(canvas, xs, ys, 4, kBlack);
    gfx::FilledPolygon(canvas, xs, ys, 4, kBlack);

    l = -polewidth / 2, r = polewidth / 2, t = polelen - polewidth / 2, b = -polewidth / 2;
    const Vec2 pole[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
    for (int i = 0; i < 4; ++i) {
      const Vec2 v = render2d::RotateRad(pole[i], -state_[2]);
      xs[i] = GfxInt(v.x + cartx);
      ys[i] = GfxInt(v.y + carty + axleoffset);
    }
    gfx::AaPolygon(canvas, xs, ys, 4, kPoleColor);
    gfx::FilledPolygon(canvas, xs, ys, 4, kPoleColor);

    const int16_t axle_x = GfxInt(cartx), axle_y = GfxInt(carty + axleoffset);
    const int16_t axle_r = GfxInt(polewidth / 2);
    gfx::AaCircle(canvas, axle_x, axle_y, axle_r, kAxleColor);
    gfx::FilledCircle(canvas, axle_x, axle_y, axle_r, kAxleColor);

    gfx::HLine(canvas, 0, kScreenWidth, carty, kBlack);
  }

 private:
  static constexpr double kGravity = 9.8;
  static constexpr double kMassCart = 1.0;
  static constexpr double kMassPole = 0.1;
  static constexpr double kTotalMass = kMassPole + kMassCart;
  static constexpr double kLength = 0.5;
  static constexpr double kPolemassLength = kMassPole * kLength;
  static constexpr double kForceMag = 10.0;
  static constexpr double kForces[2] = {-kForceMag, kForceMag};
  static constexpr double kTau = 0.02;
  static constexpr double kThetaThreshold = 12 * 2 * M_PI / 360;
  static constexpr double kXThreshold = 2.4;
  static constexpr int kScreenWidth = 600;
  static constexpr int kScreenHeight = 400;
  static constexpr render2d::Color kBlack = {0, 0, 0};
  static constexpr render2d::Color kPoleColor = {202, 152, 101};
  static constexpr render2d::Color kAxleColor = {129, 132, 203};

  bool sutton_barto_reward_;
  double state_[4] = {0, 0, 0, 0};
  int64_t steps_beyond_terminated_ = -1;
};

}  // namespace envfleet::classic_control

#endif  // ENVFLEET_FAMILIES_CLASSIC_CONTROL_CARTPOLE_H_
