// BipedalWalker-v3 and BipedalWalker-v3 with hardcore=True (BipedalWalkerHardcore-v3), a port of
// Gymnasium 1.4.0's gymnasium/envs/box2d/bipedal_walker.py (BipedalWalker) on Box2D 2.3 as
// pybox2d runs it (pybox2d.h). Every np_random draw is made in the reference's order (terrain,
// hardcore obstacles, clouds, the initial push), and the float64 arithmetic is written in its
// order, so episodes match bit for bit. Render() draws BipedalWalker.render()'s rgb_array frame
// (600x400).
//
// Unlike LunarLander-v3, the reference keeps one b2World for the env's whole life and destroys
// and recreates the bodies on each reset; the broad phase's proxy ids, and through them the
// order of contacts, carry over from episode to episode. This port does the same, destroying
// and creating bodies in the reference's order.
//
// NumPy's promotion rules reach the reward: `reward -= 0.00035 * MOTORS_TORQUE *
// np.clip(np.abs(a), 0, 1)` with a float32 action makes the reward a float32 (a Python float
// meets a NumPy float32 scalar), so it is computed in float32 from that point, as there.
#ifndef ENVFLEET_FAMILIES_BOX2D_BIPEDAL_WALKER_H_
#define ENVFLEET_FAMILIES_BOX2D_BIPEDAL_WALKER_H_

#include <Box2D/Box2D.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/render2d/canvas.h"
#include "common/render2d/draw.h"
#include "common/render2d/geometry.h"
#include "common/render2d/gfxdraw.h"
#include "core/env.h"
#include "core/spec.h"
#include "families/box2d/pybox2d.h"

namespace envfleet::box2d {

class BipedalWalkerEnv : public Env {
 public:
  static Config DefaultConfig() { return {{"hardcore", false}}; }

