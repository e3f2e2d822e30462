// CarRacing's car, a port of Gymnasium 1.4.0's gymnasium/envs/box2d/car_dynamics.py (Car):
// a hull of four polygons and four wheels on revolute joints, with the reference's own
// top-down tyre model (engine torque on the rear wheels, brakes, a friction limit that is
// lower on grass, skid marks) applied as forces before each world step.
//
// Box2D is the box2d-py 2.3.8 tree pybox2d wraps (box2d.cmake), so the engine's float32
// arithmetic is the same; the tyre model is Python float64 arithmetic on values read from
// Box2D (float32 widened), written here in the reference's order. What pybox2d adds and a port
// must repeat: polygon vertices go through b2PolygonShape::Set (which reorders them into their
// convex hull), a revolute joint's referenceAngle is bodyB.angle - bodyA.angle, a body's
// fixtures are listed newest first, and `body.position` is a live view of the body's position
// (so a skid mark started from it one step later begins where the wheel is then).
#ifndef ENVFLEET_FAMILIES_BOX2D_CAR_DYNAMICS_H_
#define ENVFLEET_FAMILIES_BOX2D_CAR_DYNAMICS_H_

#include <Box2D/Box2D.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "common/render2d/canvas.h"
#include "common/render2d/draw.h"
#include "common/render2d/geometry.h"

