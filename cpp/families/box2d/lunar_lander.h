// LunarLander-v3 (discrete) and LunarLander-v3 with continuous=True, a port of Gymnasium
// 1.4.0's gymnasium/envs/box2d/lunar_lander.py (LunarLander) on Box2D 2.3 as pybox2d runs it
// (pybox2d.h). Every np_random draw is made in the reference's order (terrain heights, the
// initial force, the wind and turbulence indices, two dispersion draws per step, the reset
// included), the float64 arithmetic is written in its order and reaches Box2D rounded to float32
// as through SWIG, and each reset builds a new b2World as v3 does, so episodes match
// bit for bit. Render() draws LunarLander.render()'s rgb_array frame (600x400).
//
// Particles: with a render_mode, Gymnasium adds a small dynamic body (a "particle") to the world
// for every engine firing; they collide only with the ground, so they never touch the lander's
// island and do not change its motion, and they fade and are removed only as render() is
// called. The env cannot know the render_mode, so it simulates particles from the first Render()
// of its life on: frames rendered from the start of an episode then match Gymnasium's, and a
// run that never renders pays nothing for them.
#ifndef ENVFLEET_FAMILIES_BOX2D_LUNAR_LANDER_H_
#define ENVFLEET_FAMILIES_BOX2D_LUNAR_LANDER_H_

#include <Box2D/Box2D.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>

#include "common/render2d/canvas.h"
#include "common/render2d/draw.h"
#include "common/render2d/geometry.h"
#include "common/render2d/gfxdraw.h"
#include "core/env.h"
#include "core/spec.h"
#include "families/box2d/pybox2d.h"

namespace envfleet::box2d {

class LunarLanderEnv : public Env {
 public:
  static Config DefaultConfig() {
    return {{"continuous", false},
            {"gravity", -10.0},
            {"enable_wind", false},
            {"wind_power", 15.0},
            {"turbulence_power", 1.5}};
  }

  static EnvSpec Spec(const Config& config) {
    // Gymnasium asserts this range; wind_power outside 0..20 and turbulence_power outside 0..2
    // only earn a logged recommendation there, so they are accepted here too.
    const double gravity = config.Get<double>("gravity");
    if (!(-12.0 < gravity && gravity < 0.0)) {
      throw std::invalid_argument("gravity (current value: " + std::to_string(gravity) +
                                  ") must be between -12 and 0");
    }
    EnvSpec spec;
    // The bounds as Gymnasium states them, cast to float32 as its Box does.
    const double two_pi = static_cast<float>(2 * M_PI);
    spec.obs = {Box("obs", DType::kFloat32, {8},
                    {-2.5, -2.5, -10.0, -10.0, -two_pi, -10.0, -0.0, -0.0},
                    {2.5, 2.5, 10.0, 10.0, two_pi, 10.0, 1.0, 1.0})};
    spec.action = config.Get<bool>("continuous")
                      ? Box("action", DType::kFloat32, {2}, {-1.0}, {1.0})
                      : Discrete("action", 4);
    spec.render = {kViewportW, kViewportH, /*resizable=*/false, /*fps=*/kFps, /*num_cameras=*/0};
    return spec;
  }

  LunarLanderEnv(const Config& config, uint64_t seed)
      : Env(seed),
        continuous_(config.Get<bool>("continuous")),
        gravity_(config.Get<double>("gravity")),
        enable_wind_(config.Get<bool>("enable_wind")),
        wind_power_(config.Get<double>("wind_power")),
        turbulence_power_(config.Get<double>("turbulence_power")),
        listener_(this) {
    Spec(config);  // the option checks
  }