  static EnvSpec Spec(const Config&) {
    // Gymnasium's bounds, cast to float32 as its Box does.
    const double pi = static_cast<float>(M_PI);
    std::vector<double> low = {-pi,  -5.0, -5.0, -5.0, -pi, -5.0, -pi,
                               -5.0, -0.0, -pi,  -5.0, -pi, -5.0, -0.0};
    std::vector<double> high = {pi, 5.0, 5.0, 5.0, pi, 5.0, pi, 5.0, 5.0, pi, 5.0, pi, 5.0, 5.0};
    low.resize(24, -1.0);
    high.resize(24, 1.0);
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kFloat32, {24}, low, high)};
    spec.action = Box("action", DType::kFloat32, {4}, {-1.0}, {1.0});
    spec.render = {kViewportW, kViewportH, /*resizable=*/false, /*fps=*/kFps, /*num_cameras=*/0};
    return spec;
  }

  BipedalWalkerEnv(const Config& config, uint64_t seed)
      : Env(seed),
        hardcore_(config.Get<bool>("hardcore")),
        world_(b2Vec2(0.0f, -10.0f)),  // b2World(): pybox2d's default gravity (0, -10)
        listener_(this) {
    terrain_.reserve(2 * kTerrainLength);
  }

  void Reset() override {
    Destroy();
    world_.SetContactListener(&listener_);
    game_over_ = false;
    has_prev_shaping_ = false;
    scroll_ = 0.0;
    lidar_render_ = 0;

    GenerateTerrain();
    GenerateClouds();

    constexpr double init_x = kTerrainStep * kTerrainStartpad / 2;
    constexpr double init_y = kTerrainHeight + 2 * kLegH;
    hull_ = CreateBody(world_, b2_dynamicBody, Vec(init_x, init_y));
    b2Vec2 hull_poly[5];
    for (int i = 0; i < 5; ++i)
      hull_poly[i] = Vec(kHullPoly[i][0] / kScale, kHullPoly[i][1] / kScale);
    CreateFixture(hull_, Polygon(hull_poly, 5),
                  {.density = 5.0f,
                   .friction = 0.1f,
                   .restitution = 0.0f,
                   .category_bits = 0x0020,
                   .mask_bits = 0x001});
    hull_->ApplyForceToCenter(Vec(rng().Uniform(-kInitialRandom, kInitialRandom), 0), true);

    const FixtureSpec leg_fd{
        .density = 1.0f, .restitution = 0.0f, .category_bits = 0x0020, .mask_bits = 0x001};
    for (int k = 0; k < 2; ++k) {
      const int i = k == 0 ? -1 : +1;
      b2Body* leg = CreateBody(world_, b2_dynamicBody, Vec(init_x, init_y - kLegH / 2 - kLegDown),
                               F(i * 0.05));
      CreateFixture(leg, Box(F(kLegW / 2), F(kLegH / 2)), leg_fd);
      legs_[2 * k] = leg;
      joints_[2 * k] = CreateRevoluteJoint(world_, hull_, leg,
                                           {.local_anchor_a = Vec(0, kLegDown),
                                            .local_anchor_b = Vec(0, kLegH / 2),
                                            .max_motor_torque = F(kMotorsTorque),
                                            .motor_speed = F(i),
                                            .lower_angle = F(-0.8),
                                            .upper_angle = F(1.1)});
      b2Body* lower = CreateBody(world_, b2_dynamicBody,
                                 Vec(init_x, init_y - kLegH * 3 / 2 - kLegDown), F(i * 0.05));
      CreateFixture(lower, Box(F(0.8 * kLegW / 2), F(kLegH / 2)), leg_fd);
      legs_[2 * k + 1] = lower;
      ground_contact_[k] = false;
      joints_[2 * k + 1] = CreateRevoluteJoint(world_, leg, lower,
                                               {.local_anchor_a = Vec(0, -kLegH / 2),
                                                .local_anchor_b = Vec(0, kLegH / 2),
                                                .max_motor_torque = F(kMotorsTorque),
                                                .motor_speed = 1.0f,
                                                .lower_angle = F(-1.6),
                                                .upper_angle = F(-0.1)});
    }

    // reset() returns the observation of step([0, 0, 0, 0]).
    const float nothing[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    Advance(nothing);
  }

  void Step(const void* action) override { Advance(static_cast<const float*>(action)); }

  void Write(const OutputSlot& out) const override {
    float* obs = out.Get<float>(0);
    for (int i = 0; i < 24; ++i) obs[i] = obs_[i];
  }

  // BipedalWalker.render(): the reference draws on a surface as wide as the scrolled world
  // (600 + scroll * SCALE pixels) and returns its last 600 columns. Clipping to that surface
  // moves the ends of the lines SDL_gfx and pygame clip, so we draw on a surface of the same
  // width too (kept between frames) and copy the columns out.
  void Render(int, int width, int height, uint8_t* rgb) override {
    namespace gfx = render2d::gfx;
    namespace draw = render2d::draw;
    using render2d::GfxInt;
    const int surface_w = static_cast<int>(kViewportW + std::max(0.0, scroll_) * kScale);
    surface_.assign(static_cast<size_t>(surface_w) * height * 3, 0);
    const render2d::Canvas canvas(surface_.data(), surface_w, height, /*flip_y=*/true);

    {
      const double left = scroll_ * kScale, right = scroll_ * kScale + kViewportW;
      const int xs[4] = {static_cast<int>(left), static_cast<int>(right), static_cast<int>(right),
                         static_cast<int>(left)};
      const int ys[4] = {0, 0, kViewportH, kViewportH};
      render2d::draw::Polygon(canvas, xs, ys, 4, {215, 215, 255});
    }
    for (const Cloud& cloud : clouds_) {
      if (cloud.x2 < scroll_ / 2) continue;
      if (cloud.x1 > scroll_ / 2 + kViewportW / kScale) continue;
      int xs[5], ys[5];
      int16_t gx[5], gy[5];
      for (int i = 0; i < 5; ++i) {
        const double x = cloud.poly[i][0] * kScale + scroll_ * kScale / 2;
        const double y = cloud.poly[i][1] * kScale;
        xs[i] = static_cast<int>(x), ys[i] = static_cast<int>(y);
        gx[i] = GfxInt(x), gy[i] = GfxInt(y);
      }
      render2d::draw::Polygon(canvas, xs, ys, 5, {255, 255, 255});
      gfx::AaPolygon(canvas, gx, gy, 5, {255, 255, 255});
    }
    for (int t = 0; t < kTerrainLength - 1; ++t) {
      if (terrain_x_[t + 1] < scroll_) continue;
      if (terrain_x_[t] > scroll_ + kViewportW / kScale) continue;
      const double poly[4][2] = {{terrain_x_[t], terrain_y_[t]},
                                 {terrain_x_[t + 1], terrain_y_[t + 1]},
                                 {terrain_x_[t + 1], 0},
                                 {terrain_x_[t], 0}};
      int xs[4], ys[4];
      int16_t gx[4], gy[4];
      for (int i = 0; i < 4; ++i) {
        const double x = poly[i][0] * kScale, y = poly[i][1] * kScale;
        xs[i] = static_cast<int>(x), ys[i] = static_cast<int>(y);
        gx[i] = GfxInt(x), gy[i] = GfxInt(y);
      }
      render2d::draw::Polygon(canvas, xs, ys, 4, kGroundColor);
      gfx::AaPolygon(canvas, gx, gy, 4, kGroundColor);
    }

    // One lidar ray per frame, sweeping out and back over 20 frames of every 100. Gymnasium
    // moves the sweep on every render() call; here the first Render after a reset or step
    // moves it and a second one redraws the same frame (the pool's contract: drawing again
    // gives the same frame), so frames match whenever each state is rendered at most once.
    if (!swept_since_step_) {
      swept_since_step_ = true;
      lidar_render_ = (lidar_render_ + 1) % 100;
    }
    const int i = lidar_render_;
    if (i < 2 * kLidarCount) {
      const Lidar& lidar = lidar_[i < kLidarCount ? i : 2 * kLidarCount - 1 - i];
      draw::Line(canvas, static_cast<int>(lidar.p1[0] * kScale),
                 static_cast<int>(lidar.p1[1] * kScale), static_cast<int>(lidar.p2[0] * kScale),
                 static_cast<int>(lidar.p2[1] * kScale), {255, 0, 0});
    }

    // drawlist = terrain + legs + [hull]
    for (const TerrainBody& t : terrain_) DrawBody(canvas, t.body, t.color1, t.color2);
    for (int k = 0; k < 4; ++k) {
      const int side = k < 2 ? -1 : +1;
      const render2d::Color color1 = {static_cast<uint8_t>(153 - side * 25),
                                      static_cast<uint8_t>(76 - side * 25),
                                      static_cast<uint8_t>(127 - side * 25)};
      const render2d::Color color2 = {static_cast<uint8_t>(102 - side * 25),
                                      static_cast<uint8_t>(51 - side * 25),
                                      static_cast<uint8_t>(76 - side * 25)};
      DrawBody(canvas, legs_[k], color1, color2);
    }
    DrawBody(canvas, hull_, {127, 51, 229}, {76, 76, 127});

    constexpr double flagy1 = kTerrainHeight * kScale;
    constexpr double flagy2 = flagy1 + 50;
    constexpr double x = kTerrainStep * 3 * kScale;
    draw::AaLine(canvas, static_cast<float>(x), static_cast<float>(flagy1), static_cast<float>(x),
                 static_cast<float>(flagy2), {0, 0, 0});
    const double fx[4] = {x, x, x + 25, x}, fy[4] = {flagy2, flagy2 - 10, flagy2 - 5, flagy2};
    int xs[4], ys[4];
    for (int k = 0; k < 4; ++k) xs[k] = static_cast<int>(fx[k]), ys[k] = static_cast<int>(fy[k]);
    render2d::draw::Polygon(canvas, xs, ys, 3, {230, 51, 0});
    draw::Lines(canvas, xs, ys, 4, /*closed=*/false, {0, 0, 0});

    // [:, -VIEWPORT_W:] of the flipped surface.
    const size_t row_bytes = static_cast<size_t>(width) * 3;
    const size_t surface_row = static_cast<size_t>(surface_w) * 3;
    for (int row = 0; row < height; ++row) {
      std::memcpy(rgb + row * row_bytes,
                  surface_.data() + row * surface_row + surface_row - row_bytes, row_bytes);
    }
  }

 private:
  static constexpr int kFps = 50;
  static constexpr double kScale = 30.0;
  static constexpr int kMotorsTorque = 80;
  static constexpr int kSpeedHip = 4;
  static constexpr int kSpeedKnee = 6;
  static constexpr double kLidarRange = 160 / kScale;
  static constexpr int kLidarCount = 10;
  static constexpr int kInitialRandom = 5;
  static constexpr int kHullPoly[5][2] = {{-30, +9}, {+6, +9}, {+34, +1}, {+34, -8}, {-30, -8}};
  static constexpr double kLegDown = -8 / kScale;
  static constexpr double kLegW = 8 / kScale, kLegH = 34 / kScale;
  static constexpr int kViewportW = 600;
  static constexpr int kViewportH = 400;
  static constexpr double kTerrainStep = 14 / kScale;
  static constexpr int kTerrainLength = 200;  // in steps
  static constexpr double kTerrainHeight = kViewportH / kScale / 4;
  static constexpr int kTerrainGrass = 10;     // low long are grass spots, in steps
  static constexpr int kTerrainStartpad = 20;  // in steps
  static constexpr float kFriction = 2.5f;
  static constexpr render2d::Color kGroundColor = {102, 153, 76};

  // ContactDetector: the hull touching the ground ends the game; the lower legs' ground
  // contact follows their contacts beginning and ending.
  class ContactListener : public b2ContactListener {
   public:
    explicit ContactListener(BipedalWalkerEnv* env) : env_(env) {}
    void BeginContact(b2Contact* contact) override {
      const b2Body* a = contact->GetFixtureA()->GetBody();
      const b2Body* b = contact->GetFixtureB()->GetBody();
      if (env_->hull_ == a || env_->hull_ == b) env_->game_over_ = true;
      for (int k = 0; k < 2; ++k) {
        const b2Body* lower = env_->legs_[2 * k + 1];
        if (lower == a || lower == b) env_->ground_contact_[k] = true;
      }
    }
    void EndContact(b2Contact* contact) override {
      const b2Body* a = contact->GetFixtureA()->GetBody();
      const b2Body* b = contact->GetFixtureB()->GetBody();
      for (int k = 0; k < 2; ++k) {
        const b2Body* lower = env_->legs_[2 * k + 1];
        if (lower == a || lower == b) env_->ground_contact_[k] = false;
      }
    }

   private:
    BipedalWalkerEnv* env_;
  };

  // LidarCallback: skips fixtures outside category 1 (return -1), else records the hit and
  // clips the ray to it (return fraction), so the last report is the closest hit.
  struct Lidar : public b2RayCastCallback {
    float32 ReportFixture(b2Fixture* fixture, const b2Vec2& point, const b2Vec2&,
                          float32 fraction) override {
      if ((fixture->GetFilterData().categoryBits & 1) == 0) return -1;
      p2[0] = point.x, p2[1] = point.y;
      this->fraction = fraction;
      return fraction;
    }
    double fraction = 1.0;
    // p1 is the hull's position; p2 the ray's end as Python computed it (float64) until a hit
    // replaces it with the hit point (float32). The renderer draws p1 -> p2.
    double p1[2] = {0, 0};
    double p2[2] = {0, 0};
  };

  struct TerrainBody {
    b2Body* body;
    render2d::Color color1, color2;
  };

  struct Cloud {
    double poly[5][2];
    double x1, x2;
  };

  // _destroy(): the terrain (in self.terrain's order, which reset reversed), the hull, then
  // the legs, with the contact listener unset so that no EndContact is reported.
  void Destroy() {
    if (terrain_.empty()) return;
    world_.SetContactListener(nullptr);
    for (const TerrainBody& t : terrain_) world_.DestroyBody(t.body);
    terrain_.clear();
    world_.DestroyBody(hull_);
    hull_ = nullptr;
    for (b2Body*& leg : legs_) {
      world_.DestroyBody(leg);
      leg = nullptr;
    }
  }

  b2Body* CreateTerrainPolygon(const double poly[4][2]) {
    b2Vec2 vertices[4];
    for (int i = 0; i < 4; ++i) vertices[i] = Vec(poly[i][0], poly[i][1]);
    b2Body* body = CreateBody(world_, b2_staticBody, Vec(0, 0));
    CreateFixture(body, Polygon(vertices, 4), {.friction = kFriction});
    terrain_.push_back({body, {255, 255, 255}, {153, 153, 153}});
    return body;
  }

  // _generate_terrain(hardcore), draw for draw.
  void GenerateTerrain() {
    enum State : int64_t { kGrass = 0, kStump = 1, kStairs = 2, kPit = 3, kStates = 4 };
    int64_t state = kGrass;
    double velocity = 0.0;
    double y = kTerrainHeight;
    int64_t counter = kTerrainStartpad;
    bool oneshot = false;
    int64_t stair_steps = 0, stair_width = 0, stair_height = 0;
    double original_y = 0;
    for (int i = 0; i < kTerrainLength; ++i) {
      const double x = i * kTerrainStep;
      terrain_x_[i] = x;

      if (state == kGrass && !oneshot) {
        const double towards = kTerrainHeight - y;
        const double sign = towards > 0 ? 1.0 : (towards < 0 ? -1.0 : 0.0);  // np.sign
        velocity = 0.8 * velocity + 0.01 * sign;
        if (i > kTerrainStartpad) velocity += rng().Uniform(-1, 1) / kScale;
        y += velocity;
      } else if (state == kPit && oneshot) {
        counter = rng().Integers(3, 5);
        const double poly[4][2] = {{x, y},
                                   {x + kTerrainStep, y},
                                   {x + kTerrainStep, y - 4 * kTerrainStep},
                                   {x, y - 4 * kTerrainStep}};
        CreateTerrainPolygon(poly);
        double moved[4][2];
        for (int p = 0; p < 4; ++p) {
          moved[p][0] = poly[p][0] + kTerrainStep * static_cast<double>(counter);
          moved[p][1] = poly[p][1];
        }
        CreateTerrainPolygon(moved);
        counter += 2;
        original_y = y;
      } else if (state == kPit && !oneshot) {
        y = original_y;
        if (counter > 1) y -= 4 * kTerrainStep;
      } else if (state == kStump && oneshot) {
        counter = rng().Integers(1, 3);
        const double size = static_cast<double>(counter) * kTerrainStep;
        const double poly[4][2] = {{x, y}, {x + size, y}, {x + size, y + size}, {x, y + size}};
        CreateTerrainPolygon(poly);
      } else if (state == kStairs && oneshot) {
        stair_height = rng().Random() > 0.5 ? +1 : -1;
        stair_width = rng().Integers(4, 5);
        stair_steps = rng().Integers(3, 5);
        original_y = y;
        for (int64_t s = 0; s < stair_steps; ++s) {
          const double poly[4][2] = {
              {x + static_cast<double>(s * stair_width) * kTerrainStep,
               y + static_cast<double>(s * stair_height) * kTerrainStep},
              {x + static_cast<double>((1 + s) * stair_width) * kTerrainStep,
               y + static_cast<double>(s * stair_height) * kTerrainStep},
              {x + static_cast<double>((1 + s) * stair_width) * kTerrainStep,
               y + static_cast<double>(-1 + s * stair_height) * kTerrainStep},
              {x + static_cast<double>(s * stair_width) * kTerrainStep,
               y + static_cast<double>(-1 + s * stair_height) * kTerrainStep}};
          CreateTerrainPolygon(poly);
        }
        counter = stair_steps * stair_width;
      } else if (state == kStairs && !oneshot) {
        const int64_t s = stair_steps * stair_width - counter - stair_height;
        const double n = static_cast<double>(s) / static_cast<double>(stair_width);
        y = original_y + (n * static_cast<double>(stair_height)) * kTerrainStep;
      }

      oneshot = false;
      terrain_y_[i] = y;
      --counter;
      if (counter == 0) {
        counter = rng().Integers(kTerrainGrass / 2, kTerrainGrass);
        if (state == kGrass && hardcore_) {
          state = rng().Integers(1, kStates);  // STUMP, STAIRS or PIT
          oneshot = true;
        } else {
          state = kGrass;
          oneshot = true;
        }
      }
    }

    for (int i = 0; i < kTerrainLength - 1; ++i) {
      b2Body* body = CreateBody(world_, b2_staticBody, Vec(0, 0));
      CreateFixture(
          body, Edge(Vec(terrain_x_[i], terrain_y_[i]), Vec(terrain_x_[i + 1], terrain_y_[i + 1])),
          {.friction = kFriction, .category_bits = 0x0001});
      const render2d::Color color = {76, static_cast<uint8_t>(i % 2 == 0 ? 255 : 204), 76};
      terrain_.push_back({body, color, color});
    }
    std::reverse(terrain_.begin(), terrain_.end());
  }

  // _generate_clouds(): decoration only, but its draws come before the hull's push.
  void GenerateClouds() {
    for (Cloud& cloud : clouds_) {
      const double x = rng().Uniform(0, kTerrainLength) * kTerrainStep;
      constexpr double y = kViewportH / kScale * 3 / 4;
      for (int a = 0; a < 5; ++a) {
        const double px =
            x + 15 * kTerrainStep * std::sin(3.14 * 2 * a / 5) + rng().Uniform(0, 5 * kTerrainStep);
        const double py =
            y + 5 * kTerrainStep * std::cos(3.14 * 2 * a / 5) + rng().Uniform(0, 5 * kTerrainStep);
        cloud.poly[a][0] = px;
        cloud.poly[a][1] = py;
      }
      cloud.x1 = cloud.x2 = cloud.poly[0][0];
      for (int a = 1; a < 5; ++a) {
        cloud.x1 = std::min(cloud.x1, cloud.poly[a][0]);
        cloud.x2 = std::max(cloud.x2, cloud.poly[a][0]);
      }
    }
  }

  // BipedalWalker.step(action) with float32 actions (control_speed = False).
  void Advance(const float* action) {
    swept_since_step_ = false;
    const int speeds[4] = {kSpeedHip, kSpeedKnee, kSpeedHip, kSpeedKnee};
    for (int k = 0; k < 4; ++k) {
      // float(SPEED * np.sign(a)) and float(MOTORS_TORQUE * np.clip(np.abs(a), 0, 1)): float32.
      const float a = action[k];
      const float sign = a > 0 ? 1.0f : (a < 0 ? -1.0f : (a == 0 ? 0.0f : a));
      joints_[k]->SetMotorSpeed(static_cast<float>(speeds[k]) * sign);
      joints_[k]->SetMaxMotorTorque(static_cast<float>(kMotorsTorque) *
                                    std::clamp(std::abs(a), 0.0f, 1.0f));
    }

    world_.Step(F(1.0 / kFps), 6 * 30, 2 * 30);

    const b2Vec2 pos = hull_->GetPosition();
    const b2Vec2 vel = hull_->GetLinearVelocity();
    for (int i = 0; i < kLidarCount; ++i) {
      Lidar& lidar = lidar_[i];
      lidar.fraction = 1.0;
      lidar.p1[0] = pos.x, lidar.p1[1] = pos.y;
      lidar.p2[0] = pos.x + std::sin(1.5 * i / 10.0) * kLidarRange;
      lidar.p2[1] = pos.y - std::cos(1.5 * i / 10.0) * kLidarRange;
      world_.RayCast(&lidar, Vec(lidar.p1[0], lidar.p1[1]), Vec(lidar.p2[0], lidar.p2[1]));
    }

    const double state[14] = {
        hull_->GetAngle(),
        2.0 * hull_->GetAngularVelocity() / kFps,
        0.3 * vel.x * (kViewportW / kScale) / kFps,
        0.3 * vel.y * (kViewportH / kScale) / kFps,
        joints_[0]->GetJointAngle(),
        joints_[0]->GetJointSpeed() / static_cast<double>(kSpeedHip),
        joints_[1]->GetJointAngle() + 1.0,
        joints_[1]->GetJointSpeed() / static_cast<double>(kSpeedKnee),
        ground_contact_[0] ? 1.0 : 0.0,
        joints_[2]->GetJointAngle(),
        joints_[2]->GetJointSpeed() / static_cast<double>(kSpeedHip),
        joints_[3]->GetJointAngle() + 1.0,
        joints_[3]->GetJointSpeed() / static_cast<double>(kSpeedKnee),
        ground_contact_[1] ? 1.0 : 0.0,
    };
    for (int i = 0; i < 14; ++i) obs_[i] = static_cast<float>(state[i]);
    for (int i = 0; i < kLidarCount; ++i) obs_[14 + i] = static_cast<float>(lidar_[i].fraction);

    scroll_ = pos.x - kViewportW / kScale / 5;

    // Moving forward is rewarded (about 300 for reaching the end); keep the head straight.
    double shaping = 130 * static_cast<double>(pos.x) / kScale;
    shaping -= 5.0 * std::abs(state[0]);
    double reward = 0;
    if (has_prev_shaping_) reward = shaping - prev_shaping_;
    prev_shaping_ = shaping;
    has_prev_shaping_ = true;
    // Python float - np.float32 is a float32 (see the top of this file).
    const float cost_per_unit = static_cast<float>(0.00035 * kMotorsTorque);
    float reward32 = static_cast<float>(reward);
    for (int k = 0; k < 4; ++k) {
      reward32 = reward32 - cost_per_unit * std::clamp(std::abs(action[k]), 0.0f, 1.0f);
    }
    reward_ = reward32;

    terminated_ = false;
    if (game_over_ || pos.x < 0) {
      reward_ = -100;
      terminated_ = true;
    }
    if (pos.x > (kTerrainLength - kTerrainGrass) * kTerrainStep) terminated_ = true;
  }

  // One body of the drawlist, as render() draws its fixtures: polygons filled, anti-aliased,
  // and outlined with color2 (the outline path repeats its first vertex); edges as aalines.
  void DrawBody(const render2d::Canvas& canvas, const b2Body* body, render2d::Color color1,
                render2d::Color color2) const {
    namespace gfx = render2d::gfx;
    namespace draw = render2d::draw;
    using render2d::GfxInt;
    for (const b2Fixture* f = body->GetFixtureList(); f; f = f->GetNext()) {
      const b2Transform& t = body->GetTransform();
      if (f->GetType() == b2Shape::e_edge) {
        const auto* edge = static_cast<const b2EdgeShape*>(f->GetShape());
        const b2Vec2 a = ToScreen(t, edge->m_vertex1, F(kScale));
        const b2Vec2 b = ToScreen(t, edge->m_vertex2, F(kScale));
        draw::AaLine(canvas, a.x, a.y, b.x, b.y, color1);
        continue;
      }
      const auto* shape = static_cast<const b2PolygonShape*>(f->GetShape());
      const int n = shape->m_count;
      int xs[b2_maxPolygonVertices + 1], ys[b2_maxPolygonVertices + 1];
      int16_t gx[b2_maxPolygonVertices + 1], gy[b2_maxPolygonVertices + 1];
      for (int i = 0; i < n; ++i) {
        const b2Vec2 v = ToScreen(t, shape->m_vertices[i], F(kScale));
        xs[i] = static_cast<int>(v.x), ys[i] = static_cast<int>(v.y);
        gx[i] = GfxInt(v.x), gy[i] = GfxInt(v.y);
      }
      render2d::draw::Polygon(canvas, xs, ys, n, color1);
      gfx::AaPolygon(canvas, gx, gy, n, color1);
      xs[n] = xs[0], ys[n] = ys[0], gx[n] = gx[0], gy[n] = gy[0];
      draw::Lines(canvas, xs, ys, n + 1, /*closed=*/true, color2);
      gfx::AaPolygon(canvas, gx, gy, n + 1, color2);
    }
  }

  const bool hardcore_;
  b2World world_;
  ContactListener listener_;
  std::vector<TerrainBody> terrain_;
  b2Body* hull_ = nullptr;
  b2Body* legs_[4] = {nullptr, nullptr, nullptr, nullptr};  // leg, lower, leg, lower
  b2RevoluteJoint* joints_[4] = {nullptr, nullptr, nullptr, nullptr};
  bool ground_contact_[2] = {false, false};  // of the two lower legs
  Lidar lidar_[kLidarCount];
  std::array<double, kTerrainLength> terrain_x_{};
  std::array<double, kTerrainLength> terrain_y_{};
  std::array<Cloud, kTerrainLength / 20> clouds_{};
  bool game_over_ = false;
  double prev_shaping_ = 0;
  bool has_prev_shaping_ = false;
  double scroll_ = 0;
  int lidar_render_ = 0;
  bool swept_since_step_ = false;  // whether a Render() has moved the sweep for this state
  float obs_[24] = {};
  std::vector<uint8_t> surface_;  // the wide surface Render draws on
};

}  // namespace envfleet::box2d

#endif  // ENVFLEET_FAMILIES_BOX2D_BIPEDAL_WALKER_H_