namespace envfleet::box2d::car_racing {

inline constexpr double kSize = 0.02;
inline constexpr double kEnginePower = 100000000 * kSize * kSize;
inline constexpr double kWheelMomentOfInertia = 4000 * kSize * kSize;
// friction ~= mass ~= size^2 (the reference computes it implicitly through the density)
inline constexpr double kFrictionLimit = 1000000 * kSize * kSize;
inline constexpr int kWheelR = 27;
inline constexpr int kWheelW = 14;
inline constexpr render2d::Color kWheelColor = {0, 0, 0};
inline constexpr render2d::Color kWheelWhite = {77, 77, 77};
inline constexpr render2d::Color kMudColor = {102, 102, 0};
// int(c * 255) of the hull's (0.8, 0.0, 0.0).
inline constexpr render2d::Color kHullColor = {204, 0, 0};

// What a body's user data points at, so that the contact listener can tell road tiles from
// wheels (the reference looks for a `road_friction` or `tiles` attribute). The hull has none.
struct BodyRole {
  enum Kind : uint8_t { kTile, kWheel };
  explicit BodyRole(Kind k) : kind(k) {}
  Kind kind;
};

// A skid mark: a polyline of wheel positions, drawn in rgb_array frames only.
struct Particle {
  render2d::Color color;
  std::vector<std::pair<double, double>> poly;
  bool grass;
};

struct Wheel : BodyRole {
  Wheel() : BodyRole(kWheel) {}
  b2Body* body = nullptr;
  b2RevoluteJoint* joint = nullptr;
  double wheel_rad = 0;
  double gas = 0, brake = 0, steer = 0;
  double phase = 0;  // wheel angle
  double omega = 0;  // angular velocity
  // skid_start is the reference's live view of this wheel's position, so only whether it is
  // set matters.
  bool skid_start = false;
  std::shared_ptr<Particle> skid_particle;
  int tiles = 0;  // road tiles touching the wheel (the reference's `tiles` set)
};

// Where a world point lands on the 1000x800 surface: pygame's Vector2.rotate_rad(angle), then
// scaled by zoom and moved by the translation, in float64 as the reference computes it.
struct View {
  double zoom, tx, ty, angle;
  render2d::Vec2 ToScreen(double x, double y) const {
    const render2d::Vec2 r = render2d::RotateRad({x, y}, angle);
    return {r.x * zoom + tx, r.y * zoom + ty};
  }
};

class Car {
 public:
  Car(b2World* world, double init_angle, double init_x, double init_y) : world_(world) {
    static constexpr int kHullPoly1[4][2] = {{-60, +130}, {+60, +130}, {+60, +110}, {-60, +110}};
    static constexpr int kHullPoly2[4][2] = {{-15, +120}, {+15, +120}, {+20, +20}, {-20, 20}};
    static constexpr int kHullPoly3[8][2] = {{+25, +20}, {+50, -10}, {+50, -40}, {+20, -90},
                                             {-20, -90}, {-50, -40}, {-50, -10}, {-25, +20}};
    static constexpr int kHullPoly4[4][2] = {{-50, -120}, {+50, -120}, {+50, -90}, {-50, -90}};
    static constexpr int kWheelPos[4][2] = {{-55, +80}, {+55, +80}, {-55, -82}, {+55, -82}};

    b2BodyDef hull_def;
    hull_def.type = b2_dynamicBody;
    hull_def.position.Set(static_cast<float>(init_x), static_cast<float>(init_y));
    hull_def.angle = static_cast<float>(init_angle);
    hull_ = world_->CreateBody(&hull_def);
    const auto add_hull_part = [this](const int (*poly)[2], int n) {
      b2Vec2 vertices[b2_maxPolygonVertices];
      for (int i = 0; i < n; ++i) {
        vertices[i].Set(static_cast<float>(poly[i][0] * kSize),
                        static_cast<float>(poly[i][1] * kSize));
      }
      b2PolygonShape shape;
      shape.Set(vertices, n);
      b2FixtureDef fixture;
      fixture.shape = &shape;
      fixture.density = 1.0f;
      hull_->CreateFixture(&fixture);
    };
    add_hull_part(kHullPoly1, 4);
    add_hull_part(kHullPoly2, 4);
    add_hull_part(kHullPoly3, 8);
    add_hull_part(kHullPoly4, 4);

    const int wheel_poly[4][2] = {
        {-kWheelW, +kWheelR}, {+kWheelW, +kWheelR}, {+kWheelW, -kWheelR}, {-kWheelW, -kWheelR}};
    for (int k = 0; k < 4; ++k) {
      const int wx = kWheelPos[k][0], wy = kWheelPos[k][1];
      const double front_k = 1.0;
      b2BodyDef def;
      def.type = b2_dynamicBody;
      def.position.Set(static_cast<float>(init_x + wx * kSize),
                       static_cast<float>(init_y + wy * kSize));
      def.angle = static_cast<float>(init_angle);
      Wheel& w = wheels_[k];
      w.body = world_->CreateBody(&def);
      b2Vec2 vertices[4];
      for (int i = 0; i < 4; ++i) {
        vertices[i].Set(static_cast<float>(wheel_poly[i][0] * front_k * kSize),
                        static_cast<float>(wheel_poly[i][1] * front_k * kSize));
      }
      b2PolygonShape shape;
      shape.Set(vertices, 4);
      b2FixtureDef fixture;
      fixture.shape = &shape;
      fixture.density = static_cast<float>(0.1);
      fixture.filter.categoryBits = 0x0020;
      fixture.filter.maskBits = 0x001;
      fixture.restitution = 0.0f;
      w.body->CreateFixture(&fixture);
      w.wheel_rad = front_k * kWheelR * kSize;

      b2RevoluteJointDef joint;
      joint.bodyA = hull_;
      joint.bodyB = w.body;
      // pybox2d's revoluteJointDef: referenceAngle = bodyB.angle - bodyA.angle (in float64)
      joint.referenceAngle = static_cast<float>(static_cast<double>(w.body->GetAngle()) -
                                                static_cast<double>(hull_->GetAngle()));
      joint.localAnchorA.Set(static_cast<float>(wx * kSize), static_cast<float>(wy * kSize));
      joint.localAnchorB.Set(0, 0);
      joint.enableMotor = true;
      joint.enableLimit = true;
      joint.maxMotorTorque = static_cast<float>(180 * 900 * kSize * kSize);
      joint.motorSpeed = 0;
      joint.lowerAngle = static_cast<float>(-0.4);
      joint.upperAngle = static_cast<float>(+0.4);
      w.joint = static_cast<b2RevoluteJoint*>(world_->CreateJoint(&joint));
      w.body->SetUserData(static_cast<BodyRole*>(&w));
    }
  }

  Car(const Car&) = delete;
  Car& operator=(const Car&) = delete;