  void Reset() override {
    // v3 builds a new world on every reset (Gymnasium issue 728): a world reused after
    // DestroyBody keeps broad-phase state that changes contact order. Particles go with it.
    particles_.clear();
    world_.reset();
    world_.emplace(Vec(0.0, gravity_));
    world_->SetContactListener(&listener_);
    game_over_ = false;
    has_prev_shaping_ = false;

    constexpr double kW = kViewportW / kScale;
    constexpr double kH = kViewportH / kScale;
    // height = np_random.uniform(0, H / 2, size=(CHUNKS + 1,))
    std::array<double, kChunks + 1> height;
    for (double& h : height) h = rng().Uniform(0.0, kH / 2);
    std::array<double, kChunks> chunk_x;
    for (int i = 0; i < kChunks; ++i) chunk_x[i] = kW / (kChunks - 1) * i;
    helipad_x1_ = chunk_x[kChunks / 2 - 1];
    helipad_x2_ = chunk_x[kChunks / 2 + 1];
    helipad_y_ = kH / 4;
    for (int i = kChunks / 2 - 2; i <= kChunks / 2 + 2; ++i) height[i] = helipad_y_;
    std::array<double, kChunks> smooth_y;
    for (int i = 0; i < kChunks; ++i) {
      // height[i - 1] is Python's height[-1], the last chunk, for i == 0.
      const double before = height[i == 0 ? kChunks : i - 1];
      smooth_y[i] = 0.33 * (before + height[i] + height[i + 1]);
    }

    // CreateStaticBody(shapes=edgeShape(vertices=[(0, 0), (W, 0)])), then one edge per chunk.
    moon_ = CreateBody(*world_, b2_staticBody, Vec(0, 0));
    CreateFixture(moon_, Edge(Vec(0, 0), Vec(kW, 0)), {});
    for (int i = 0; i < kChunks - 1; ++i) {
      const double p1x = chunk_x[i], p1y = smooth_y[i], p2x = chunk_x[i + 1], p2y = smooth_y[i + 1];
      CreateFixture(moon_, Edge(Vec(p1x, p1y), Vec(p2x, p2y)), {.density = 0, .friction = 0.1f});
      sky_polys_[i] = {{{p1x, p1y}, {p2x, p2y}, {p2x, kH}, {p1x, kH}}};
    }

    constexpr double initial_y = kViewportH / kScale;
    constexpr double initial_x = kViewportW / kScale / 2;
    lander_ = CreateBody(*world_, b2_dynamicBody, Vec(initial_x, initial_y), 0.0f);
    b2Vec2 lander_poly[6];
    for (int i = 0; i < 6; ++i) {
      lander_poly[i] = Vec(kLanderPoly[i][0] / kScale, kLanderPoly[i][1] / kScale);
    }
    CreateFixture(lander_, Polygon(lander_poly, 6),
                  {.density = 5.0f,
                   .friction = 0.1f,
                   .restitution = 0.0f,
                   .category_bits = 0x0010,
                   .mask_bits = 0x001});
    const double fx = rng().Uniform(-kInitialRandom, kInitialRandom);
    const double fy = rng().Uniform(-kInitialRandom, kInitialRandom);
    lander_->ApplyForceToCenter(Vec(fx, fy), true);
    if (enable_wind_) {
      wind_idx_ = rng().Integers(-9999, 9999);
      torque_idx_ = rng().Integers(-9999, 9999);
    }

    for (int k = 0; k < 2; ++k) {
      const int i = k == 0 ? -1 : +1;
      legs_[k] = CreateBody(*world_, b2_dynamicBody,
                            Vec(initial_x - i * kLegAway / kScale, initial_y), F(i * 0.05));
      CreateFixture(
          legs_[k], Box(F(kLegW / kScale), F(kLegH / kScale)),
          {.density = 1.0f, .restitution = 0.0f, .category_bits = 0x0020, .mask_bits = 0x001});
      leg_contact_[k] = false;
      // "The most esoteric numbers here, angled legs have freedom to travel within".
      const RevoluteSpec joint{.local_anchor_a = Vec(0, 0),
                               .local_anchor_b = Vec(i * kLegAway / kScale, kLegDown / kScale),
                               .max_motor_torque = F(kLegSpringTorque),
                               .motor_speed = F(+0.3 * i),
                               .lower_angle = i == -1 ? F(+0.9 - 0.5) : F(-0.9),
                               .upper_angle = i == -1 ? F(+0.9) : F(-0.9 + 0.5)};
      CreateRevoluteJoint(*world_, lander_, legs_[k], joint);
    }

    // reset() returns the observation of step(0) (continuous: step([0, 0])).
    if (continuous_) {
      const float nothing[2] = {0.0f, 0.0f};
      Advance(nothing);
    } else {
      const int64_t nothing = 0;
      Advance(&nothing);
    }
  }

