// CarRacing-v3, a port of Gymnasium 1.4.0's gymnasium/envs/box2d/car_racing.py (CarRacing)
// with the car of car_dynamics.py (car_dynamics.h) and the track of _create_track
// (car_racing_track.h), on Box2D 2.3 as pybox2d 2.3.10 runs it.
//
// Options, as Gymnasium's constructor takes them (it validates none of them):
//   continuous            true: Box(3) float32 actions (steer -1..1, gas 0..1, brake 0..1);
//                         false: Discrete(5) (nothing, right, left, gas, brake)
//   domain_randomize      draw road, background and grass colours at every reset
//   lap_complete_percent  the share of tiles to visit before crossing the start ends the lap
// Observation: the 96x96 RGB "state_pixels" frame the reference computes at every step (its
// reset runs one step without an action, which already draws the first frame and starts the
// one-second zoom-in). Render() gives the 600x400 "rgb_array" frame (with skid marks).
//
// Frames: the reference draws on a 1000x800 pygame surface (gfxdraw aapolygon +
// filled_polygon for the field, grass and road; pygame.draw.polygon for the car and the
// indicator bar), flips it and shrinks it with pygame.transform.smoothscale; render2d repeats
// each of those pixel for pixel. Not drawn: the score text the reference prints into the
// bottom-left of the indicator bar (pygame.font: FreeType rendering freesansbold.ttf), which
// has no renderer here; the pixels it covers stay black. Everything else matches.
// Not supported: reset(options={"randomize": False}) (a pool reset takes no options), and the
// info key lap_finished.
#ifndef ENVFLEET_FAMILIES_BOX2D_CAR_RACING_H_
#define ENVFLEET_FAMILIES_BOX2D_CAR_RACING_H_

#include <Box2D/Box2D.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "common/render2d/canvas.h"
#include "common/render2d/draw.h"
#include "common/render2d/geometry.h"
#include "common/render2d/gfxdraw.h"
#include "common/render2d/smoothscale.h"
#include "core/env.h"
#include "core/spec.h"
#include "families/box2d/car_dynamics.h"
#include "families/box2d/car_racing_track.h"

namespace envfleet::box2d {

class CarRacingEnv : public Env, private b2ContactListener {
 public:
  static Config DefaultConfig() {
    return {{"continuous", true}, {"domain_randomize", false}, {"lap_complete_percent", 0.95}};
  }

