// cpp/common/render2d: the facts of SDL_gfx's and pygame's arithmetic that the rasteriser
// relies on, each checked on its own. (Whole shapes and frames against pygame itself:
// tests/families/classic_control/test_classic_control_render.py.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "common/render2d/canvas.h"
#include "common/render2d/draw.h"
#include "common/render2d/geometry.h"
#include "common/render2d/gfxdraw.h"
#include "common/render2d/smoothscale.h"

namespace envfleet::render2d {
namespace {

std::vector<uint8_t> Frame(int w, int h, uint8_t value = 0) {
  return std::vector<uint8_t>(static_cast<size_t>(w) * h * 3, value);
}

TEST(Canvas, BlendIsSdlGfxsShiftBlend) {
  std::vector<uint8_t> rgb = Frame(4, 1);
  const Canvas c(rgb.data(), 4, 1);
  c.Fill({255, 0, 100});
  c.Blend(0, 0, {0, 255, 100}, 128);  // (s - d) * a >> 8, rounding towards -infinity
  CHECK_EQ(rgb[0], 255 - 128);        // 255 + (-255 * 128 >> 8) = 255 - 128
  CHECK_EQ(rgb[1], 127);              // 0 + (255 * 128 >> 8)
  CHECK_EQ(rgb[2], 100);
  c.Blend(1, 0, {0, 255, 0}, 254);  // 254 never reaches the colour ...
  CHECK_EQ(rgb[3], 1);
  CHECK_EQ(rgb[4], 253);
  c.Blend(2, 0, {0, 255, 0}, 255);  // ... 255 stores it
  CHECK_EQ(rgb[6], 0);
  CHECK_EQ(rgb[7], 255);
  c.Blend(3, 0, {0, 255, 0}, 0);  // 0 leaves the pixel
  CHECK_EQ(rgb[9], 255);
  c.Blend(4, 0, {0, 0, 0}, 255);  // outside: clipped, no write
  c.Blend(-1, 0, {0, 0, 0}, 255);
}

TEST(Canvas, AFlippedViewIsDrawingThenFlipping) {
  std::vector<uint8_t> flipped = Frame(3, 2), drawn = Frame(3, 2);
  const Canvas a(flipped.data(), 3, 2, /*flip_y=*/true), b(drawn.data(), 3, 2);
  for (const Canvas* c : {&a, &b}) {
    c->Set(0, 0, {10, 20, 30});
    c->Blend(2, 1, {200, 200, 200}, 100);
  }
  FlipVertical(drawn.data(), 3, 2);
  CHECK(flipped == drawn);
  CHECK_EQ(flipped[3 * 3], 10);  // (0, 0) is the first pixel of the bottom row
}

TEST(Gfx, HLineSwapsItsEndsAndClips) {
  std::vector<uint8_t> rgb = Frame(4, 2);
  const Canvas c(rgb.data(), 4, 2);
  gfx::HLine(c, 9, -3, 1, {7, 7, 7});
  for (int x = 0; x < 4; ++x) {
    CHECK_EQ(c.At(x, 0)[0], 0);
    CHECK_EQ(c.At(x, 1)[0], 7);
  }
  gfx::HLine(c, 0, 3, 2, {9, 9, 9});  // below the surface: nothing
  gfx::VLine(c, 2, 5, -5, {1, 1, 1});
  CHECK_EQ(c.At(2, 0)[0], 1);
  CHECK_EQ(c.At(2, 1)[0], 1);
}

TEST(Gfx, FilledPolygonDrawsASliverWhoseRoundedEndsCross) {
  // A spike one pixel wide at most: on its rows the two intersections round to ends in
  // reverse order, and hline's swap still draws them.
  std::vector<uint8_t> rgb = Frame(8, 8);
  const Canvas c(rgb.data(), 8, 8);
  const int16_t xs[3] = {3, 4, 3}, ys[3] = {0, 7, 7};
  gfx::FilledPolygon(c, xs, ys, 3, {255, 255, 255});
  int lit = 0;
  for (size_t i = 0; i < rgb.size(); i += 3) lit += rgb[i] != 0;
  CHECK_GT(lit, 7);  // every row has at least one pixel
}

TEST(Gfx, CirclesOfRadiusZeroAreAPixel) {
  std::vector<uint8_t> rgb = Frame(3, 3);
  const Canvas c(rgb.data(), 3, 3);
  gfx::FilledCircle(c, 1, 1, 0, {5, 5, 5});
  gfx::FilledCircle(c, 1, 1, -1, {9, 9, 9});  // negative: nothing
  int lit = 0;
  for (size_t i = 0; i < rgb.size(); i += 3) lit += rgb[i] != 0;
  CHECK_EQ(lit, 1);
  CHECK_EQ(c.At(1, 1)[0], 5);
}

TEST(Geometry, RotateRadIsExactOnQuarterTurns) {
  const Vec2 v{1.5, -2.25};
  const Vec2 q = RotateRad(v, M_PI / 2);
  CHECK_EQ(q.x, 2.25);
  CHECK_EQ(q.y, 1.5);
  const Vec2 h = RotateRad(v, -M_PI);  // -pi reduces to pi
  CHECK_EQ(h.x, -1.5);
  CHECK_EQ(h.y, 2.25);
  const Vec2 full = RotateRad(v, 2 * M_PI - 1e-7);  // within epsilon of a full turn
  CHECK_EQ(full.x, 1.5);
  const Vec2 r = RotateRad({1, 0}, 0.5);
  CHECK_EQ(r.x, std::cos(0.5));
  CHECK_EQ(r.y, std::sin(0.5));
}

TEST(Geometry, GfxIntTruncatesThenWrapsToSint16) {
  CHECK_EQ(GfxInt(-1.9), -1);
  CHECK_EQ(GfxInt(2.9999), 2);
  CHECK_EQ(GfxInt(40000.5), 40000 - 65536);
}

TEST(SmoothScale, RepeatsPygamesSseFilterOnAnOpaqueImage) {
  // Values pygame 2.6.1 (x86-64, SSE backend) gives for a 329 x 312 image of alpha 255: the
  // 14-bit fixed point loses a little, and shrinking to one pixel overflows the 16-bit
  // accumulator (329 * 255 wraps), which gives 54.
  image::Image src(329, 312);
  for (size_t i = 0; i < src.rgba.size(); ++i) src.rgba[i] = i % 4 == 3 ? 255 : 0;
  const auto alpha_range = [&](int size) {
    const image::Image dst = SmoothScale(src, size, size);
    int lo = 255, hi = 0;
    for (size_t i = 3; i < dst.rgba.size(); i += 4) {
      lo = std::min<int>(lo, dst.rgba[i]);
      hi = std::max<int>(hi, dst.rgba[i]);
    }
    for (size_t i = 0; i < dst.rgba.size(); ++i) {
      if (i % 4 != 3) CHECK_EQ(dst.rgba[i], 0);
    }
    return std::pair<int, int>(lo, hi);
  };
  CHECK(alpha_range(1) == std::make_pair(54, 54));
  CHECK(alpha_range(2) == std::make_pair(253, 253));
  CHECK(alpha_range(57) == std::make_pair(253, 253));
  CHECK(alpha_range(113) == std::make_pair(253, 253));
  CHECK(alpha_range(311) == std::make_pair(251, 253));
  CHECK(SmoothScale(src, 0, 5).rgba.empty());
  CHECK(SmoothScale(src, 329, 312).rgba == src.rgba);
  CHECK_THROWS(std::logic_error, SmoothScale(src, 330, 10));
}

// A frame drawn in white on black as rows of '#' (lit) and '.', for comparing with pygame.
std::vector<std::string> Mask(const std::vector<uint8_t>& rgb, int w, int h) {
  std::vector<std::string> rows(h, std::string(w, '.'));
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      if (rgb[(static_cast<size_t>(y) * w + x) * 3] != 0) rows[y][x] = '#';
    }
  }
  return rows;
}