  void Step(const void* action) override { Advance(action); }

  void Write(const OutputSlot& out) const override {
    float* obs = out.Get<float>(0);
    for (int i = 0; i < 8; ++i) obs[i] = obs_[i];
  }

  // LunarLander.render(): fades the particles (and removes the faded ones at the front of the
  // list) first, as there, then draws in its order on a y-up canvas. Gymnasium fades them on
  // every render() call; here the first Render after a reset or step fades them and a second
  // one redraws the same frame (the pool's contract: drawing again gives the same frame), so
  // frames match Gymnasium's whenever each state is rendered at most once.
  void Render(int, int width, int height, uint8_t* rgb) override {
    namespace gfx = render2d::gfx;
    using render2d::GfxInt;
    render_particles_ = true;
    if (!faded_since_step_) {
      faded_since_step_ = true;
      for (Particle& p : particles_) {
        p.ttl -= 0.15;
        const auto channel = [](double v) {
          return static_cast<uint8_t>(static_cast<int>(v * 255));
        };
        const uint8_t r = channel(std::max(0.2, 0.15 + p.ttl));
        const uint8_t gb = channel(std::max(0.2, 0.5 * p.ttl));
        p.color = {r, gb, gb};
      }
      CleanParticles(false);
    }

    const render2d::Canvas canvas(rgb, width, height, /*flip_y=*/true);
    canvas.Fill({255, 255, 255});
    for (const auto& poly : sky_polys_) {
      int xs[4], ys[4];
      int16_t gx[4], gy[4];
      for (int i = 0; i < 4; ++i) {
        const double x = poly[i][0] * kScale, y = poly[i][1] * kScale;
        xs[i] = static_cast<int>(x), ys[i] = static_cast<int>(y);
        gx[i] = GfxInt(x), gy[i] = GfxInt(y);
      }
      render2d::draw::Polygon(canvas, xs, ys, 4, kBlack);
      gfx::AaPolygon(canvas, gx, gy, 4, kBlack);
    }
    // for obj in self.particles + self.drawlist: each has one fixture, and the flags are drawn
    // again after each one (their anti-aliased edges blend once more every time).
    for (const Particle& p : particles_) {
      const b2Fixture* f = p.body->GetFixtureList();
      const auto* circle = static_cast<const b2CircleShape*>(f->GetShape());
      const b2Vec2 center = ToScreen(p.body->GetTransform(), circle->m_p, F(kScale));
      const int radius = static_cast<int>(static_cast<double>(circle->m_radius) * kScale);
      for (int twice = 0; twice < 2; ++twice) {  // color1, then color2 (the same)
        render2d::draw::Circle(canvas, static_cast<int>(center.x), static_cast<int>(center.y),
                               radius, p.color);
      }
      DrawFlags(canvas);
    }
    for (const b2Body* body : {lander_, legs_[0], legs_[1]}) {
      const auto* shape = static_cast<const b2PolygonShape*>(body->GetFixtureList()->GetShape());
      const int n = shape->m_count;
      int xs[b2_maxPolygonVertices], ys[b2_maxPolygonVertices];
      int16_t gx[b2_maxPolygonVertices], gy[b2_maxPolygonVertices];
      float fx[b2_maxPolygonVertices], fy[b2_maxPolygonVertices];
      for (int i = 0; i < n; ++i) {
        const b2Vec2 v = ToScreen(body->GetTransform(), shape->m_vertices[i], F(kScale));
        xs[i] = static_cast<int>(v.x), ys[i] = static_cast<int>(v.y);
        gx[i] = GfxInt(v.x), gy[i] = GfxInt(v.y);
        fx[i] = v.x, fy[i] = v.y;
      }
      render2d::draw::Polygon(canvas, xs, ys, n, kBodyColor1);
      gfx::AaPolygon(canvas, gx, gy, n, kBodyColor1);
      render2d::draw::AaLines(canvas, fx, fy, n, /*closed=*/true, kBodyColor2);
      DrawFlags(canvas);
    }
  }