  // Car.destroy: the hull, then the wheels (Box2D ends their contacts, which calls the
  // contact listener, so the wheels must still exist while this runs).
  void Destroy() {
    world_->DestroyBody(hull_);
    hull_ = nullptr;
    for (Wheel& w : wheels_) {
      world_->DestroyBody(w.body);
      w.body = nullptr;
      w.joint = nullptr;
    }
  }

  // Car.gas: rear-wheel drive; the throttle rises by at most 0.1 a step but drops at once.
  void Gas(double gas) {
    gas = std::clamp(gas, 0.0, 1.0);
    for (int k = 2; k < 4; ++k) {
      double diff = gas - wheels_[k].gas;
      if (diff > 0.1) diff = 0.1;
      wheels_[k].gas += diff;
    }
  }

  void Brake(double b) {
    for (Wheel& w : wheels_) w.brake = b;
  }

  // The front wheels' target steering angle.
  void Steer(double s) {
    wheels_[0].steer = s;
    wheels_[1].steer = s;
  }

  // Car.step: the steering motors, engine, brakes and tyre forces of each wheel.
  void Step(double dt) {
    for (Wheel& w : wheels_) {
      const double joint_angle = w.joint->GetJointAngle();
      const double dir = Sign(w.steer - joint_angle);
      const double val = std::abs(w.steer - joint_angle);
      w.joint->SetMotorSpeed(static_cast<float>(dir * std::min(50.0 * val, 3.0)));

      // Grass friction unless a road tile is under the wheel (every tile's road_friction is
      // 1.0, so the limit is then FRICTION_LIMIT).
      const bool grass = w.tiles == 0;
      const double friction_limit = grass ? kFrictionLimit * 0.6 : kFrictionLimit;

      const b2Vec2 forw = w.body->GetWorldVector(b2Vec2(0, 1));
      const b2Vec2 side = w.body->GetWorldVector(b2Vec2(1, 0));
      const b2Vec2 v = w.body->GetLinearVelocity();
      const double vf = double{forw.x} * v.x + double{forw.y} * v.y;  // forward speed
      const double vs = double{side.x} * v.x + double{side.y} * v.y;  // side speed

      // Engine power into wheel speed, with a small term that keeps it from dividing by zero.
      w.omega += dt * kEnginePower * w.gas / kWheelMomentOfInertia / (std::abs(w.omega) + 5.0);

      if (w.brake >= 0.9) {
        w.omega = 0;
      } else if (w.brake > 0) {
        const double brake_force = 15;  // radians per second
        const double brake_dir = -Sign(w.omega);
        double brake_val = brake_force * w.brake;
        if (std::abs(brake_val) > std::abs(w.omega)) brake_val = std::abs(w.omega);
        w.omega += brake_dir * brake_val;
      }
      w.phase += w.omega * dt;

      const double vr = w.omega * w.wheel_rad;  // the rim's speed
      double f_force = -vf + vr;                // force along the speed difference
      double p_force = -vs;
      // The reference's coefficient that damps oscillations within a few steps.
      f_force *= 205000 * kSize * kSize;
      p_force *= 205000 * kSize * kSize;
      double force = std::sqrt(f_force * f_force + p_force * p_force);

      // Skid marks.
      if (std::abs(force) > 2.0 * friction_limit) {
        const b2Vec2& pos = w.body->GetPosition();
        if (w.skid_particle && w.skid_particle->grass == grass &&
            w.skid_particle->poly.size() < 30) {
          w.skid_particle->poly.emplace_back(pos.x, pos.y);
        } else if (!w.skid_start) {
          w.skid_start = true;
        } else {
          // The start is the live position: the same point as the end.
          w.skid_particle = CreateParticle(pos, pos, grass);
          w.skid_start = false;
        }
      } else {
        w.skid_start = false;
        w.skid_particle = nullptr;
      }

      if (std::abs(force) > friction_limit) {
        f_force /= force;
        p_force /= force;
        force = friction_limit;
        f_force *= force;
        p_force *= force;
      }

      w.omega -= dt * f_force * w.wheel_rad / kWheelMomentOfInertia;

      w.body->ApplyForceToCenter(b2Vec2(static_cast<float>(p_force * side.x + f_force * forw.x),
                                        static_cast<float>(p_force * side.y + f_force * forw.y)),
                                 true);
    }
  }

