// cpp/common/image/surface.h against values pygame 2.6.1 (SDL 2.28.4) produced: which source
// pixel pygame.transform.scale picks, the per-pixel-alpha blit's rounding, pygame.draw.rect's
// border or fill; plus Python's round(). And sprite_cache.h: one decoding per file, variants
// derived from it.
#include "common/image/surface.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "common/image/sprite_cache.h"

namespace envfleet {
namespace {

using image::Blit;
using image::DrawRect;
using image::Flip;
using image::Image;
using image::PyRound;
using image::RgbFrame;
using image::Scale;

TEST(PyRound, TiesGoToEven) {
  CHECK_EQ(PyRound(0.5), 0);
  CHECK_EQ(PyRound(1.5), 2);
  CHECK_EQ(PyRound(2.5), 2);
  CHECK_EQ(PyRound(-0.5), 0);
  CHECK_EQ(PyRound(-1.5), -2);
  CHECK_EQ(PyRound(31.875), 32);              // round(40 * 51 / 64)
  CHECK_EQ(PyRound(0.49999999999999994), 0);  // floor(x + 0.5) would give 1
  CHECK_EQ(PyRound(4.5000000000000009), 5);
  CHECK_EQ(PyRound(64 * 0.12), 8);  // FrozenLake's flag lift
  CHECK_EQ(PyRound(51 * 0.06), 3);
}

// A one-row image whose pixel i has red value i, scaled: the red values are the source indices.
std::vector<int> ScaledIndices(int src, int dst) {
  Image row(src, 1);
  for (int i = 0; i < src; ++i) row.At(i, 0)[0] = static_cast<uint8_t>(i), row.At(i, 0)[3] = 255;
  const Image out = Scale(row, dst, 1);
  std::vector<int> index;
  for (int i = 0; i < dst; ++i) index.push_back(out.At(i, 0)[0]);
  return index;
}

TEST(Scale, PicksThePixelsPygameScalePicks) {
  CHECK(ScaledIndices(5, 3) == (std::vector<int>{0, 1, 3}));
  CHECK(ScaledIndices(5, 7) == (std::vector<int>{0, 0, 1, 2, 2, 3, 4}));
  CHECK(ScaledIndices(5, 13) == (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4}));
  CHECK(ScaledIndices(3, 6) == (std::vector<int>{0, 0, 1, 1, 2, 2}));  // scale2xraw's case
  std::vector<int> expected;  // 64 -> 51: four of every five, pygame's pattern
  for (int i = 0; i < 64; ++i) {
    if (i % 5 != 4 && expected.size() < 51) expected.push_back(i);
  }
  CHECK(ScaledIndices(64, 51) == expected);
  CHECK(ScaledIndices(7, 7) == (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  // Both axes walk the same way; alpha comes along.
  Image img(2, 3);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 2; ++x) {
      uint8_t* p = img.At(x, y);
      p[0] = static_cast<uint8_t>(x), p[1] = static_cast<uint8_t>(y),
      p[3] = static_cast<uint8_t>(10 * y + x);
    }
  }
  const Image big = Scale(img, 4, 5);  // x: 0 0 1 1, y: 0 0 1 1 2 (pygame, 3 -> 5)
  const int ys[5] = {0, 0, 1, 1, 2};
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 4; ++x) {
      CHECK_EQ(big.At(x, y)[0], x / 2);
      CHECK_EQ(big.At(x, y)[1], ys[y]);
      CHECK_EQ(big.At(x, y)[3], 10 * ys[y] + x / 2);
    }
  }
  CHECK_EQ(Scale(img, 0, 4).width, 0);
}

TEST(Flip, MirrorsEachAxis) {
  Image img(3, 2);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) img.At(x, y)[0] = static_cast<uint8_t>(10 * y + x);
  }
  const Image fx = Flip(img, true, false), fy = Flip(img, false, true), fxy = Flip(img, true, true);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) {
      CHECK_EQ(fx.At(x, y)[0], 10 * y + (2 - x));
      CHECK_EQ(fy.At(x, y)[0], 10 * (1 - y) + x);
      CHECK_EQ(fxy.At(x, y)[0], 10 * (1 - y) + (2 - x));
    }
  }
}

TEST(Blit, BlendsAsPygameDoes) {
  // (source, destination, alpha) -> what pygame 2.6.1 left in the destination.
  struct Case {
    int s, d, a, result;
  };
  const Case cases[] = {{0, 255, 1, 254},     {255, 0, 254, 254},   {17, 230, 77, 166},
                        {230, 17, 77, 81},    {100, 100, 128, 100}, {3, 250, 200, 57},
                        {250, 3, 3, 6},       {128, 127, 255, 128}, {0, 0, 0, 0},
                        {255, 255, 128, 255}, {200, 10, 128, 105},  {100, 20, 128, 60},
                        {50, 30, 128, 40}};
  for (const Case& c : cases) {
    Image src(1, 1);
    src.At(0, 0)[0] = src.At(0, 0)[1] = src.At(0, 0)[2] = static_cast<uint8_t>(c.s);
    src.At(0, 0)[3] = static_cast<uint8_t>(c.a);
    uint8_t rgb[3] = {static_cast<uint8_t>(c.d), static_cast<uint8_t>(c.d),
                      static_cast<uint8_t>(c.d)};
    Blit(RgbFrame{rgb, 1, 1}, src, 0, 0);
    CHECK_EQ(rgb[0], c.result);
    CHECK_EQ(rgb[2], c.result);
  }
}