 private:
  static constexpr int kFps = 50;
  static constexpr double kScale = 30.0;
  static constexpr double kMainEnginePower = 13.0;
  static constexpr double kSideEnginePower = 0.6;
  static constexpr double kInitialRandom = 1000.0;
  static constexpr int kLanderPoly[6][2] = {{-14, +17}, {-17, 0}, {-17, -10},
                                            {+17, -10}, {+17, 0}, {+14, +17}};
  static constexpr int kLegAway = 20;
  static constexpr int kLegDown = 18;
  static constexpr int kLegW = 2, kLegH = 8;
  static constexpr int kLegSpringTorque = 40;
  static constexpr int kSideEngineHeight = 14;
  static constexpr int kSideEngineAway = 12;
  static constexpr int kMainEngineYLocation = 4;
  static constexpr int kViewportW = 600;
  static constexpr int kViewportH = 400;
  static constexpr int kChunks = 11;
  static constexpr render2d::Color kBlack = {0, 0, 0};
  static constexpr render2d::Color kWhite = {255, 255, 255};
  static constexpr render2d::Color kFlagColor = {204, 204, 0};
  static constexpr render2d::Color kBodyColor1 = {128, 102, 230};
  static constexpr render2d::Color kBodyColor2 = {77, 77, 128};

  // ContactDetector: the lander touching anything ends the game; a leg's ground contact
  // follows its contacts beginning and ending.
  class ContactListener : public b2ContactListener {
   public:
    explicit ContactListener(LunarLanderEnv* env) : env_(env) {}
    void BeginContact(b2Contact* contact) override {
      const b2Body* a = contact->GetFixtureA()->GetBody();
      const b2Body* b = contact->GetFixtureB()->GetBody();
      if (env_->lander_ == a || env_->lander_ == b) env_->game_over_ = true;
      for (int i = 0; i < 2; ++i) {
        if (env_->legs_[i] == a || env_->legs_[i] == b) env_->leg_contact_[i] = true;
      }
    }
    void EndContact(b2Contact* contact) override {
      const b2Body* a = contact->GetFixtureA()->GetBody();
      const b2Body* b = contact->GetFixtureB()->GetBody();
      for (int i = 0; i < 2; ++i) {
        if (env_->legs_[i] == a || env_->legs_[i] == b) env_->leg_contact_[i] = false;
      }
    }

   private:
    LunarLanderEnv* env_;
  };

  struct Particle {
    b2Body* body;
    double ttl;
    render2d::Color color;
  };

