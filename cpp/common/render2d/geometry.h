// The small pieces of pygame that turn a reference's float geometry into pixel coordinates:
// pygame.math.Vector2(...).rotate_rad(angle) and the number conversions pygame applies to the
// arguments of gfxdraw and draw.
#ifndef ENVFLEET_COMMON_RENDER2D_GEOMETRY_H_
#define ENVFLEET_COMMON_RENDER2D_GEOMETRY_H_

#include <cmath>
#include <cstdint>

namespace envfleet::render2d {

struct Vec2 {
  double x = 0, y = 0;
};

// pygame.math.Vector2(v).rotate_rad(angle) (math.c: _vector2_rotate_helper): the angle is
// reduced with fmod into [0, 2 pi); within 1e-6 (the vector's epsilon) of a multiple of pi / 2
// the rotation is exact (coordinates swapped / negated), otherwise it is
// (cos a * x - sin a * y, sin a * x + cos a * y) with libm sin and cos of the reduced angle.
inline Vec2 RotateRad(Vec2 v, double angle) {
  constexpr double kTwoPi = 2. * M_PI;
  constexpr double kHalfPi = M_PI / 2.0;
  constexpr double kEpsilon = 1e-6;
  angle = std::fmod(angle, kTwoPi);
  if (angle < 0) angle += kTwoPi;
  if (std::fmod(angle + kEpsilon, kHalfPi) < 2 * kEpsilon) {
    switch (static_cast<int>((angle + kEpsilon) / kHalfPi)) {
      case 1:
        return {-v.y, v.x};
      case 2:
        return {-v.x, -v.y};
      case 3:
        return {v.y, -v.x};
      default:  // 0 or 4 (2 pi)
        return v;
    }
  }
  const double s = std::sin(angle);
  const double c = std::cos(angle);
  return {c * v.x - s * v.y, s * v.x + c * v.y};
}

// Python's int(x) for a float: truncation towards zero.
inline long PyInt(double x) { return static_cast<long>(x); }

// What pygame.gfxdraw makes of a Python number (gfxdraw.c: Sint16FromObj): int() and then a
// C cast to Sint16 (which wraps, as there, for values beyond +-32767).
inline int16_t GfxInt(double x) { return static_cast<int16_t>(PyInt(x)); }

}  // namespace envfleet::render2d

#endif  // ENVFLEET_COMMON_RENDER2D_GEOMETRY_H_