// The expected masks below are what pygame 2.6.1 draws for the same calls on an 8x8 surface.
TEST(Draw, PolygonTruncatesPointsAndScansRows) {
  // pygame.draw.polygon(s, white, [(1.9, 1.2), (6.7, 2.5), (4.2, 7.9)]): int() of each number.
  std::vector<uint8_t> rgb = Frame(8, 8);
  const Canvas c(rgb.data(), 8, 8);
  const int xs[] = {1, 6, 4}, ys[] = {1, 2, 7};
  draw::Polygon(c, xs, ys, 3, {255, 255, 255});
  const std::vector<std::string> want = {"........", ".#......", ".######.", "..####..",
                                         "..####..", "...##...", "...##...", "....#..."};
  CHECK(Mask(rgb, 8, 8) == want);
}

TEST(Draw, PolygonDrawsInnerHorizontalEdges) {
  // An L shape: its inner horizontal edge (row 4, x 3..6) is a lower border the scan skips.
  std::vector<uint8_t> rgb = Frame(8, 8);
  const Canvas c(rgb.data(), 8, 8);
  const int xs[] = {1, 6, 6, 3, 3, 1}, ys[] = {1, 1, 4, 4, 6, 6};
  draw::Polygon(c, xs, ys, 6, {255, 255, 255});
  const std::vector<std::string> want = {"........", ".######.", ".######.", ".######.",
                                         ".######.", ".###....", ".###....", "........"};
  CHECK(Mask(rgb, 8, 8) == want);
}

