// The few pygame 2.6.1 surface operations that sprite-based references (Gymnasium's toy text)
// draw their frames with, with pygame's and SDL 2.28's integer arithmetic, so frames match
// pixel for pixel:
//
//   Scale(image, w, h)         pygame.transform.scale (not smoothscale): src_c/transform.c's
//                              stretch(), a nearest-neighbour Bresenham walk (its 2x special
//                              case, scale2xraw, repeats each pixel: the same result)
//   Flip(image, x, y)          pygame.transform.flip
//   Fill(frame, color)         Surface.fill
//   Blit(frame, image, x, y)   Surface.blit of a per-pixel-alpha image (pygame.image.load of
//                              an RGBA PNG) onto the window surface (see Blit)
//   DrawRect(frame, ...)       pygame.draw.rect with a width and no border radius
//   PyRound(x)                 Python's round() of a float (ties to even)
//
// The destination is the surface the references draw on, pygame.Surface((w, h)): 32 bits,
// no alpha channel. An RgbFrame views an RGB byte buffer (the env's output frame) with the same
// channel values, so drawing goes straight into the output.
#ifndef ENVFLEET_COMMON_IMAGE_SURFACE_H_
#define ENVFLEET_COMMON_IMAGE_SURFACE_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/image/png.h"

namespace envfleet::image {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

// width x height pixels of 3 bytes (R, G, B), rows top first, no padding; owns nothing.
struct RgbFrame {
  uint8_t* rgb;
  int width;
  int height;

  uint8_t* At(int x, int y) const { return rgb + (static_cast<size_t>(y) * width + x) * 3; }
};

// round(x) for a Python float: the nearest integer, ties to the even one. x - floor(x) is exact
// for every double, so the tie test is exact too.
inline int64_t PyRound(double x) {
  const double f = std::floor(x);
  const double diff = x - f;
  if (diff > 0.5) return static_cast<int64_t>(f) + 1;
  if (diff < 0.5) return static_cast<int64_t>(f);
  const int64_t fi = static_cast<int64_t>(f);
  return fi % 2 == 0 ? fi : fi + 1;
}

namespace surface_internal {

// stretch()'s walk along one axis: destination index -> source index. The error term starts
// at 2 * src - 2 * dst; after each destination pixel the source index advances while the
// error is >= 0 (by -2 * dst each time), then the error grows by 2 * src.
inline std::vector<int> StretchIndices(int src, int dst) {
  std::vector<int> index(static_cast<size_t>(std::max(dst, 0)));
  int err = 2 * src - 2 * dst;
  int i = 0;
  for (int d = 0; d < dst; ++d) {
    index[d] = i;
    while (err >= 0) {
      ++i;
      err -= 2 * dst;
    }
    err += 2 * src;
  }
  return index;
}

}  // namespace surface_internal

// pygame.transform.scale(image, (width, height)). A size of 0 gives an empty image.
inline Image Scale(const Image& src, int width, int height) {
  Image dst(std::max(width, 0), std::max(height, 0));
  if (dst.width == 0 || dst.height == 0 || src.width == 0 || src.height == 0) return dst;
  const std::vector<int> xs = surface_internal::StretchIndices(src.width, dst.width);
  const std::vector<int> ys = surface_internal::StretchIndices(src.height, dst.height);
  for (int y = 0; y < dst.height; ++y) {
    for (int x = 0; x < dst.width; ++x) {
      const uint8_t* s = src.At(xs[x], ys[y]);
      std::copy(s, s + 4, dst.At(x, y));
    }
  }
  return dst;
}

// pygame.transform.flip(image, flip_x, flip_y).
inline Image Flip(const Image& src, bool flip_x, bool flip_y) {
  Image dst(src.width, src.height);
  for (int y = 0; y < src.height; ++y) {
    for (int x = 0; x < src.width; ++x) {
      const uint8_t* s = src.At(flip_x ? src.width - 1 - x : x, flip_y ? src.height - 1 - y : y);
      std::copy(s, s + 4, dst.At(x, y));
    }
  }
  return dst;
}

inline void Fill(const RgbFrame& frame, Rgb color) {
  const size_t count = static_cast<size_t>(frame.width) * frame.height;
  for (size_t i = 0; i < count; ++i) {
    frame.rgb[i * 3] = color.r;
    frame.rgb[i * 3 + 1] = color.g;
    frame.rgb[i * 3 + 2] = color.b;
  }
}

// frame.blit(image, (x, y)), the parts outside the frame clipped. A 32-bit source with
// per-pixel alpha onto a 32-bit destination goes through pygame's own blitter
// (pgSurface_Blit -> pygame_Blit -> alphablit_alpha, "to mimic how SDL1 behaved"), whose
// ALPHA_BLEND with the destination's alpha read as 255 (it has none) is, per channel,
//   d = (((s - d) * a + s) >> 8) + d
// with an arithmetic shift: a = 255 gives s, a = 0 gives d. (Checked against pygame 2.6.1 on
// every combination in tests/cpp/common/image/surface_test.cc.) Positions are ints: pygame
// truncates float positions towards zero (pg_IntFromObj), the caller does the same.
inline void Blit(const RgbFrame& frame, const Image& image, int x, int y) {
  const int x0 = std::max(x, 0), x1 = std::min(x + image.width, frame.width);
  const int y0 = std::max(y, 0), y1 = std::min(y + image.height, frame.height);
  for (int row = y0; row < y1; ++row) {
    const uint8_t* s = image.At(x0 - x, row - y);
    uint8_t* d = frame.At(x0, row);
    for (int col = x0; col < x1; ++col, s += 4, d += 3) {
      const int a = s[3];
      if (a == 0) continue;  // the formula leaves d as it is
      if (a == 255) {        // ... and gives s
        d[0] = s[0], d[1] = s[1], d[2] = s[2];
        continue;
      }
      for (int c = 0; c < 3; ++c) {
        const int sc = s[c], dc = d[c];
        d[c] = static_cast<uint8_t>((((sc - dc) * a + sc) >> 8) + dc);
      }
    }
  }
}

namespace surface_internal {

inline void FillClipped(const RgbFrame& frame, int x0, int y0, int x1, int y1, Rgb color) {
  x0 = std::max(x0, 0), y0 = std::max(y0, 0);
  x1 = std::min(x1, frame.width), y1 = std::min(y1, frame.height);
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      uint8_t* d = frame.At(x, y);
      d[0] = color.r, d[1] = color.g, d[2] = color.b;
    }
  }
}

}  // namespace surface_internal

