// pygame.draw as pygame 2.6.1 runs it (src_c/draw.c) on a surface without per-pixel alpha
// whose clip rectangle is the whole surface: line and lines (width 1), aaline and aalines
// (blend=True, the default). Unlike gfxdraw, pygame.draw stores colours as they are (no
// alpha blending); aaline mixes the colour with the pixel underneath by a float brightness.
//
// Coordinates: line/lines take Python numbers through int() (truncation towards zero, in C
// int), aaline/aalines through float() rounded to single precision (pg_TwoFloatsFromObj), and
// all of aaline's arithmetic is single precision, as there.
#ifndef ENVFLEET_COMMON_RENDER2D_DRAW_H_
#define ENVFLEET_COMMON_RENDER2D_DRAW_H_

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "common/render2d/canvas.h"

namespace envfleet::render2d::draw {

namespace internal {

inline void SetAt(const Canvas& c, int x, int y, Color color) {
  if (c.Inside(x, y)) c.Set(x, y, color);
}

// clip_line: Liang-Barsky in double against [0, w] x [0, h] (one past the surface on the far
// sides, as there; set_at drops the pixels outside), the new ends rounded half away from 0.
inline bool ClipLine(const Canvas& c, int* x1, int* y1, int* x2, int* y2) {
  const int p1 = *x1 - *x2, p2 = -p1, p3 = *y1 - *y2, p4 = -p3;
  const int q1 = *x1, q2 = c.width() - *x1, q3 = *y1, q4 = c.height() - *y1;
  const int old_x1 = *x1, old_y1 = *y1;
  double nmax = 0, pmin = 1;
  if ((p1 == 0 && q1 < 0) || (p2 == 0 && q2 < 0) || (p3 == 0 && q3 < 0) || (p4 == 0 && q4 < 0))
    return false;
  const auto edge = [&](int p, int q, int q_other, int p_other) {
    const double r1 = static_cast<double>(q) / p;
    const double r2 = static_cast<double>(q_other) / p_other;
    if (p < 0) {
      if (r1 > nmax) nmax = r1;
      if (r2 < pmin) pmin = r2;
    } else {
      if (r2 > nmax) nmax = r2;
      if (r1 < pmin) pmin = r1;
    }
  };
  if (p1) edge(p1, q1, q2, p2);
  if (p3) edge(p3, q3, q4, p4);
  if (nmax > pmin) return false;
  const auto round_away = [](double v) { return static_cast<int>(v < 0 ? v - 0.5 : v + 0.5); };
  *x1 = old_x1 + round_away(p2 * nmax);
  *y1 = old_y1 + round_away(p4 * nmax);
  *x2 = old_x1 + round_away(p2 * pmin);
  *y2 = old_y1 + round_away(p4 * pmin);
  return true;
}

// draw_line: Bresenham from (x1, y1) to (x2, y2), both ends included.
inline void Bresenham(const Canvas& c, int x1, int y1, int x2, int y2, Color color) {
  if (x1 == x2 && y1 == y2) {
    SetAt(c, x1, y1, color);
    return;
  }
  if (y1 == y2) {
    const int step = x1 < x2 ? 1 : -1;
    for (int i = 0; i <= std::abs(x1 - x2); ++i) SetAt(c, x1 + step * i, y1, color);
    return;
  }
  if (x1 == x2) {
    const int step = y1 < y2 ? 1 : -1;
    for (int i = 0; i <= std::abs(y1 - y2); ++i) SetAt(c, x1, y1 + step * i, color);
    return;
  }
  const int dx = std::abs(x2 - x1), sx = x1 < x2 ? 1 : -1;
  const int dy = std::abs(y2 - y1), sy = y1 < y2 ? 1 : -1;
  int err = (dx > dy ? dx : -dy) / 2;
  while (x1 != x2 || y1 != y2) {
    SetAt(c, x1, y1, color);
    const int e2 = err;
    if (e2 > -dx) {
      err -= dy;
      x1 += sx;
    }
    if (e2 < dy) {
      err += dx;
      y1 += sy;
    }
  }
  SetAt(c, x2, y2, color);
}

// get_antialiased_color with blend: brightness * colour + (1 - brightness) * pixel, in float,
// truncated to 8 bits; a pixel outside the surface keeps the plain colour (and is then
// dropped by set_at).
inline void SetAntialiased(const Canvas& c, int x, int y, Color color, float brightness) {
  if (!c.Inside(x, y)) return;
  const uint8_t* p = c.At(x, y);
  const Color mixed{static_cast<uint8_t>(brightness * color.r + (1 - brightness) * p[0]),
                    static_cast<uint8_t>(brightness * color.g + (1 - brightness) * p[1]),
                    static_cast<uint8_t>(brightness * color.b + (1 - brightness) * p[2])};
  c.Set(x, y, mixed);
}

}  // namespace internal

// pygame.draw.line(surface, color, start, end) with width 1 (ints: see above).
inline void Line(const Canvas& c, int x1, int y1, int x2, int y2, Color color) {
  if (!internal::ClipLine(c, &x1, &y1, &x2, &y2)) return;
  internal::Bresenham(c, x1, y1, x2, y2, color);
}

// pygame.draw.lines(surface, color, closed, points) with width 1: Line over consecutive points.
inline void Lines(const Canvas& c, const int* xs, const int* ys, int n, bool closed, Color color) {
  for (int i = 1; i < n; ++i) Line(c, xs[i - 1], ys[i - 1], xs[i], ys[i], color);
  if (closed && n > 2) Line(c, xs[n - 1], ys[n - 1], xs[0], ys[0], color);
}

// pygame.draw.aaline(surface, color, start, end) (blend=True): draw_aaline, a Wu line in
// single precision. The line is clipped one pixel wider than the surface, moved down by one
// pixel so that (int) truncation floors, its two end pixels are weighted by their x overlap
// (x_gap), and each column in between gets the pair (y - 1, y) with brightness
// 1 - frac(y) and frac(y), y advancing by the float gradient (accumulated, not recomputed).
inline void AaLine(const Canvas& c, float from_x, float from_y, float to_x, float to_y,
                   Color color) {
  using internal::SetAntialiased;
  float dx = to_x - from_x;
  float dy = to_y - from_y;
  if (std::fabs(dx) < 0.0001 && std::fabs(dy) < 0.0001) {
    const int x = static_cast<int>(std::floor(from_x + 0.5));
    const int y = static_cast<int>(std::floor(from_y + 0.5));
    SetAntialiased(c, x, y, color, 1);
    return;
  }
  float clip_left = -1.0f;
  float clip_right = clip_left + static_cast<float>(c.width()) + 1.0f;
  float clip_top = -1.0f;
  float clip_bottom = clip_top + static_cast<float>(c.height()) + 1.0f;
  const bool steep = std::fabs(dx) < std::fabs(dy);
  if (steep) {
    std::swap(from_x, from_y);
    std::swap(to_x, to_y);
    std::swap(dx, dy);
    std::swap(clip_left, clip_top);
    std::swap(clip_right, clip_bottom);
  }
  if (dx < 0) {
    std::swap(from_x, to_x);
    std::swap(from_y, to_y);
    dx = -dx;
    dy = -dy;
  }
  if (to_x <= clip_left || from_x >= clip_right) return;
  const float gradient = dy / dx;
  if (from_x < clip_left) {
    from_y += gradient * (clip_left - from_x);
    from_x = clip_left;
  }
  if (to_x > clip_right) {
    to_y += gradient * (clip_right - to_x);
    to_x = clip_right;
  }
  if (gradient > 0.0f) {
    if (to_y <= clip_top || from_y >= clip_bottom) return;
    if (from_y < clip_top) {
      from_x += (clip_top - from_y) / gradient;
      from_y = clip_top;
    }
    if (to_y > clip_bottom) {
      to_x += (clip_bottom - to_y) / gradient;
      to_y = clip_bottom;
    }
  } else {
    if (from_y <= clip_top || to_y >= clip_bottom) return;
    if (to_y < clip_top) {
      to_x += (clip_top - to_y) / gradient;
      to_y = clip_top;
    }
    if (from_y > clip_bottom) {
      from_x += (clip_bottom - from_y) / gradient;
      from_y = clip_bottom;
    }
  }
  from_y += 1.0f;
  to_y += 1.0f;

  // (x, y) of a pixel along the main axis: swapped back for a steep line.
  const auto plot = [&](int along, int across, float brightness) {
    if (steep) {
      SetAntialiased(c, across, along, color, brightness);
    } else {
      SetAntialiased(c, along, across, color, brightness);
    }
  };

  int x_pixel_start = static_cast<int>(from_x);
  float y_endpoint = from_y + gradient * static_cast<float>(x_pixel_start - from_x);
  float intersect_y = y_endpoint;
  if (to_x > clip_left + 1.0f) {
    const float x_gap = 1 + x_pixel_start - from_x;
    float brightness = y_endpoint - static_cast<int>(y_endpoint);
    const int across = static_cast<int>(y_endpoint);
    if (static_cast<int>(y_endpoint) < y_endpoint) plot(x_pixel_start, across, brightness * x_gap);
    brightness = 1 - brightness;
    plot(x_pixel_start, across - 1, brightness * x_gap);
    intersect_y += gradient;
    ++x_pixel_start;
  }
  const int x_pixel_end = static_cast<int>(std::ceil(to_x));
  if (from_x < clip_right - 1.0f) {
    y_endpoint = to_y + gradient * static_cast<float>(x_pixel_end - to_x);
    const float x_gap = 1 - x_pixel_end + to_x;
    float brightness = y_endpoint - static_cast<int>(y_endpoint);
    const int across = static_cast<int>(y_endpoint);
    if (static_cast<int>(y_endpoint) < y_endpoint) plot(x_pixel_end, across, brightness * x_gap);
    brightness = 1 - brightness;
    plot(x_pixel_end, across - 1, brightness * x_gap);
  }
  for (int x = x_pixel_start; x < x_pixel_end; ++x) {
    const int y = static_cast<int>(intersect_y);
    float brightness = 1 - intersect_y + y;
    plot(x, y - 1, brightness);
    if (y < intersect_y) {
      brightness = 1 - brightness;
      plot(x, y, brightness);
    }
    intersect_y += gradient;
  }
}

// pygame.draw.aalines(surface, color, closed, points) (blend=True): AaLine over consecutive
// points (already single precision), then the closing segment if closed and n > 2.
inline void AaLines(const Canvas& c, const float* xs, const float* ys, int n, bool closed,
                    Color color) {
  for (int i = 1; i < n; ++i) AaLine(c, xs[i - 1], ys[i - 1], xs[i], ys[i], color);
  if (closed && n > 2) AaLine(c, xs[n - 1], ys[n - 1], xs[0], ys[0], color);
}

}  // namespace envfleet::render2d::draw

#endif  // ENVFLEET_COMMON_RENDER2D_DRAW_H_