TEST(Draw, LinesWidthTwoWalkTheUnclippedLine) {
  // pygame.draw.lines(s, white, False, [(-2, 1), (6, 3), (3, 9)], 2): the first segment starts
  // outside (clipped), the second runs off the bottom.
  std::vector<uint8_t> rgb = Frame(8, 8);
  const Canvas c(rgb.data(), 8, 8);
  const int xs[] = {-2, 6, 3}, ys[] = {1, 3, 9};
  draw::LinesWidth(c, xs, ys, 3, /*closed=*/false, /*width=*/2, {255, 255, 255});
  const std::vector<std::string> want = {"........", "........", "###.....", "########",
                                         "...#####", ".....##.", ".....##.", "....##.."};
  CHECK(Mask(rgb, 8, 8) == want);
}

TEST(SmoothScale, RgbFramesShrinkAsImagesDo) {
  // SmoothScaleRgb filters each channel as SmoothScale does on an RGBA image (checked against
  // pygame above): the same bytes, with and without an X or a Y pass.
  image::Image src(53, 41);
  std::vector<uint8_t> rgb(53 * 41 * 3);
  uint32_t state = 12345;
  for (int i = 0; i < 53 * 41; ++i) {
    for (int k = 0; k < 4; ++k) {
      state = state * 1103515245u + 12345u;
      src.rgba[i * 4 + k] = k == 3 ? 255 : static_cast<uint8_t>(state >> 24);
      if (k < 3) rgb[i * 3 + k] = src.rgba[i * 4 + k];
    }
  }
  std::vector<uint8_t> scratch;
  for (const auto& [w, h] : {std::pair{7, 9}, std::pair{53, 20}, std::pair{10, 41}}) {
    const image::Image want = SmoothScale(src, w, h);
    std::vector<uint8_t> got(static_cast<size_t>(w) * h * 3);
    SmoothScaleRgb(rgb.data(), 53, 41, got.data(), w, h, &scratch);
    for (int i = 0; i < w * h; ++i) {
      for (int k = 0; k < 3; ++k) CHECK_EQ(got[i * 3 + k], want.rgba[i * 4 + k]);
    }
  }
}

}  // namespace
}  // namespace envfleet::render2d
