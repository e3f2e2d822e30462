// pygame.draw as pygame 2.6.1 runs it (src_c/draw.c) on a surface without per-pixel alpha
// whose clip rectangle is the whole surface: line and lines (width 1), aaline and aalines
// (blend=True, the default). Unlike gfxdraw, pygame.draw stores colours as they are (no
// alpha blending); aaline mixes the colour with the pixel underneath by a float brightness.
//
// Coordinates: line/lines take Python numbers through int() (truncation towards zero, in C
// int), aaline/aalines through float() rounded to single precision (pg_TwoFloatsFromObj), and
// all of aaline's arithmetic is single precision, as there.
// Also: polygon and circle (filled, width 0) and line / lines with a width above 1
// (LineWidth, LinesWidth), whose points go through int() as line's do.
#ifndef ENVFLEET_COMMON_RENDER2D_DRAW_H_
#define ENVFLEET_COMMON_RENDER2D_DRAW_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

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

// drawhorzlineclipbounding: a row from x1 to x2 (either order, both included), clipped to the
// surface, the colour stored as it is.
inline void Span(const Canvas& c, int x1, int y, int x2, Color color) {
  if (y < 0 || y >= c.height()) return;
  if (x2 < x1) std::swap(x1, x2);
  x1 = std::max(x1, 0);
  x2 = std::min(x2, c.width() - 1);
  if (x2 < 0 || x1 >= c.width()) return;
  c.SetRow(x1, x2, y, color);
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

// pygame.draw.polygon(surface, color, points) (width 0): draw_fillpoly, a scanline fill over
// the points' int() coordinates (pg_TwoIntsFromObj truncates floats). Each row y from the
// smallest to the largest vertex y (a double, as there) takes, from every non-horizontal edge
// with y1 <= y < y2 (or, on the last row, any edge ending there), the crossing
// (int)((y - y1) * (x2 - x1) / (y2 - y1) + x1) in double; sorted crossings pair up into spans.
// Horizontal edges strictly between the extreme rows are drawn afterwards (they can be a lower
// border the scan misses), and a polygon one row high is one span over its x range.
inline void Polygon(const Canvas& c, const int* xs, const int* ys, int n, Color color) {
  if (n < 3) return;
  const auto span = [&](int x1, int y, int x2) { internal::Span(c, x1, y, x2, color); };
  double miny = ys[0], maxy = ys[0];
  for (int i = 1; i < n; ++i) {
    miny = std::min<double>(miny, ys[i]);
    maxy = std::max<double>(maxy, ys[i]);
  }
  if (miny == maxy) {
    int minx = xs[0], maxx = xs[0];
    for (int i = 1; i < n; ++i) {
      minx = std::min(minx, xs[i]);
      maxx = std::max(maxx, xs[i]);
    }
    span(minx, static_cast<int>(miny), maxx);
    return;
  }
  std::vector<int> crossings(n);
  for (double y = miny; y <= maxy; ++y) {
    int count = 0;
    for (int i = 0; i < n; ++i) {
      const int prev = i ? i - 1 : n - 1;
      double x1, y1, x2, y2;
      if (ys[prev] < ys[i]) {
        x1 = xs[prev], y1 = ys[prev], x2 = xs[i], y2 = ys[i];
      } else if (ys[prev] > ys[i]) {
        x1 = xs[i], y1 = ys[i], x2 = xs[prev], y2 = ys[prev];
      } else {
        continue;
      }
      if ((y >= y1 && y < y2) || (y == maxy && y2 == maxy)) {
        crossings[count++] = static_cast<int>((y - y1) * (x2 - x1) / (y2 - y1) + x1);
      }
    }
    std::sort(crossings.begin(), crossings.begin() + count);
    for (int i = 0; i + 1 < count; i += 2) {
      span(crossings[i], static_cast<int>(y), crossings[i + 1]);
    }
  }
  for (int i = 0; i < n; ++i) {
    const int prev = i ? i - 1 : n - 1;
    const double y = ys[i];
    if (miny < y && ys[prev] == ys[i] && y < maxy) span(xs[i], ys[i], xs[prev]);
  }
}

// pygame.draw.circle(surface, color, center, radius) (width 0): draw_circle_filled, the
// midpoint walk drawing a pair of rows each step and another pair only when y is about to
// decrease. Nothing is drawn for radius < 1 or a centre farther than the radius outside the
// surface (pygame's early returns). The centre and radius are int() of the Python numbers.
inline void Circle(const Canvas& c, int x0, int y0, int radius, Color color) {
  if (radius < 1) return;
  if (x0 > c.width() + radius || x0 < -radius || y0 > c.height() + radius || y0 < -radius) {
    return;
  }
  int f = 1 - radius;
  int ddf_x = 0;
  int ddf_y = -2 * radius;
  int x = 0;
  int y = radius;
  while (x < y) {
    if (f >= 0) {
      y--;
      ddf_y += 2;
      f += ddf_y;
    }
    x++;
    ddf_x += 2;
    f += ddf_x + 1;
    if (f >= 0) {
      internal::Span(c, x0 - x, y0 + y - 1, x0 + x - 1, color);
      internal::Span(c, x0 - x, y0 - y, x0 + x - 1, color);
    }
    internal::Span(c, x0 - y, y0 + x - 1, x0 + y - 1, color);
    internal::Span(c, x0 - y, y0 - x, x0 + y - 1, color);
  }
}

// pygame.draw.line / lines with width > 1 (draw_line_width): the Bresenham walk of the
// unclipped line decides the steps, a width-pixel bar across the minor direction (a row span
// for steep lines, a column for flat ones: left/top at -(width - 1) / 2, right/bottom at
// +width / 2) is drawn at each step of the clipped line, then the walk goes on past the
// clipped end while the bar still touches the surface. Width 1 is Line.
inline void LineWidth(const Canvas& c, int x1, int y1, int x2, int y2, int width, Color color) {
  const int end_x = x2, end_y = y2;
  const bool xinc = std::abs(x1 - x2) <= std::abs(y1 - y2);
  const int dx = std::abs(x2 - x1), sx = x1 < x2 ? 1 : -1;
  const int dy = std::abs(y2 - y1), sy = y1 < y2 ? 1 : -1;
  int err = (dx > dy ? dx : -dy) / 2;
  if (!internal::ClipLine(c, &x1, &y1, &x2, &y2)) return;
  if (width == 1) {
    internal::Bresenham(c, x1, y1, x2, y2, color);
    return;
  }
  const auto sign = [](int v, int zero) { return v > 0 ? 1 : (v < 0 ? -1 : zero); };
  const auto inside = [&](int x, int y) { return c.Inside(x, y); };
  const auto row = [&](int a, int y, int b) {  // drawhorzlineclipbounding
    if (y < 0 || y >= c.height()) return;
    if (b < a) std::swap(a, b);
    a = std::max(a, 0);
    b = std::min(b, c.width() - 1);
    if (b < 0 || a >= c.width()) return;
    for (int x = a; x <= b; ++x) c.Set(x, y, color);
  };
  const auto column = [&](int x, int top, int bottom) {
    for (int y = top; y <= bottom; ++y) internal::SetAt(c, x, y, color);
  };
  int left_top, right_bottom;
  if (xinc) {
    left_top = x1 - (width - 1) / 2;
    right_bottom = x1 + width / 2;
  } else {
    left_top = y1 - (width - 1) / 2;
    right_bottom = y1 + width / 2;
  }
  while (sign(x1 - x2, sx) != sx || sign(y1 - y2, sy) != sy) {
    if (xinc) {
      row(left_top, y1, right_bottom);
    } else {
      column(x1, left_top, right_bottom);
    }
    const int e2 = err;
    if (e2 > -dx) {
      err -= dy;
      x1 += sx;
      if (xinc) left_top += sx, right_bottom += sx;
    }
    if (e2 < dy) {
      err += dx;
      y1 += sy;
      if (!xinc) left_top += sy, right_bottom += sy;
    }
  }
  if (xinc) {
    while (y1 != end_y && (inside(left_top, y1) || inside(right_bottom, y1))) {
      row(left_top, y1, right_bottom);
      const int e2 = err;
      if (e2 > -dx) {
        err -= dy;
        x1 += sx;
        left_top += sx;
        right_bottom += sx;
      }
      if (e2 < dy) {
        err += dx;
        y1 += sy;
      }
    }
    row(left_top, y1, right_bottom);
  } else {
    while (x1 != end_x && (inside(x1, left_top) || inside(x1, right_bottom))) {
      column(x1, left_top, right_bottom);
      const int e2 = err;
      if (e2 > -dx) {
        err -= dy;
        x1 += sx;
      }
      if (e2 < dy) {
        err += dx;
        y1 += sy;
        left_top += sy;
        right_bottom += sy;
      }
    }
    column(x1, left_top, right_bottom);
  }
}

// pygame.draw.lines(surface, color, closed, points, width): LineWidth over consecutive points.
inline void LinesWidth(const Canvas& c, const int* xs, const int* ys, int n, bool closed, int width,
                       Color color) {
  if (width < 1) return;
  for (int i = 1; i < n; ++i) LineWidth(c, xs[i - 1], ys[i - 1], xs[i], ys[i], width, color);
  if (closed && n > 2) LineWidth(c, xs[n - 1], ys[n - 1], xs[0], ys[0], width, color);
}

}  // namespace envfleet::render2d::draw

#endif  // ENVFLEET_COMMON_RENDER2D_DRAW_H_
