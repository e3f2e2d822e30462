// Acrobot-v1, a port of Gymnasium 1.4.0's gymnasium/envs/classic_control/acrobot.py
// (AcrobotEnv), with its class settings book_or_nips = "book" and torque_noise_max = 0.0 (no
// noise draw), its own rk4 over t = [0, dt], wrap() and bound().
//
// reset() stores the state as float32 (uniform(...).astype(np.float32)), so the first
// observation takes np.cos / np.sin of float32 values: NumPy's float32 kernel, not libm (see
// cpp/common/numpy/math.h). Every step turns the state into float64 (np.append with the torque, a
// Python float or int, promotes to float64), and from then on np.cos / np.sin are libm's on
// doubles. Render() draws AcrobotEnv.render()'s rgb_array frame, with the same two kinds.
//
// include_state (EnvPool's info, off by default as Gymnasium's info is empty; EnvPool's
// conventions turn it on, src/envfleet/families/classic_control.py) adds info["state"]: the two
// link angles (theta1, theta2) as float32, as EnvPool 1.2.5's Acrobot reports them.
#ifndef ENVFLEET_FAMILIES_CLASSIC_CONTROL_ACROBOT_H_
#define ENVFLEET_FAMILIES_CLASSIC_CONTROL_ACROBOT_H_

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

class AcrobotEnv : public Env {
 public:
  static Config DefaultConfig() { return {{"include_state", false}}; }

