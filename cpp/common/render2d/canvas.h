// envfleet::render2d: a small 2D rasteriser that reproduces, pixel for pixel, what the 2D
// references draw through pygame 2.6.1 (SDL 2.28): Gymnasium's classic control renderers, and
// later toy text and Box2D. It is written from the published algorithms (SDL_gfx's
// SDL_gfxPrimitives.c as vendored in pygame's src_c/SDL_gfx, pygame's src_c/draw.c, math.c,
// transform.c, scale_mmx64.c) and repeats their integer and float arithmetic, so frames
// match, not only look alike.
//
//   canvas.h       Canvas (an RGB view of a frame), Color, pixel writes and SDL_gfx's blending
//   gfxdraw.h      pygame.gfxdraw: pixel, hline, vline, line, aapolygon, filled_polygon,
//                  aacircle / aaellipse, filled_circle
//   draw.h         pygame.draw: line, lines, aaline, aalines
//   geometry.h     pygame.math.Vector2.rotate_rad and the number conversions pygame applies
//   smoothscale.h  pygame.transform.smoothscale of a sprite
// Sprites (PNG decoding, transform.scale / flip, alpha blits) are cpp/common/image/'s.
//
// The surface Gymnasium draws on is pygame.Surface((w, h)): 32-bit XRGB8888, no alpha channel,
// clip rectangle = the whole surface. Each channel is blended on its own, so an RGB byte
// buffer holds exactly the same values.
#ifndef ENVFLEET_COMMON_RENDER2D_CANVAS_H_
#define ENVFLEET_COMMON_RENDER2D_CANVAS_H_

#include <cstdint>
#include <cstring>
#include <utility>

namespace envfleet::render2d {

struct Color {
  uint8_t r = 0, g = 0, b = 0, a = 255;
};

// A view of width x height RGB pixels (3 bytes each, rows top first, no padding) that the
// primitives draw on; it owns nothing, so an env draws straight into its output frame.
//
// flip_y: Gymnasium draws with y up (y = 0 is the bottom row of the final frame) and then
// calls pygame.transform.flip(surf, False, True). A view made with flip_y = true maps y to
// row height - 1 - y, so drawing on it and reading the buffer gives the flipped frame without
// the copy. The primitives see only (x, y); reads (the blends) go through the same mapping, so
// the result is the same as drawing on an unflipped surface and flipping it.
class Canvas {
 public:
  Canvas(uint8_t* rgb, int width, int height, bool flip_y = false)
      : rgb_(rgb), width_(width), height_(height), flip_y_(flip_y) {}

  int width() const { return width_; }
  int height() const { return height_; }
  bool Inside(int x, int y) const { return x >= 0 && x < width_ && y >= 0 && y < height_; }

  uint8_t* At(int x, int y) const {
    const int row = flip_y_ ? height_ - 1 - y : y;
    return rgb_ + (static_cast<size_t>(row) * width_ + x) * 3;
  }

  // surface.fill(color): a fill ignores alpha (the surface has none).
  void Fill(Color c) const { FillPixels(rgb_, static_cast<size_t>(width_) * height_, c); }

  // Opaque writes of the in-bounds pixels x1..x2 (both included, x1 <= x2) of row y: the
  // spans that fill polygons and circles. Written row-wise because filling is most of the
  // cost of a frame (CarRacing paints its 1000x800 window about three times per step).
  void SetRow(int x1, int x2, int y, Color c) const {
    FillPixels(At(x1, y), static_cast<size_t>(x2 - x1 + 1), c);
  }

  // An opaque write of an in-bounds pixel.
  void Set(int x, int y, Color c) const {
    uint8_t* p = At(x, y);
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }

  // SDL_gfx's pixel write (_putPixelAlpha, DEFAULT_ALPHA_PIXEL_ROUTINE), clipped: alpha 255
  // stores the colour; any other alpha moves each channel by (src - dst) * alpha >> 8, an
  // arithmetic shift that rounds towards -infinity (the 32-bit routine computes it with
  // unsigned masks and shifts; for every channel and alpha the result is this). Alpha 0 leaves
  // the pixel as it is. Note that 255 is special: blending with alpha 254 never reaches src.
  void Blend(int x, int y, Color c, uint32_t alpha) const {
    if (!Inside(x, y)) return;
    if (alpha == 255) {
      Set(x, y, c);
      return;
    }
    uint8_t* p = At(x, y);
    const int a = static_cast<int>(alpha);
    p[0] = static_cast<uint8_t>(p[0] + (((c.r - p[0]) * a) >> 8));
    p[1] = static_cast<uint8_t>(p[1] + (((c.g - p[1]) * a) >> 8));
    p[2] = static_cast<uint8_t>(p[2] + (((c.b - p[2]) * a) >> 8));
  }

 private:
  // n RGB pixels from p: memset where the three bytes are equal (black, white, greys), else
  // 16-pixel blocks copied from a pattern (fixed-size copies compile to vector stores).
  static void FillPixels(uint8_t* p, size_t n, Color c) {
    if (c.r == c.g && c.g == c.b) {
      std::memset(p, c.r, n * 3);
      return;
    }
    constexpr size_t kBlock = 16;
    uint8_t pattern[kBlock * 3];
    for (size_t i = 0; i < kBlock; ++i) {
      pattern[3 * i] = c.r;
      pattern[3 * i + 1] = c.g;
      pattern[3 * i + 2] = c.b;
    }
    for (; n >= kBlock; n -= kBlock, p += sizeof(pattern)) std::memcpy(p, pattern, sizeof(pattern));
    std::memcpy(p, pattern, n * 3);
  }

  uint8_t* rgb_;
  int width_;
  int height_;
  bool flip_y_;
};

// pygame.transform.flip(surface, False, True) in place: the rows in reverse order.
inline void FlipVertical(uint8_t* rgb, int width, int height) {
  const size_t row_bytes = static_cast<size_t>(width) * 3;
  for (int top = 0, bottom = height - 1; top < bottom; ++top, --bottom) {
    uint8_t* a = rgb + top * row_bytes;
    uint8_t* b = rgb + bottom * row_bytes;
    for (size_t i = 0; i < row_bytes; ++i) std::swap(a[i], b[i]);
  }
}

}  // namespace envfleet::render2d

#endif  // ENVFLEET_COMMON_RENDER2D_CANVAS_H_