// pygame.draw.rect(frame, color, (x, y, w, h), width) with no border radius (src_c/draw.c's
// rect()): nothing for width < 0 or a rect outside the frame; a border `width` pixels wide
// inside the rect (draw_rect: horizontal spans, each clipped) when 2 * width is less than both
// sides of the rect's visible part; else (width 0 included) the visible part filled.
inline void DrawRect(const RgbFrame& frame, int x, int y, int w, int h, int width, Rgb color) {
  if (width < 0) return;
  // SDL_IntersectRect with the clip rect (the whole frame); empty rects draw nothing.
  if (w <= 0 || h <= 0) return;
  const int cx0 = std::max(x, 0), cy0 = std::max(y, 0);
  const int cx1 = std::min(x + w, frame.width), cy1 = std::min(y + h, frame.height);
  if (cx1 <= cx0 || cy1 <= cy0) return;
  if (width > 0 && 2 * width < cx1 - cx0 && 2 * width < cy1 - cy0) {
    const int x1 = x, y1 = y, x2 = x + w - 1, y2 = y + h - 1;
    using surface_internal::FillClipped;
    FillClipped(frame, x1, y1, x2 + 1, y1 + width, color);                          // top rows
    FillClipped(frame, x1, y2 - width + 1, x2 + 1, y2 + 1, color);                  // bottom rows
    FillClipped(frame, x1, y1 + width, x1 + width, y2 - width + 1, color);          // left side
    FillClipped(frame, x2 - width + 1, y1 + width, x2 + 1, y2 - width + 1, color);  // right
  } else {
    surface_internal::FillClipped(frame, cx0, cy0, cx1, cy1, color);
  }
}

}  // namespace envfleet::image

#endif  // ENVFLEET_COMMON_IMAGE_SURFACE_H_