  static EnvSpec Spec(const Config& config) {
    // high = np.array([1.0, 1.0, 1.0, 1.0, MAX_VEL_1, MAX_VEL_2], dtype=np.float32)
    const double v1 = static_cast<float>(kMaxVel1);
    const double v2 = static_cast<float>(kMaxVel2);
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kFloat32, {6}, {-1.0, -1.0, -1.0, -1.0, -v1, -v2},
                    {1.0, 1.0, 1.0, 1.0, v1, v2})};
    if (config.Get<bool>("include_state")) {
      spec.info = {Box("state", DType::kFloat32, {2}, {}, {})};
    }
    spec.action = Discrete("action", 3);
    spec.render = {kScreenDim, kScreenDim, /*resizable=*/false, /*fps=*/15, /*num_cameras=*/0};
    return spec;
  }

  AcrobotEnv(const Config& config, uint64_t seed)
      : Env(seed), include_state_(config.Get<bool>("include_state")) {}

  void Reset() override {
    // np_random.uniform(low=-0.1, high=0.1, size=(4,)).astype(np.float32)
    for (double& s : state_) s = static_cast<float>(rng().Uniform(-0.1, 0.1));
    state_is_float32_ = true;
  }

  void Step(const void* action) override {
    const int64_t a = *static_cast<const int64_t*>(action);
    // AVAIL_TORQUE = [-1.0, 0.0, +1]; torque_noise_max = 0.0, so no noise is drawn.
    static constexpr double kAvailTorque[3] = {-1.0, 0.0, 1.0};
    const double torque = kAvailTorque[a];

    // rk4(self._dsdt, np.append(s, torque), [0, self.dt]): one step of size dt = 0.2 - 0.
    // The torque is the 5th state component; its derivative is 0.0, so it stays `torque`.
    const double dt = kDt - 0;
    const double dt2 = dt / 2.0;
    const double* y0 = state_;
    double k1[4], k2[4], k3[4], k4[4], y[4];
    Dsdt(y0, torque, k1);
    for (int i = 0; i < 4; ++i) y[i] = y0[i] + dt2 * k1[i];
    Dsdt(y, torque, k2);
    for (int i = 0; i < 4; ++i) y[i] = y0[i] + dt2 * k2[i];
    Dsdt(y, torque, k3);
    for (int i = 0; i < 4; ++i) y[i] = y0[i] + dt * k3[i];
    Dsdt(y, torque, k4);
    double ns[4];
    for (int i = 0; i < 4; ++i) {
      ns[i] = y0[i] + dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }

    ns[0] = Wrap(ns[0], -M_PI, M_PI);
    ns[1] = Wrap(ns[1], -M_PI, M_PI);
    ns[2] = Bound(ns[2], -kMaxVel1, kMaxVel1);
    ns[3] = Bound(ns[3], -kMaxVel2, kMaxVel2);
    for (int i = 0; i < 4; ++i) state_[i] = ns[i];
    state_is_float32_ = false;

    // _terminal(): bool(-cos(s[0]) - cos(s[1] + s[0]) > 1.0)
    terminated_ = -std::cos(state_[0]) - std::cos(state_[1] + state_[0]) > 1.0;
    reward_ = terminated_ ? 0.0 : -1.0;
  }

  void Write(const OutputSlot& out) const override {
    // np.array([cos(s[0]), sin(s[0]), cos(s[1]), sin(s[1]), s[2], s[3]], dtype=np.float32)
    float* obs = out.Get<float>(0);
    if (state_is_float32_) {
      const float s0 = static_cast<float>(state_[0]), s1 = static_cast<float>(state_[1]);
      obs[0] = numpy_math::NpCosF(s0);
      obs[1] = numpy_math::NpSinF(s0);
      obs[2] = numpy_math::NpCosF(s1);
      obs[3] = numpy_math::NpSinF(s1);
    } else {
      obs[0] = static_cast<float>(std::cos(state_[0]));
      obs[1] = static_cast<float>(std::sin(state_[0]));
      obs[2] = static_cast<float>(std::cos(state_[1]));
      obs[3] = static_cast<float>(std::sin(state_[1]));
    }
    obs[4] = static_cast<float>(state_[2]);
    obs[5] = static_cast<float>(state_[3]);
    if (include_state_) {
      float* angles = out.Get<float>(1);
      angles[0] = static_cast<float>(state_[0]);
      angles[1] = static_cast<float>(state_[1]);
    }
  }

  void Render(int, int width, int height, uint8_t* rgb) override {
    if (state_is_float32_) {
      DrawScene<float>(width, height, rgb);
    } else {
      DrawScene<double>(width, height, rgb);
    }
  }

 private:
  static constexpr double kDt = 0.2;
  static constexpr double kLinkLength1 = 1.0;
  static constexpr double kLinkLength2 = 1.0;
  static constexpr int kScreenDim = 500;
  static constexpr double kLinkMass1 = 1.0;
  static constexpr double kLinkMass2 = 1.0;
  static constexpr double kLinkComPos1 = 0.5;
  static constexpr double kLinkComPos2 = 0.5;
  static constexpr double kLinkMoi = 1.0;
  static constexpr double kMaxVel1 = 4 * M_PI;
  static constexpr double kMaxVel2 = 9 * M_PI;
  static constexpr bool kBook = true;  // book_or_nips = "book"

  bool include_state_;

  // _dsdt(s_augmented) with s_augmented = (s, a); writes (dtheta1, dtheta2, ddtheta1,
  // ddtheta2). Operations in the reference's order; `x**2` on np.float64 is libm pow.
  static void Dsdt(const double* s, double a, double* out) {
    using numpy_math::NpPow;
    constexpr double m1 = kLinkMass1, m2 = kLinkMass2, l1 = kLinkLength1;
    constexpr double lc1 = kLinkComPos1, lc2 = kLinkComPos2;
    constexpr double I1 = kLinkMoi, I2 = kLinkMoi;
    constexpr double g = 9.8;
    // Python float constants: lc1**2 etc. are exact squares of 0.5 and 1.0.
    constexpr double lc1_sq = lc1 * lc1, lc2_sq = lc2 * lc2, l1_sq = l1 * l1;
    const double theta1 = s[0], theta2 = s[1], dtheta1 = s[2], dtheta2 = s[3];
    const double cos_theta2 = std::cos(theta2);
    const double sin_theta2 = std::sin(theta2);

    const double d1 = m1 * lc1_sq + m2 * (l1_sq + lc2_sq + 2 * l1 * lc2 * cos_theta2) + I1 + I2;
    const double d2 = m2 * (lc2_sq + l1 * lc2 * cos_theta2) + I2;
    const double phi2 = m2 * lc2 * g * std::cos(theta1 + theta2 - M_PI / 2.0);
    const double phi1 = -m2 * l1 * lc2 * NpPow(dtheta2, 2) * sin_theta2 -
                        2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * sin_theta2 +
                        (m1 * lc1 + m2 * l1) * g * std::cos(theta1 - M_PI / 2) + phi2;
    double ddtheta2;
    if (kBook) {
      ddtheta2 = (a + d2 / d1 * phi1 - m2 * l1 * lc2 * NpPow(dtheta1, 2) * sin_theta2 - phi2) /
                 (m2 * lc2_sq + I2 - NpPow(d2, 2) / d1);
    } else {
      ddtheta2 = (a + d2 / d1 * phi1 - phi2) / (m2 * lc2_sq + I2 - NpPow(d2, 2) / d1);
    }
    const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    out[0] = dtheta1;
    out[1] = dtheta2;
    out[2] = ddtheta1;
    out[3] = ddtheta2;
  }

  static float Cos(float x) { return numpy_math::NpCosF(x); }
  static float Sin(float x) { return numpy_math::NpSinF(x); }
  static double Cos(double x) { return std::cos(x); }
  static double Sin(double x) { return std::sin(x); }

  // AcrobotEnv.render(), in its order. T is the kind of the state's elements: np.float32 after
  // a reset, np.float64 after a step. p1 and the link angles are T (float32 sin / cos and
  // float32-rounded Python constants on float32); np.array([[0, 0], p1]) is float64 either way
  // (int and float32 promote to float64), so the link origins are doubles.
  template <typename T>
  void DrawScene(int width, int height, uint8_t* rgb) const {
    namespace gfx = render2d::gfx;
    using render2d::GfxInt;
    using render2d::PyInt;
    using render2d::Vec2;
    const render2d::Canvas canvas(rgb, width, height, /*flip_y=*/true);
    canvas.Fill({255, 255, 255});
    const T s0 = static_cast<T>(state_[0]), s1 = static_cast<T>(state_[1]);
    const double bound = kLinkLength1 + kLinkLength2 + 0.2;
    const double scale = kScreenDim / (bound * 2);
    const double offset = kScreenDim / 2.0;
    const T sc = static_cast<T>(scale);
    // p1 = [-L1 * cos(s[0]) * scale, L1 * sin(s[0]) * scale]; xys = [[0, 0], p1][:, ::-1]
    const T p1_0 = static_cast<T>(-kLinkLength1) * Cos(s0) * sc;
    const T p1_1 = static_cast<T>(kLinkLength1) * Sin(s0) * sc;
    const double xys[2][2] = {{0, 0}, {static_cast<double>(p1_1), static_cast<double>(p1_0)}};
    const T half_pi = static_cast<T>(M_PI / 2);
    const T thetas[2] = {s0 - half_pi, s0 + s1 - half_pi};
    const double link_lengths[2] = {kLinkLength1 * scale, kLinkLength2 * scale};

    render2d::draw::Line(canvas, static_cast<int>(PyInt(-2.2 * scale + offset)),
                         static_cast<int>(PyInt(1 * scale + offset)),
                         static_cast<int>(PyInt(2.2 * scale + offset)),
                         static_cast<int>(PyInt(1 * scale + offset)), {0, 0, 0});

    for (int k = 0; k < 2; ++k) {
      const double x = xys[k][0] + offset;
      const double y = xys[k][1] + offset;
      const double l = 0, r = link_lengths[k], t = 0.1 * scale, b = -0.1 * scale;
      const Vec2 corners[4] = {{l, b}, {l, t}, {r, t}, {r, b}};
      int16_t xs[4], ys[4];
      for (int i = 0; i < 4; ++i) {
        const Vec2 c = render2d::RotateRad(corners[i], static_cast<double>(thetas[k]));
        xs[i] = GfxInt(c.x + x);
        ys[i] = GfxInt(c.y + y);
      }
      gfx::AaPolygon(canvas, xs, ys, 4, {0, 204, 204});
      gfx::FilledPolygon(canvas, xs, ys, 4, {0, 204, 204});
      const int16_t cx = GfxInt(x), cy = GfxInt(y), radius = GfxInt(0.1 * scale);
      gfx::AaCircle(canvas, cx, cy, radius, {204, 204, 0});
      gfx::FilledCircle(canvas, cx, cy, radius, {204, 204, 0});
    }
  }

  // wrap(x, m, M): shifts x by M - m until m <= x <= M.
  static double Wrap(double x, double m, double M) {
    const double diff = M - m;
    while (x > M) x = x - diff;
    while (x < m) x = x + diff;
    return x;
  }

  // bound(x, m, M) = min(max(x, m), M) with Python's max/min (the first argument wins ties).
  static double Bound(double x, double m, double M) {
    double r = m > x ? m : x;
    return M < r ? M : r;
  }

  double state_[4] = {0, 0, 0, 0};
  bool state_is_float32_ = true;
};

}  // namespace envfleet::classic_control

#endif  // ENVFLEET_FAMILIES_CLASSIC_CONTROL_ACROBOT_H_