  // LunarLander.step(action), for an int64 action (discrete) or two float32 (continuous).
  void Advance(const void* action) {
    faded_since_step_ = false;
    int64_t discrete = 0;
    double a0 = 0, a1 = 0;
    if (continuous_) {
      // np.clip(action, -1, +1).astype(np.float64): the clip is float32.
      const float* a = static_cast<const float*>(action);
      a0 = std::clamp(a[0], -1.0f, 1.0f);
      a1 = std::clamp(a[1], -1.0f, 1.0f);
    } else {
      discrete = *static_cast<const int64_t*>(action);
    }

    if (enable_wind_ && !(leg_contact_[0] || leg_contact_[1])) {
      // tanh(sin(2 k t) + sin(pi k t)), k = 0.01, t counting from a random index.
      const double wind_mag = std::tanh(std::sin(0.02 * static_cast<double>(wind_idx_)) +
                                        std::sin(M_PI * 0.01 * static_cast<double>(wind_idx_))) *
                              wind_power_;
      ++wind_idx_;
      lander_->ApplyForceToCenter(Vec(wind_mag, 0.0), true);
      const double torque_mag =
          std::tanh(std::sin(0.02 * static_cast<double>(torque_idx_)) +
                    std::sin(M_PI * 0.01 * static_cast<double>(torque_idx_))) *
          turbulence_power_;
      ++torque_idx_;
      lander_->ApplyTorque(F(torque_mag), true);
    }

    const double angle = lander_->GetAngle();
    const double tip[2] = {std::sin(angle), std::cos(angle)};
    const double side[2] = {-tip[1], tip[0]};
    double dispersion[2];
    for (double& d : dispersion) d = rng().Uniform(-1.0, +1.0) / kScale;

    double m_power = 0.0;
    if ((continuous_ && a0 > 0.0) || (!continuous_ && discrete == 2)) {
      m_power = continuous_ ? (std::clamp(a0, 0.0, 1.0) + 1.0) * 0.5 : 1.0;
      const double ox =
          tip[0] * (kMainEngineYLocation / kScale + 2 * dispersion[0]) + side[0] * dispersion[1];
      const double oy =
          -tip[1] * (kMainEngineYLocation / kScale + 2 * dispersion[0]) - side[1] * dispersion[1];
      const b2Vec2 position = lander_->GetPosition();
      const b2Vec2 impulse_pos = Vec(position.x + ox, position.y + oy);
      if (render_particles_) {
        b2Body* p = CreateParticle(3.5, impulse_pos, m_power);
        p->ApplyLinearImpulse(Vec(ox * kMainEnginePower * m_power, oy * kMainEnginePower * m_power),
                              impulse_pos, true);
      }
      lander_->ApplyLinearImpulse(
          Vec(-ox * kMainEnginePower * m_power, -oy * kMainEnginePower * m_power), impulse_pos,
          true);
    }

    double s_power = 0.0;
    if ((continuous_ && std::abs(a1) > 0.5) || (!continuous_ && (discrete == 1 || discrete == 3))) {
      double direction;
      if (continuous_) {
        direction = a1 > 0 ? 1.0 : (a1 < 0 ? -1.0 : 0.0);  // np.sign
        s_power = std::clamp(std::abs(a1), 0.5, 1.0);
      } else {
        direction = static_cast<double>(discrete - 2);  // 1 is left, 3 is right
        s_power = 1.0;
      }
      const double ox = tip[0] * dispersion[0] +
                        side[0] * (3 * dispersion[1] + direction * kSideEngineAway / kScale);
      const double oy = -tip[1] * dispersion[0] -
                        side[1] * (3 * dispersion[1] + direction * kSideEngineAway / kScale);
      // 17 where SIDE_ENGINE_HEIGHT (14) was presumably meant: Gymnasium's documented quirk.
      const b2Vec2 position = lander_->GetPosition();
      const b2Vec2 impulse_pos = Vec(position.x + ox - tip[0] * 17 / kScale,
                                     position.y + oy + tip[1] * kSideEngineHeight / kScale);
      if (render_particles_) {
        b2Body* p = CreateParticle(0.7, impulse_pos, s_power);
        p->ApplyLinearImpulse(Vec(ox * kSideEnginePower * s_power, oy * kSideEnginePower * s_power),
                              impulse_pos, true);
      }
      lander_->ApplyLinearImpulse(
          Vec(-ox * kSideEnginePower * s_power, -oy * kSideEnginePower * s_power), impulse_pos,
          true);
    }

    world_->Step(F(1.0 / kFps), 6 * 30, 2 * 30);

    const b2Vec2 pos = lander_->GetPosition();
    const b2Vec2 vel = lander_->GetLinearVelocity();
    const double state[8] = {
        (pos.x - kViewportW / kScale / 2) / (kViewportW / kScale / 2),
        (pos.y - (helipad_y_ + kLegDown / kScale)) / (kViewportH / kScale / 2),
        vel.x * (kViewportW / kScale / 2) / kFps,
        vel.y * (kViewportH / kScale / 2) / kFps,
        lander_->GetAngle(),
        20.0 * lander_->GetAngularVelocity() / kFps,
        leg_contact_[0] ? 1.0 : 0.0,
        leg_contact_[1] ? 1.0 : 0.0,
    };
    for (int i = 0; i < 8; ++i) obs_[i] = static_cast<float>(state[i]);

    const double shaping = -100 * std::sqrt(state[0] * state[0] + state[1] * state[1]) -
                           100 * std::sqrt(state[2] * state[2] + state[3] * state[3]) -
                           100 * std::abs(state[4]) + 10 * state[6] + 10 * state[7];
    double reward = 0;
    if (has_prev_shaping_) reward = shaping - prev_shaping_;
    prev_shaping_ = shaping;
    has_prev_shaping_ = true;
    reward -= m_power * 0.30;
    reward -= s_power * 0.03;

    terminated_ = false;
    if (game_over_ || std::abs(state[0]) >= 1.0) {
      terminated_ = true;
      reward = -100;
    }
    if (!lander_->IsAwake()) {
      terminated_ = true;
      reward = +100;
    }
    reward_ = reward;
  }