  static EnvSpec Spec(const Config& config) {
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kUint8, {kStateH, kStateW, 3}, {0.0}, {255.0})};
    if (config.Get<bool>("continuous")) {
      spec.action = Box("action", DType::kFloat32, {3}, {-1.0, 0.0, 0.0}, {1.0, 1.0, 1.0});
    } else {
      spec.action = Discrete("action", 5);
    }
    spec.render = {kVideoW, kVideoH, /*resizable=*/false, /*fps=*/kFps, /*num_cameras=*/0};
    return spec;
  }

  CarRacingEnv(const Config& config, uint64_t seed)
      : Env(seed),
        continuous_(config.Get<bool>("continuous")),
        domain_randomize_(config.Get<bool>("domain_randomize")),
        lap_complete_percent_(config.Get<double>("lap_complete_percent")),
        world_(b2Vec2(0, 0)) {
    // Like the reference, one world lives as long as the env; resets destroy and recreate
    // its bodies. (With domain_randomize the reference's constructor also draws colours from
    // an unseeded generator; every reset draws them again, so they are never seen.)
    world_.SetContactListener(this);
  }

  ~CarRacingEnv() override { world_.SetContactListener(nullptr); }

  void Reset() override {
    DestroyWorldObjects();
    reward_sum_ = 0.0;
    prev_reward_ = 0.0;
    tile_visited_count_ = 0;
    t_ = 0.0;
    new_lap_ = false;
    road_poly_.clear();
    if (domain_randomize_) RandomizeColors();
    while (!CreateTrack()) {
    }
    const car_racing::TrackPoint& start = track_[0];
    car_ = std::make_unique<car_racing::Car>(&world_, start.beta, start.x, start.y);
    StepWorld(nullptr);
    reward_ = 0.0;
    terminated_ = false;
  }

  void Step(const void* action) override { StepWorld(action); }

  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<uint8_t>(0), state_, sizeof(state_));
  }

  void Render(int, int width, int height, uint8_t* rgb) override {
    DrawWindow(/*draw_particles=*/true);
    render2d::SmoothScaleRgb(window_.data(), kWindowW, kWindowH, rgb, width, height, &scratch_);
  }

 private:
  static constexpr int kStateW = 96;
  static constexpr int kStateH = 96;
  static constexpr int kVideoW = 600;
  static constexpr int kVideoH = 400;
  static constexpr int kWindowW = 1000;
  static constexpr int kWindowH = 800;
  static constexpr int kFps = 50;
  static constexpr double kZoom = 2.7;
  static constexpr double kGrassDim = car_racing::kPlayfield / 20.0;
  // The largest diagonal of a drawn shape on screen: polygons with no vertex within this
  // margin of the window are skipped.
  static constexpr double kMaxShapeDim =
      std::max({kGrassDim, car_racing::kTrackWidth, car_racing::kTrackDetailStep}) * M_SQRT2 *
      kZoom * car_racing::kScale;

  // A road tile: a sensor body the contact listener counts visits of.
  struct Tile : car_racing::BodyRole {
    Tile() : BodyRole(kTile) {}
    b2Body* body = nullptr;
    double color[3] = {0, 0, 0};
    bool road_visited = false;
    int idx = 0;
  };

  // One entry of the reference's road_poly: a tile (drawn in its tile's current colour, which
  // a contact resets to the road colour) or a kerb (white or red).
  struct RoadPoly {
    car_racing::Quad quad;
    int tile;  // -1 for a kerb
    render2d::Color color;
  };

  // CarRacing.step: the action (none during reset), the car's forces, one world step, the
  // state frame, and (with an action) the reward and termination.
  void StepWorld(const void* action) {
    if (action != nullptr) {
      if (continuous_) {
        const float* a = static_cast<const float*>(action);
        car_->Steer(-static_cast<double>(a[0]));
        car_->Gas(a[1]);
        car_->Brake(a[2]);
      } else {
        const int64_t a = *static_cast<const int64_t*>(action);
        car_->Steer(-0.6 * (a == 1) + 0.6 * (a == 2));
        car_->Gas(0.2 * (a == 3));
        car_->Brake(0.8 * (a == 4));
      }
    }
    car_->Step(1.0 / kFps);
    world_.Step(static_cast<float>(1.0 / kFps), 6 * 30, 2 * 30);
    t_ += 1.0 / kFps;

    DrawWindow(/*draw_particles=*/false);
    render2d::SmoothScaleRgb(window_.data(), kWindowW, kWindowH, state_, kStateW, kStateH,
                             &scratch_);

    if (action == nullptr) return;
    reward_sum_ -= 0.1;
    double step_reward = reward_sum_ - prev_reward_;
    prev_reward_ = reward_sum_;
    bool terminated = false;
    if (tile_visited_count_ == static_cast<int64_t>(track_.size()) || new_lap_) {
      terminated = true;  // the lap is finished
    }
    const b2Vec2& pos = car_->hull()->GetPosition();
    if (std::abs(double{pos.x}) > car_racing::kPlayfield ||
        std::abs(double{pos.y}) > car_racing::kPlayfield) {
      terminated = true;  // off the playfield
      step_reward = -100;
    }
    reward_ = step_reward;
    terminated_ = terminated;
  }

  // CarRacing._destroy: the road tiles in order, then the car.
  void DestroyWorldObjects() {
    if (tiles_.empty()) return;
    for (Tile& tile : tiles_) world_.DestroyBody(tile.body);
    car_->Destroy();
    tiles_.clear();
    car_.reset();
  }

  // CarRacing._reinit_colors(True).
  void RandomizeColors() {
    for (double& c : road_color_) c = rng().Uniform(0, 210);
    for (double& c : bg_color_) c = rng().Uniform(0, 210);
    std::copy(std::begin(bg_color_), std::end(bg_color_), grass_color_);
    grass_color_[rng().Integers(0, 3)] += 20;
  }

  // One attempt of CarRacing._create_track, with its tiles and road polygons on success.
  bool CreateTrack() {
    std::vector<car_racing::TrackPoint> track;
    std::vector<bool> border;
    if (!car_racing::CreateTrack(rng(), &track, &border)) return false;
    const int n = static_cast<int>(track.size());
    tiles_.resize(n);  // never resized again until the next reset: bodies point into it
    for (int i = 0; i < n; ++i) {
      const car_racing::Quad road = car_racing::RoadTile(track, i);
      // The reference reuses one fixtureDef whose polygon gets these vertices (pybox2d sets them
      // through b2PolygonShape::Set, in float32).
      b2Vec2 vertices[4];
      for (int k = 0; k < 4; ++k) {
        vertices[k].Set(static_cast<float>(road.x[k]), static_cast<float>(road.y[k]));
      }
      b2PolygonShape shape;
      shape.Set(vertices, 4);
      b2FixtureDef fixture;
      fixture.shape = &shape;
      b2BodyDef def;  // static, at the origin
      Tile& tile = tiles_[i];
      tile.body = world_.CreateBody(&def);
      tile.body->CreateFixture(&fixture);
      tile.body->SetUserData(static_cast<car_racing::BodyRole*>(&tile));
      const double c = 0.01 * (i % 3) * 255;
      for (int k = 0; k < 3; ++k) tile.color[k] = road_color_[k] + c;
      tile.road_visited = false;
      tile.idx = i;
      tile.body->GetFixtureList()->SetSensor(true);
      road_poly_.push_back({road, i, {}});
      if (border[i]) {
        const render2d::Color kerb =
            i % 2 == 0 ? render2d::Color{255, 255, 255} : render2d::Color{255, 0, 0};
        road_poly_.push_back({car_racing::BorderTile(track, i), -1, kerb});
      }
    }
    track_ = std::move(track);
    return true;
  }

  // FrictionDetector: a tile touched by anything takes the road colour; a wheel entering a
  // tile counts it, and the first visit of each tile pays 1000 / N.
  void BeginContact(b2Contact* contact) override { OnContact(contact, true); }
  void EndContact(b2Contact* contact) override { OnContact(contact, false); }

  void OnContact(b2Contact* contact, bool begin) {
    using car_racing::BodyRole;
    auto* u1 = static_cast<BodyRole*>(contact->GetFixtureA()->GetBody()->GetUserData());
    auto* u2 = static_cast<BodyRole*>(contact->GetFixtureB()->GetBody()->GetUserData());
    Tile* tile = nullptr;
    BodyRole* obj = nullptr;
    if (u1 != nullptr && u1->kind == BodyRole::kTile) {
      tile = static_cast<Tile*>(u1);
      obj = u2;
    }
    if (u2 != nullptr && u2->kind == BodyRole::kTile) {
      tile = static_cast<Tile*>(u2);
      obj = u1;
    }
    if (tile == nullptr) return;
    std::copy(std::begin(road_color_), std::end(road_color_), tile->color);
    if (obj == nullptr || obj->kind != BodyRole::kWheel) return;
    auto* wheel = static_cast<car_racing::Wheel*>(obj);
    if (!begin) {
      --wheel->tiles;
      return;
    }
    ++wheel->tiles;
    if (tile->road_visited) return;
    tile->road_visited = true;
    const double n = static_cast<double>(track_.size());
    reward_sum_ += 1000.0 / n;
    ++tile_visited_count_;
    // The lap counts once enough of the track was covered.
    if (tile->idx == 0 && static_cast<double>(tile_visited_count_) / n > lap_complete_percent_) {
      new_lap_ = true;
    }
  }

  static render2d::Color ToColor(const double* rgb) {
    // gfxdraw reads each channel through int().
    return {static_cast<uint8_t>(static_cast<long>(rgb[0])),
            static_cast<uint8_t>(static_cast<long>(rgb[1])),
            static_cast<uint8_t>(static_cast<long>(rgb[2]))};
  }

  // CarRacing._draw_colored_polygon: rotate, zoom and move the polygon, skip it when no
  // vertex is near the window (unless clip is false), else gfxdraw aapolygon + filled_polygon.
  static void DrawColoredPolygon(const render2d::Canvas& canvas, const car_racing::View& view,
                                 const double* px, const double* py, render2d::Color color,
                                 bool clip = true) {
    int16_t xs[4], ys[4];
    bool near = !clip;
    for (int k = 0; k < 4; ++k) {
      const render2d::Vec2 p = view.ToScreen(px[k], py[k]);
      near = near || (-kMaxShapeDim <= p.x && p.x <= kWindowW + kMaxShapeDim &&
                      -kMaxShapeDim <= p.y && p.y <= kWindowH + kMaxShapeDim);
      xs[k] = render2d::GfxInt(p.x);
      ys[k] = render2d::GfxInt(p.y);
    }
    if (!near) return;
    render2d::gfx::AaPolygon(canvas, xs, ys, 4, color);
    render2d::gfx::FilledPolygon(canvas, xs, ys, 4, color);
  }

  // CarRacing._render up to the smoothscale, into window_: the field, grass, road and car on
  // the flipped surface, then the indicator bar.
  void DrawWindow(bool draw_particles) {
    window_.resize(static_cast<size_t>(kWindowW) * kWindowH * 3);
    const render2d::Canvas world(window_.data(), kWindowW, kWindowH, /*flip_y=*/true);
    world.Fill({0, 0, 0});

    const b2Body* hull = car_->hull();
    const double angle = -static_cast<double>(hull->GetAngle());
    // The zoom-in of the first second.
    const double zoom = 0.1 * car_racing::kScale * std::max(1 - t_, 0.0) +
                        kZoom * car_racing::kScale * std::min(t_, 1.0);
    const double scroll_x = -static_cast<double>(hull->GetPosition().x) * zoom;
    const double scroll_y = -static_cast<double>(hull->GetPosition().y) * zoom;
    const render2d::Vec2 trans = render2d::RotateRad({scroll_x, scroll_y}, angle);
    const car_racing::View view{zoom, kWindowW / 2 + trans.x, kWindowH / 4 + trans.y, angle};

    // _render_road: the background, the grass patches, the road.
    const double b = car_racing::kPlayfield;
    const double field_x[4] = {b, b, -b, -b}, field_y[4] = {b, -b, -b, b};
    DrawColoredPolygon(world, view, field_x, field_y, ToColor(bg_color_), /*clip=*/false);
    const render2d::Color grass = ToColor(grass_color_);
    for (int x = -20; x < 20; x += 2) {
      for (int y = -20; y < 20; y += 2) {
        const double gx[4] = {kGrassDim * x + kGrassDim, kGrassDim * x + 0, kGrassDim * x + 0,
                              kGrassDim * x + kGrassDim};
        const double gy[4] = {kGrassDim * y + 0, kGrassDim * y + 0, kGrassDim * y + kGrassDim,
                              kGrassDim * y + kGrassDim};
        DrawColoredPolygon(world, view, gx, gy, grass);
      }
    }
    for (const RoadPoly& poly : road_poly_) {
      const render2d::Color color = poly.tile >= 0 ? ToColor(tiles_[poly.tile].color) : poly.color;
      DrawColoredPolygon(world, view, poly.quad.x, poly.quad.y, color);
    }
    car_->Draw(world, view, draw_particles);

    DrawIndicators(render2d::Canvas(window_.data(), kWindowW, kWindowH));
  }

  // CarRacing._render_indicators on the flipped surface: speed, the four wheels' angular
  // speeds, steering and the hull's angular velocity as bars.
  void DrawIndicators(const render2d::Canvas& screen) const {
    constexpr int W = kWindowW, H = kWindowH;
    const double s = W / 40.0;
    const double h = H / 40.0;
    const auto polygon = [&](const double (&pts)[4][2], render2d::Color color) {
      int xs[4], ys[4];
      for (int k = 0; k < 4; ++k) {
        xs[k] = static_cast<int>(pts[k][0]);
        ys[k] = static_cast<int>(pts[k][1]);
      }
      render2d::draw::Polygon(screen, xs, ys, 4, color);
    };
    polygon({{W, H}, {W, H - 5 * h}, {0, H - 5 * h}, {0, H}}, {0, 0, 0});
    const auto vertical_ind = [&](double value, int place, double val, render2d::Color color) {
      if (!(std::abs(value) > 1e-4)) return;
      polygon({{place * s, H - (h + h * val)},
               {(place + 1) * s, H - (h + h * val)},
               {(place + 1) * s, H - h},
               {(place + 0) * s, H - h}},
              color);
    };
    const auto horiz_ind = [&](double value, int place, double val, render2d::Color color) {
      if (!(std::abs(value) > 1e-4)) return;
      polygon({{(place + 0) * s, H - 4 * h},
               {(place + val) * s, H - 4 * h},
               {(place + val) * s, H - 2 * h},
               {(place + 0) * s, H - 2 * h}},
              color);
    };
    const b2Body* hull = car_->hull();
    const double vx = hull->GetLinearVelocity().x, vy = hull->GetLinearVelocity().y;
    const double true_speed = std::sqrt(vx * vx + vy * vy);
    const auto& wheels = car_->wheels();
    vertical_ind(true_speed, 5, 0.02 * true_speed, {255, 255, 255});
    // ABS sensors
    vertical_ind(wheels[0].omega, 7, 0.01 * wheels[0].omega, {0, 0, 255});
    vertical_ind(wheels[1].omega, 8, 0.01 * wheels[1].omega, {0, 0, 255});
    vertical_ind(wheels[2].omega, 9, 0.01 * wheels[2].omega, {51, 0, 255});
    vertical_ind(wheels[3].omega, 10, 0.01 * wheels[3].omega, {51, 0, 255});
    const double steering = wheels[0].joint->GetJointAngle();
    horiz_ind(steering, 20, -10.0 * steering, {0, 255, 0});
    const double spin = hull->GetAngularVelocity();
    horiz_ind(spin, 30, -0.8 * spin, {255, 0, 0});
  }

  const bool continuous_;
  const bool domain_randomize_;
  const double lap_complete_percent_;

  b2World world_;
  std::vector<Tile> tiles_;
  std::unique_ptr<car_racing::Car> car_;
  std::vector<car_racing::TrackPoint> track_;
  std::vector<RoadPoly> road_poly_;

  // The reference's default colours (domain_randomize draws new ones at each reset).
  double road_color_[3] = {102, 102, 102};
  double bg_color_[3] = {102, 204, 102};
  double grass_color_[3] = {102, 230, 102};

  double reward_sum_ = 0.0;  // the reference's self.reward
  double prev_reward_ = 0.0;
  int64_t tile_visited_count_ = 0;
  double t_ = 0.0;
  bool new_lap_ = false;

  uint8_t state_[kStateH * kStateW * 3] = {};
  std::vector<uint8_t> window_;   // the 1000x800 surface
  std::vector<uint8_t> scratch_;  // smoothscale's intermediate rows
};

}  // namespace envfleet::box2d

#endif  // ENVFLEET_FAMILIES_BOX2D_CAR_RACING_H_