TEST(Blit, ClipsAtEveryEdgeAndSkipsTransparentPixels) {
  Image src(3, 2);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) {
      uint8_t* p = src.At(x, y);
      p[0] = static_cast<uint8_t>(1 + 10 * y + x), p[3] = (x == 1 && y == 1) ? 0 : 255;
    }
  }
  std::vector<uint8_t> rgb(4 * 3 * 3, 99);
  const RgbFrame frame{rgb.data(), 4, 3};
  const auto red = [&](int x, int y) { return static_cast<int>(frame.At(x, y)[0]); };
  Blit(frame, src, -1, -1);  // only source (1..2, 1) lands, at (0..1, 0); (1, 1) is transparent
  CHECK_EQ(red(0, 0), 99);
  CHECK_EQ(red(1, 0), 13);
  CHECK_EQ(red(2, 0), 99);
  CHECK_EQ(red(0, 1), 99);
  Blit(frame, src, 2, 2);  // source (0..1, 0) at (2..3, 2)
  CHECK_EQ(red(2, 2), 1);
  CHECK_EQ(red(3, 2), 2);
  CHECK_EQ(red(1, 2), 99);
  Blit(frame, src, 4, 0);  // entirely outside
  Blit(frame, src, 0, -5);
  CHECK_EQ(red(3, 0), 99);
}

// pygame.draw.rect(Surface((8, 6)), white, rect, width), rows as pygame left them.
std::vector<std::string> Rect(int x, int y, int w, int h, int width) {
  std::vector<uint8_t> rgb(8 * 6 * 3, 0);
  const RgbFrame frame{rgb.data(), 8, 6};
  DrawRect(frame, x, y, w, h, width, {255, 255, 255});
  std::vector<std::string> rows;
  for (int row = 0; row < 6; ++row) {
    std::string line;
    for (int col = 0; col < 8; ++col) line += frame.At(col, row)[0] ? '#' : '.';
    rows.push_back(line);
  }
  return rows;
}

TEST(DrawRect, BorderOrFillAsPygame) {
  using Rows = std::vector<std::string>;
  CHECK(Rect(1, 1, 6, 4, 1) ==
        (Rows{"........", ".######.", ".#....#.", ".#....#.", ".######.", "........"}));
  CHECK(Rect(0, 0, 3, 3, 1) ==
        (Rows{"###.....", "#.#.....", "###.....", "........", "........", "........"}));
  CHECK(Rect(2, 2, 2, 3, 1) ==  // 2 * width not less than 2: filled
        (Rows{"........", "........", "..##....", "..##....", "..##....", "........"}));
  CHECK(Rect(-2, -1, 5, 4, 1) ==  // the border of the whole rect, clipped
        (Rows{"..#.....", "..#.....", "###.....", "........", "........", "........"}));
  CHECK(Rect(1, 0, 7, 6, 2) ==
        (Rows{".#######", ".#######", ".##...##", ".##...##", ".#######", ".#######"}));
  CHECK(Rect(5, 4, 10, 10, 1) ==  // the visible part (3 x 2) is too thin: filled
        (Rows{"........", "........", "........", "........", ".....###", ".....###"}));
  CHECK(Rect(2, 2, 0, 3, 1) == Rect(0, 0, 0, 0, 0));   // empty: nothing
  CHECK(Rect(1, 1, 2, 2, -1) == Rect(0, 0, 0, 0, 0));  // negative width: nothing
}

TEST(LoadSprite, DecodesOnceAndDerivesVariants) {
  // A 2x1 RGBA PNG: stored deflate block, CRCs and Adler-32 computed here.
  const auto be32 = [](std::vector<uint8_t>& out, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(v >> s));
  };
  const auto chunk = [&](std::vector<uint8_t>& out, const char* type,
                         const std::vector<uint8_t>& body) {
    be32(out, static_cast<uint32_t>(body.size()));
    const size_t start = out.size();
    out.insert(out.end(), type, type + 4);
    out.insert(out.end(), body.begin(), body.end());
    be32(out, image::png_internal::Crc32(out.data() + start, out.size() - start));
  };
  const std::vector<uint8_t> raw = {0, 10, 20, 30, 255, 40, 50, 60, 128};
  std::vector<uint8_t> z = {0x78, 0x01, 0x01, 9, 0, 0xf6, 0xff};
  z.insert(z.end(), raw.begin(), raw.end());
  be32(z, image::png_internal::Adler32(raw.data(), raw.size()));
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> ihdr;
  be32(ihdr, 2);
  be32(ihdr, 1);
  ihdr.insert(ihdr.end(), {8, 6, 0, 0, 0});
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", {});
  char path_template[] = "/tmp/envfleet_sprite_XXXXXX.png";
  const int fd = mkstemps(path_template, 4);
  REQUIRE(fd >= 0);
  close(fd);
  const std::string path = path_template;
  {
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  }
  const image::Sprite a = image::LoadSprite(path);
  const image::Sprite b = image::LoadSprite(path);
  std::remove(path.c_str());
  CHECK(a == b);  // the same decoding
  REQUIRE_EQ(a->width, 2);
  CHECK_EQ(a->At(1, 0)[0], 40);
  CHECK_EQ(a->At(1, 0)[3], 128);
  // Variants come from the cached decoding (the file is gone now).
  const image::Sprite flipped = image::LoadSprite(path, {.flip_x = true});
  CHECK_EQ(flipped->At(0, 0)[0], 40);
  const image::Sprite wide = image::LoadSprite(path, {.width = 4, .height = 2});
  CHECK_EQ(wide->width, 4);
  CHECK_EQ(wide->At(2, 1)[0], 40);
  CHECK(image::LoadSprite(path, {.flip_x = true}) == flipped);
  CHECK_THROWS_WITH(std::invalid_argument, "does not exist", image::LoadSprite(path + ".missing"));
}

}  // namespace
}  // namespace envfleet
