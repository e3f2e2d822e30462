// What pybox2d (the `box2d` 2.3.10 wheel Gymnasium uses) does around Box2D's C++ API, for the
// ports of Gymnasium's Box2D envs. The envs are written against Box2D directly; these helpers
// repeat the few places where pybox2d's Python layer adds arithmetic or picks values:
//   - every Python number reaches Box2D through SWIG as float32 (Vec, F): Gymnasium's
//     arithmetic is float64 up to that point, then rounded once;
//   - revoluteJointDef(bodyA=..., bodyB=...) sets referenceAngle to bodyB.angle - bodyA.angle
//     unless given (Box2D's own default is 0);
//   - polygonShape(vertices=...) and shape.vertices = ... call b2PolygonShape::Set (hull,
//     centroid, normals), polygonShape(box=...) calls SetAsBox, edgeShape(vertices=[a, b])
//     sets the two vertices without ghost vertices (b2EdgeShape::Set);
//   - `transform * vertex * SCALE` (how the renderers place vertices) is float32 arithmetic.
#ifndef ENVFLEET_FAMILIES_BOX2D_PYBOX2D_H_
#define ENVFLEET_FAMILIES_BOX2D_PYBOX2D_H_

#include <Box2D/Box2D.h>

#include <cstdint>

namespace envfleet::box2d {

// A Python float handed to a float32 parameter.
inline float F(double x) { return static_cast<float>(x); }

// A Python (x, y) pair handed to a b2Vec2 parameter.
inline b2Vec2 Vec(double x, double y) { return b2Vec2(F(x), F(y)); }

// world.CreateBody(type=..., position=..., angle=...): pybox2d fills a b2BodyDef from the
// keyword arguments and creates the body, then its fixtures (CreateFixture, in order).
inline b2Body* CreateBody(b2World& world, b2BodyType type, b2Vec2 position, float angle = 0.0f) {
  b2BodyDef def;
  def.type = type;
  def.position = position;
  def.angle = angle;
  return world.CreateBody(&def);
}

// fixtureDef(shape=..., density=..., friction=..., restitution=..., categoryBits=...,
// maskBits=...) over Box2D's defaults (friction 0.2, density 0, restitution 0, category 1,
// mask 0xFFFF), which pybox2d keeps.
struct FixtureSpec {
  float density = 0.0f;
  float friction = 0.2f;
  float restitution = 0.0f;
  uint16_t category_bits = 0x0001;
  uint16_t mask_bits = 0xFFFF;
};

inline b2Fixture* CreateFixture(b2Body* body, const b2Shape& shape, const FixtureSpec& spec) {
  b2FixtureDef def;
  def.shape = &shape;
  def.density = spec.density;
  def.friction = spec.friction;
  def.restitution = spec.restitution;
  def.filter.categoryBits = spec.category_bits;
  def.filter.maskBits = spec.mask_bits;
  return body->CreateFixture(&def);
}

// polygonShape(vertices=[...]) / shape.vertices = [...]: b2PolygonShape::Set over the float32
// vertices (it welds near duplicates and reorders them into a counter-clockwise hull, which is
// the order the renderers draw them in).
inline b2PolygonShape Polygon(const b2Vec2* vertices, int count) {
  b2PolygonShape shape;
  shape.Set(vertices, count);
  return shape;
}

// polygonShape(box=(hx, hy)).
inline b2PolygonShape Box(float half_width, float half_height) {
  b2PolygonShape shape;
  shape.SetAsBox(half_width, half_height);
  return shape;
}

// edgeShape(vertices=[a, b]): vertex1 and vertex2, hasVertex0 = hasVertex3 = False.
inline b2EdgeShape Edge(b2Vec2 a, b2Vec2 b) {
  b2EdgeShape shape;
  shape.Set(a, b);
  return shape;
}

// revoluteJointDef(bodyA=a, bodyB=b, localAnchorA=..., localAnchorB=..., enableMotor=True,
// enableLimit=True, maxMotorTorque=..., motorSpeed=..., lowerAngle=..., upperAngle=...), as
// Gymnasium's envs build them; referenceAngle comes from the bodies as pybox2d sets it. The
// difference is exact in float64 and rounded once, which is float32 subtraction.
struct RevoluteSpec {
  b2Vec2 local_anchor_a;
  b2Vec2 local_anchor_b;
  float max_motor_torque;
  float motor_speed;
  float lower_angle;
  float upper_angle;
};

inline b2RevoluteJoint* CreateRevoluteJoint(b2World& world, b2Body* a, b2Body* b,
                                            const RevoluteSpec& spec) {
  b2RevoluteJointDef def;
  def.bodyA = a;
  def.bodyB = b;
  def.localAnchorA = spec.local_anchor_a;
  def.localAnchorB = spec.local_anchor_b;
  def.referenceAngle = b->GetAngle() - a->GetAngle();
  def.enableMotor = true;
  def.enableLimit = true;
  def.maxMotorTorque = spec.max_motor_torque;
  def.motorSpeed = spec.motor_speed;
  def.lowerAngle = spec.lower_angle;
  def.upperAngle = spec.upper_angle;
  return static_cast<b2RevoluteJoint*>(world.CreateJoint(&def));
}

// `body.transform * vertex * SCALE` in pybox2d: b2Transform.__mul__ then b2Vec2.__mul__, both
// float32, in this order of operations.
inline b2Vec2 ToScreen(const b2Transform& t, b2Vec2 v, float scale) {
  const float x = (t.q.c * v.x - t.q.s * v.y) + t.p.x;
  const float y = (t.q.s * v.x + t.q.c * v.y) + t.p.y;
  return b2Vec2(x * scale, y * scale);
}

}  // namespace envfleet::box2d

#endif  // ENVFLEET_FAMILIES_BOX2D_PYBOX2D_H_