  // Car.draw on the (unflipped) window surface: skid marks when asked, then each wheel and the
  // hull, fixture by fixture in pybox2d's order, with pygame.draw.polygon, and the rolling
  // white stripe of each wheel.
  void Draw(const render2d::Canvas& canvas, const View& view, bool draw_particles) const {
    std::vector<int> xs, ys;
    const auto to_screen = [&](double x, double y) {
      const render2d::Vec2 p = view.ToScreen(x, y);
      xs.push_back(static_cast<int>(p.x));  // pg_IntFromObj: (int) of the float
      ys.push_back(static_cast<int>(p.y));
    };
    if (draw_particles) {
      for (const auto& p : particles_) {
        xs.clear(), ys.clear();
        for (const auto& [x, y] : p->poly) to_screen(x, y);
        render2d::draw::LinesWidth(canvas, xs.data(), ys.data(), static_cast<int>(xs.size()),
                                   /*closed=*/false, /*width=*/2, p->color);
      }
    }
    const auto draw_body = [&](const b2Body* body, render2d::Color color, const Wheel* wheel) {
      const b2Transform& xf = body->GetTransform();
      for (const b2Fixture* f = body->GetFixtureList(); f; f = f->GetNext()) {
        const auto* shape = static_cast<const b2PolygonShape*>(f->GetShape());
        xs.clear(), ys.clear();
        for (int i = 0; i < shape->m_count; ++i) {
          const b2Vec2 v = b2Mul(xf, shape->m_vertices[i]);
          to_screen(v.x, v.y);
        }
        render2d::draw::Polygon(canvas, xs.data(), ys.data(), static_cast<int>(xs.size()), color);
        if (!wheel) continue;
        const double a1 = wheel->phase;
        const double a2 = wheel->phase + 1.2;  // radians
        const double s1 = std::sin(a1), s2 = std::sin(a2);
        double c1 = std::cos(a1), c2 = std::cos(a2);
        if (s1 > 0 && s2 > 0) continue;
        if (s1 > 0) c1 = Sign(c1);
        if (s2 > 0) c2 = Sign(c2);
        const double hw = -kWheelW * kSize;  // (-WHEEL_W * SIZE), and +WHEEL_W * SIZE below
        const double stripe[4][2] = {{hw, kWheelR * c1 * kSize},
                                     {+kWheelW * kSize, kWheelR * c1 * kSize},
                                     {+kWheelW * kSize, kWheelR * c2 * kSize},
                                     {hw, kWheelR * c2 * kSize}};
        xs.clear(), ys.clear();
        for (const auto& corner : stripe) {
          const b2Vec2 v =
              b2Mul(xf, b2Vec2(static_cast<float>(corner[0]), static_cast<float>(corner[1])));
          to_screen(v.x, v.y);
        }
        render2d::draw::Polygon(canvas, xs.data(), ys.data(), 4, kWheelWhite);
      }
    };
    for (const Wheel& w : wheels_) draw_body(w.body, kWheelColor, &w);
    draw_body(hull_, kHullColor, nullptr);
  }

  const b2Body* hull() const { return hull_; }
  const std::array<Wheel, 4>& wheels() const { return wheels_; }

 private:
  static double Sign(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }

  // Car._create_particle; the deque keeps the 30 newest marks (deque(maxlen=30)).
  std::shared_ptr<Particle> CreateParticle(const b2Vec2& p1, const b2Vec2& p2, bool grass) {
    auto p = std::make_shared<Particle>();
    p->color = grass ? kMudColor : kWheelColor;
    p->poly = {{p1.x, p1.y}, {p2.x, p2.y}};
    p->grass = grass;
    particles_.push_back(p);
    if (particles_.size() > 30) particles_.pop_front();
    return p;
  }

  b2World* world_;
  b2Body* hull_ = nullptr;
  std::array<Wheel, 4> wheels_;
  std::deque<std::shared_ptr<Particle>> particles_;
};

}  // namespace envfleet::box2d::car_racing

#endif  // ENVFLEET_FAMILIES_BOX2D_CAR_DYNAMICS_H_