  // _create_particle: a small ball at the engine, then _clean_particles(False).
  b2Body* CreateParticle(double mass, b2Vec2 position, double ttl) {
    b2Body* body = CreateBody(*world_, b2_dynamicBody, position, 0.0f);
    b2CircleShape circle;
    circle.m_radius = F(2 / kScale);
    circle.m_p = Vec(0, 0);
    CreateFixture(body, circle,
                  {.density = F(mass),
                   .friction = 0.1f,
                   .restitution = 0.3f,
                   .category_bits = 0x0100,
                   .mask_bits = 0x001});
    particles_.push_back({body, ttl, {}});
    CleanParticles(false);
    return body;
  }

  // _clean_particles: removes particles from the front while their ttl is below 0 (all of
  // them when `all`).
  void CleanParticles(bool all) {
    while (!particles_.empty() && (all || particles_.front().ttl < 0)) {
      world_->DestroyBody(particles_.front().body);
      particles_.pop_front();
    }
  }

  // The two flags, drawn after every object (see Render).
  void DrawFlags(const render2d::Canvas& canvas) const {
    namespace gfx = render2d::gfx;
    using render2d::GfxInt;
    for (const double helipad_x : {helipad_x1_, helipad_x2_}) {
      const double x = helipad_x * kScale;
      const double flagy1 = helipad_y_ * kScale;
      const double flagy2 = flagy1 + 50;
      render2d::draw::Line(canvas, static_cast<int>(x), static_cast<int>(flagy1),
                           static_cast<int>(x), static_cast<int>(flagy2), kWhite);
      const double px[3] = {x, x, x + 25}, py[3] = {flagy2, flagy2 - 10, flagy2 - 5};
      int xs[3], ys[3];
      int16_t gx[3], gy[3];
      for (int i = 0; i < 3; ++i) {
        xs[i] = static_cast<int>(px[i]), ys[i] = static_cast<int>(py[i]);
        gx[i] = GfxInt(px[i]), gy[i] = GfxInt(py[i]);
      }
      render2d::draw::Polygon(canvas, xs, ys, 3, kFlagColor);
      gfx::AaPolygon(canvas, gx, gy, 3, kFlagColor);
    }
  }

  const bool continuous_;
  const double gravity_;
  const bool enable_wind_;
  const double wind_power_;
  const double turbulence_power_;
  ContactListener listener_;

  std::optional<b2World> world_;
  b2Body* moon_ = nullptr;
  b2Body* lander_ = nullptr;
  b2Body* legs_[2] = {nullptr, nullptr};
  bool leg_contact_[2] = {false, false};
  bool game_over_ = false;
  double prev_shaping_ = 0;
  bool has_prev_shaping_ = false;
  int64_t wind_idx_ = 0;
  int64_t torque_idx_ = 0;
  double helipad_x1_ = 0, helipad_x2_ = 0, helipad_y_ = 0;
  std::array<std::array<std::array<double, 2>, 4>, kChunks - 1> sky_polys_{};
  float obs_[8] = {};
  bool render_particles_ = false;  // from the first Render() on (see the top of this file)
  bool faded_since_step_ = false;  // whether a Render() has faded the particles of this state
  std::deque<Particle> particles_;
};

}  // namespace envfleet::box2d

#endif  // ENVFLEET_FAMILIES_BOX2D_LUNAR_LANDER_H_
