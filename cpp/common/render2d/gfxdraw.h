// pygame.gfxdraw as pygame 2.6.1 runs it: SDL_gfx 2.0.x (src_c/SDL_gfx/SDL_gfxPrimitives.c)
// on a surface whose clip rectangle is the whole surface. Coordinates are Sint16, as there:
// pygame converts each Python number with int() (truncation towards zero) and then to Sint16
// (GfxInt in geometry.h). Each function names the SDL_gfx routine whose arithmetic it repeats,
// and says where that arithmetic is not the obvious one, since those are the pixels that differ
// when a renderer only looks alike (EnvPool's CartPole frames match on 99.0% of pixels).
#ifndef ENVFLEET_COMMON_RENDER2D_GFXDRAW_H_
#define ENVFLEET_COMMON_RENDER2D_GFXDRAW_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "common/render2d/canvas.h"

namespace envfleet::render2d::gfx {

// pixelRGBA / pixelColor: alpha 255 stores, anything else blends with the colour's alpha.
inline void Pixel(const Canvas& c, int x, int y, Color color) { c.Blend(x, y, color, color.a); }

// pixelColorWeight: the colour's alpha scaled by an 8-bit weight, (a * weight) >> 8. With an
// opaque colour the result is at most 254, so anti-aliased pixels always blend.
inline void PixelWeight(const Canvas& c, int x, int y, Color color, uint32_t weight) {
  c.Blend(x, y, color, (static_cast<uint32_t>(color.a) * weight) >> 8);
}

// hlineColor: ends in either order, clipped; an opaque colour is stored, any other blended
// into each pixel (_HLineAlpha -> filledRectAlpha).
inline void HLine(const Canvas& c, int16_t x1, int16_t x2, int16_t y, Color color) {
  if (x1 > x2) std::swap(x1, x2);
  const int right = c.width() - 1, bottom = c.height() - 1;
  if (x2 < 0 || x1 > right || y < 0 || y > bottom) return;
  const int a = std::max<int>(x1, 0), b = std::min<int>(x2, right);
  if (color.a == 255) {
    c.SetRow(a, b, y, color);
    return;
  }
  for (int x = a; x <= b; ++x) c.Blend(x, y, color, color.a);
}

// vlineColor: the same along y.
inline void VLine(const Canvas& c, int16_t x, int16_t y1, int16_t y2, Color color) {
  if (y1 > y2) std::swap(y1, y2);
  const int right = c.width() - 1, bottom = c.height() - 1;
  if (x < 0 || x > right || y2 < 0 || y1 > bottom) return;
  const int a = std::max<int>(y1, 0), b = std::min<int>(y2, bottom);
  for (int y = a; y <= b; ++y) {
    if (color.a == 255) {
      c.Set(x, y, color);
    } else {
      c.Blend(x, y, color, color.a);
    }
  }
}

namespace internal {

// _clipLine: Cohen-Sutherland against the surface, moving one end at a time with a float
// slope and truncating each correction to Sint16 (so clipped ends land where SDL_gfx puts
// them, not on the exact intersection). Returns false when nothing is visible.
inline bool ClipLine(const Canvas& c, int16_t* x1, int16_t* y1, int16_t* x2, int16_t* y2) {
  constexpr int kLeft = 1, kRight = 2, kBottom = 4, kTop = 8;
  const int16_t left = 0, top = 0;
  const int16_t right = static_cast<int16_t>(c.width() - 1);
  const int16_t bottom = static_cast<int16_t>(c.height() - 1);
  const auto encode = [&](int16_t x, int16_t y) {
    int code = 0;
    if (x < left) {
      code |= kLeft;
    } else if (x > right) {
      code |= kRight;
    }
    if (y < top) {
      code |= kTop;
    } else if (y > bottom) {
      code |= kBottom;
    }
    return code;
  };
  while (true) {
    int code1 = encode(*x1, *y1);
    int code2 = encode(*x2, *y2);
    if (!(code1 | code2)) return true;
    if (code1 & code2) return false;
    if (!code1) {  // move the outside end: make it end 1
      std::swap(*x1, *x2);
      std::swap(*y1, *y2);
      std::swap(code1, code2);
    }
    const float m =
        *x2 != *x1 ? static_cast<float>(*y2 - *y1) / static_cast<float>(*x2 - *x1) : 1.0f;
    if (code1 & kLeft) {
      *y1 = static_cast<int16_t>(*y1 + static_cast<int16_t>((left - *x1) * m));
      *x1 = left;
    } else if (code1 & kRight) {
      *y1 = static_cast<int16_t>(*y1 + static_cast<int16_t>((right - *x1) * m));
      *x1 = right;
    } else if (code1 & kBottom) {
      if (*x2 != *x1) *x1 = static_cast<int16_t>(*x1 + static_cast<int16_t>((bottom - *y1) / m));
      *y1 = bottom;
    } else if (code1 & kTop) {
      if (*x2 != *x1) *x1 = static_cast<int16_t>(*x1 + static_cast<int16_t>((top - *y1) / m));
      *y1 = top;
    }
  }
}

}  // namespace internal

// lineColor: clipped; vertical, horizontal and single-point lines go to vline / hline /
// pixel. Opaque colours walk a Bresenham variant over |dx|+1 by |dy|+1 pixels from end 1;
// translucent ones use a different midpoint walk (d > 0, or d == 0 when stepping forward).
inline void Line(const Canvas& c, int16_t x1, int16_t y1, int16_t x2, int16_t y2, Color color) {
  if (!internal::ClipLine(c, &x1, &y1, &x2, &y2)) return;
  if (x1 == x2) {
    if (y1 != y2) {
      VLine(c, x1, std::min(y1, y2), std::max(y1, y2), color);
    } else {
      Pixel(c, x1, y1, color);
    }
    return;
  }
  if (y1 == y2) {
    HLine(c, std::min(x1, x2), std::max(x1, x2), y1, color);
    return;
  }
  int dx = x2 - x1, dy = y2 - y1;
  const int sx = dx >= 0 ? 1 : -1, sy = dy >= 0 ? 1 : -1;
  if (color.a == 255) {
    int major = sx * dx + 1, minor = sy * dy + 1;
    // Steps along the major and minor axes (pixel-pointer increments in SDL_gfx).
    int mx = sx, my = 0, nx = 0, ny = sy;
    if (major < minor) {
      std::swap(major, minor);
      std::swap(mx, nx);
      std::swap(my, ny);
    }
    int x = x1, y = y1, acc = 0;
    for (int i = 0; i < major; ++i, x += mx, y += my) {
      c.Set(x, y, color);  // in bounds: the line was clipped
      acc += minor;
      if (acc >= major) {
        acc -= major;
        x += nx;
        y += ny;
      }
    }
    return;
  }
  const int ax = std::abs(dx) << 1, ay = std::abs(dy) << 1;
  int x = x1, y = y1;
  if (ax > ay) {
    int d = ay - (ax >> 1);
    while (x != x2) {
      Pixel(c, x, y, color);
      if (d > 0 || (d == 0 && sx == 1)) {
        y += sy;
        d -= ax;
      }
      x += sx;
      d += ay;
    }
  } else {
    int d = ax - (ay >> 1);
    while (y != y2) {
      Pixel(c, x, y, color);
      if (d > 0 || (d == 0 && sy == 1)) {
        x += sx;
        d -= ay;
      }
      y += sy;
      d += ax;
    }
  }
  Pixel(c, x, y, color);
}

// _aalineColor: Wu's anti-aliased line with SDL_gfx's 32-bit error accumulator. Facts that
// decide pixels:
//  - the line is clipped first (ClipLine), then walked from its end with the smaller y, but
//    the first pixel drawn at full colour is end 1 as given (after clipping), whichever it is;
//  - erradj = ((minor << 16) / major) << 16 in 32 bits, so the fraction has only 16 bits and
//    a 45-degree line (minor == major) wraps to 0: its walk then advances every step with
//    weight 0 (no paired pixel);
//  - each inner pixel gets weight 255 - w, its neighbour w, w = the top 8 bits of erracc;
//    the accumulator "rolls over" when the add does not increase it (erracc <= before);
//  - the last pixel (end 2) is drawn only with draw_endpoint; aapolygon passes 0.
// Special cases: dx == 0 -> vline, dy == 0 -> hline (without the endpoint: from the walk's
// start over |d| pixels, i.e. including the far end), dx == dy with endpoint -> Line.
inline void AaLine(const Canvas& c, int16_t x1, int16_t y1, int16_t x2, int16_t y2, Color color,
                   bool draw_endpoint) {
  if (!internal::ClipLine(c, &x1, &y1, &x2, &y2)) return;
  int xx0 = x1, yy0 = y1, xx1 = x2, yy1 = y2;
  if (yy0 > yy1) {
    std::swap(yy0, yy1);
    std::swap(xx0, xx1);
  }
  int dx = xx1 - xx0;
  int dy = yy1 - yy0;
  if (dx == 0) {
    if (draw_endpoint) {
      VLine(c, x1, y1, y2, color);
    } else if (dy > 0) {
      VLine(c, x1, static_cast<int16_t>(yy0), static_cast<int16_t>(yy0 + dy), color);
    } else {
      Pixel(c, x1, y1, color);
    }
    return;
  }
  if (dy == 0) {
    if (draw_endpoint) {
      HLine(c, x1, x2, y1, color);
    } else {
      // dx != 0 here (dx == dy == 0 took the branch above)
      HLine(c, static_cast<int16_t>(xx0), static_cast<int16_t>(xx0 + dx), y1, color);
    }
    return;
  }
  if (dx == dy && draw_endpoint) {
    Line(c, x1, y1, x2, y2, color);
    return;
  }
  int xdir = 1;
  if (dx < 0) {
    xdir = -1;
    dx = -dx;
  }
  uint32_t erracc = 0;
  Pixel(c, x1, y1, color);
  if (dy > dx) {
    // y-major: x advances by the 16-bit fraction dx/dy per row.
    const uint32_t erradj = (static_cast<uint32_t>(dx << 16) / static_cast<uint32_t>(dy)) << 16;
    int x0pxdir = xx0 + xdir;
    while (--dy) {
      const uint32_t before = erracc;
      erracc += erradj;
      if (erracc <= before) {
        xx0 = x0pxdir;
        x0pxdir += xdir;
      }
      ++yy0;
      const uint32_t wgt = (erracc >> 24) & 255;
      PixelWeight(c, xx0, yy0, color, 255 - wgt);
      PixelWeight(c, x0pxdir, yy0, color, wgt);
    }
  } else {
    // x-major: y advances by dy/dx per column.
    const uint32_t erradj = (static_cast<uint32_t>(dy << 16) / static_cast<uint32_t>(dx)) << 16;
    int y0p1 = yy0 + 1;
    while (--dx) {
      const uint32_t before = erracc;
      erracc += erradj;
      if (erracc <= before) {
        yy0 = y0p1;
        ++y0p1;
      }
      xx0 += xdir;
      const uint32_t wgt = (erracc >> 24) & 255;
      PixelWeight(c, xx0, yy0, color, 255 - wgt);
      PixelWeight(c, xx0, y0p1, color, wgt);
    }
  }
  if (draw_endpoint) Pixel(c, x2, y2, color);
}

// aapolygonColor: the n edges as AaLine without endpoints, vertex i to i + 1, then the last
// vertex back to the first. Translucent colours therefore blend shared pixels twice, as there.
inline void AaPolygon(const Canvas& c, const int16_t* vx, const int16_t* vy, int n, Color color) {
  if (n < 3) return;
  for (int i = 1; i < n; ++i) AaLine(c, vx[i - 1], vy[i - 1], vx[i], vy[i], color, false);
  AaLine(c, vx[n - 1], vy[n - 1], vx[0], vy[0], color, false);
}

// filledPolygonColorMT: scanlines from the smallest to the largest vertex y. On each row every
// non-horizontal edge with y1 <= y < y2 (or, on the last row only, y1 < y <= y2) gives a 16.16
// fixed-point intersection ((65536 * (y - y1)) / (y2 - y1)) * (x2 - x1) + 65536 * x1 in int
// arithmetic (the division truncates first). Sorted intersections pair up into spans whose
// ends are rounded inwards: xa = ((v + 1) >> 16) + ((v + 1) & 32768 ? 1 : 0), xb likewise
// from v - 1. A span whose rounded ends cross (xa > xb, a sliver) is still drawn, over
// [xb, xa], because hline swaps its ends.
inline void FilledPolygon(const Canvas& c, const int16_t* vx, const int16_t* vy, int n,
                          Color color) {
  if (n < 3) return;
  int stack_ints[64];
  std::vector<int> heap_ints;
  int* ints = stack_ints;
  if (n > 64) {
    heap_ints.resize(n);
    ints = heap_ints.data();
  }
  int miny = vy[0], maxy = vy[0];
  for (int i = 1; i < n; ++i) {
    if (vy[i] < miny) {
      miny = vy[i];
    } else if (vy[i] > maxy) {
      maxy = vy[i];
    }
  }
  for (int y = miny; y <= maxy; ++y) {
    int count = 0;
    for (int i = 0; i < n; ++i) {
      const int ind1 = i == 0 ? n - 1 : i - 1;
      const int ind2 = i;
      int y1 = vy[ind1], y2 = vy[ind2], x1, x2;
      if (y1 < y2) {
        x1 = vx[ind1];
        x2 = vx[ind2];
      } else if (y1 > y2) {
        y2 = vy[ind1];
        y1 = vy[ind2];
        x2 = vx[ind1];
        x1 = vx[ind2];
      } else {
        continue;
      }
      if ((y >= y1 && y < y2) || (y == maxy && y > y1 && y <= y2)) {
        ints[count++] = ((65536 * (y - y1)) / (y2 - y1)) * (x2 - x1) + (65536 * x1);
      }
    }
    std::sort(ints, ints + count);
    // A closed polygon crosses each row an even number of times, so the pairs are complete.
    for (int i = 0; i + 1 < count; i += 2) {
      int xa = ints[i] + 1;
      xa = (xa >> 16) + ((xa & 32768) >> 15);
      int xb = ints[i + 1] - 1;
      xb = (xb >> 16) + ((xb & 32768) >> 15);
      HLine(c, static_cast<int16_t>(xa), static_cast<int16_t>(xb), static_cast<int16_t>(y), color);
    }
  }
}

// aaellipseColor (aacircle is aaellipse with rx == ry): the midpoint ellipse walk of
// Lindstroem / sge, in two regions split at lrint(a^2 / sqrt(a^2 + b^2)) and
// lrint(b^2 / sqrt(a^2 + b^2)) steps. The four "end points" are drawn at full colour; every
// step then blends four symmetric pairs, the inner pixel with 255 - w and the outer one with
// w, where w = (Uint8)(cp * 255) and cp = min(1, (float)|d| / (float)|s or t|) in single
// precision. Pixels met twice (where the regions meet) are blended twice, as there.
inline void AaEllipse(const Canvas& c, int16_t x, int16_t y, int16_t rx, int16_t ry, Color color) {
  if (rx < 0 || ry < 0) return;
  if (rx == 0) {
    VLine(c, x, static_cast<int16_t>(y - ry), static_cast<int16_t>(y + ry), color);
    return;
  }
  if (ry == 0) {
    HLine(c, static_cast<int16_t>(x - rx), static_cast<int16_t>(x + rx), y, color);
    return;
  }
  const int right = c.width() - 1, bottom = c.height() - 1;
  if (static_cast<int16_t>(x + rx) < 0 || static_cast<int16_t>(x - rx) > right ||
      static_cast<int16_t>(y + ry) < 0 || static_cast<int16_t>(y - ry) > bottom) {
    return;
  }
  const int a2 = rx * rx;
  const int b2 = ry * ry;
  const int ds = 2 * a2;
  const int dt = 2 * b2;
  const int16_t xc2 = static_cast<int16_t>(2 * x);
  const int16_t yc2 = static_cast<int16_t>(2 * y);
  const double sab = std::sqrt(static_cast<double>(a2 + b2));
  const int dxt = static_cast<int16_t>(std::lrint(static_cast<double>(a2) / sab));
  int t = 0;
  int s = -2 * a2 * ry;
  int d = 0;
  int16_t xp = x;
  int16_t yp = static_cast<int16_t>(y - ry);
  int16_t xs, ys;

  Pixel(c, xp, yp, color);
  Pixel(c, xc2 - xp, yp, color);
  Pixel(c, xp, yc2 - yp, color);
  Pixel(c, xc2 - xp, yc2 - yp, color);

  const auto weight_of = [](int num, int den) -> uint8_t {
    float cp = 1.0f;
    if (den != 0) {
      cp = static_cast<float>(std::abs(num)) / static_cast<float>(std::abs(den));
      if (cp > 1.0f) cp = 1.0f;
    }
    return static_cast<uint8_t>(cp * 255);
  };

  for (int i = 1; i <= dxt; ++i) {
    --xp;
    d += t - b2;
    if (d >= 0) {
      ys = static_cast<int16_t>(yp - 1);
    } else if ((d - s - a2) > 0) {
      if ((2 * d - s - a2) >= 0) {
        ys = static_cast<int16_t>(yp + 1);
      } else {
        ys = yp;
        ++yp;
        d -= s + a2;
        s += ds;
      }
    } else {
      ++yp;
      ys = static_cast<int16_t>(yp + 1);
      d -= s + a2;
      s += ds;
    }
    t -= dt;
    const uint8_t weight = weight_of(d, s);
    const uint8_t iweight = 255 - weight;
    const int16_t xx = static_cast<int16_t>(xc2 - xp);
    PixelWeight(c, xp, yp, color, iweight);
    PixelWeight(c, xx, yp, color, iweight);
    PixelWeight(c, xp, ys, color, weight);
    PixelWeight(c, xx, ys, color, weight);
    int16_t yy = static_cast<int16_t>(yc2 - yp);
    PixelWeight(c, xp, yy, color, iweight);
    PixelWeight(c, xx, yy, color, iweight);
    yy = static_cast<int16_t>(yc2 - ys);
    PixelWeight(c, xp, yy, color, weight);
    PixelWeight(c, xx, yy, color, weight);
  }

  const int dyt = static_cast<int16_t>(std::lrint(static_cast<double>(b2) / sab));
  for (int i = 1; i <= dyt; ++i) {
    ++yp;
    d -= s + a2;
    if (d <= 0) {
      xs = static_cast<int16_t>(xp + 1);
    } else if ((d + t - b2) < 0) {
      if ((2 * d + t - b2) <= 0) {
        xs = static_cast<int16_t>(xp - 1);
      } else {
        xs = xp;
        --xp;
        d += t - b2;
        t -= dt;
      }
    } else {
      --xp;
      xs = static_cast<int16_t>(xp - 1);
      d += t - b2;
      t -= dt;
    }
    s += ds;
    const uint8_t weight = weight_of(d, t);
    const uint8_t iweight = 255 - weight;
    int16_t xx = static_cast<int16_t>(xc2 - xp);
    const int16_t yy = static_cast<int16_t>(yc2 - yp);
    PixelWeight(c, xp, yp, color, iweight);
    PixelWeight(c, xx, yp, color, iweight);
    PixelWeight(c, xp, yy, color, iweight);
    PixelWeight(c, xx, yy, color, iweight);
    xx = static_cast<int16_t>(xc2 - xs);
    PixelWeight(c, xs, yp, color, weight);
    PixelWeight(c, xx, yp, color, weight);
    PixelWeight(c, xs, yy, color, weight);
    PixelWeight(c, xx, yy, color, weight);
  }
}

// aacircleRGBA: aaellipse with both radii r.
inline void AaCircle(const Canvas& c, int16_t x, int16_t y, int16_t r, Color color) {
  AaEllipse(c, x, y, r, r, color);
}

// filledCircleColor: the midpoint circle walk of sge, drawing each distinct row once as an
// hline (rows y +- cy while cy changes, rows y +- cx while cx changes and cx != cy); radius
// 0 is a pixel, a negative radius draws nothing.
inline void FilledCircle(const Canvas& c, int16_t x, int16_t y, int16_t rad, Color color) {
  if (rad < 0) return;
  if (rad == 0) {
    Pixel(c, x, y, color);
    return;
  }
  const int right = c.width() - 1, bottom = c.height() - 1;
  if (static_cast<int16_t>(x + rad) < 0 || static_cast<int16_t>(x - rad) > right ||
      static_cast<int16_t>(y + rad) < 0 || static_cast<int16_t>(y - rad) > bottom) {
    return;
  }
  int16_t cx = 0, cy = rad;
  int16_t ocx = static_cast<int16_t>(0xffff), ocy = static_cast<int16_t>(0xffff);
  int16_t df = static_cast<int16_t>(1 - rad);
  int16_t d_e = 3;
  int16_t d_se = static_cast<int16_t>(-2 * rad + 5);
  do {
    const int16_t xpcx = static_cast<int16_t>(x + cx), xmcx = static_cast<int16_t>(x - cx);
    const int16_t xpcy = static_cast<int16_t>(x + cy), xmcy = static_cast<int16_t>(x - cy);
    if (ocy != cy) {
      if (cy > 0) {
        HLine(c, xmcx, xpcx, static_cast<int16_t>(y + cy), color);
        HLine(c, xmcx, xpcx, static_cast<int16_t>(y - cy), color);
      } else {
        HLine(c, xmcx, xpcx, y, color);
      }
      ocy = cy;
    }
    if (ocx != cx) {
      if (cx != cy) {
        if (cx > 0) {
          HLine(c, xmcy, xpcy, static_cast<int16_t>(y - cx), color);
          HLine(c, xmcy, xpcy, static_cast<int16_t>(y + cx), color);
        } else {
          HLine(c, xmcy, xpcy, y, color);
        }
      }
      ocx = cx;
    }
    if (df < 0) {
      df = static_cast<int16_t>(df + d_e);
      d_e = static_cast<int16_t>(d_e + 2);
      d_se = static_cast<int16_t>(d_se + 2);
    } else {
      df = static_cast<int16_t>(df + d_se);
      d_e = static_cast<int16_t>(d_e + 2);
      d_se = static_cast<int16_t>(d_se + 4);
      --cy;
    }
    ++cx;
  } while (cx <= cy);
}

}  // namespace envfleet::render2d::gfx

#endif  // ENVFLEET_COMMON_RENDER2D_GFXDRAW_H_
