// cpp/common/render2d/draw.h: pygame 2.6.1's filled polygon and circle. Each expected
// mask below is what pygame.draw drew on a black 12x9 surface for the same call (printed with
// pygame 2.6.1, '#' = drawn); whole Box2D frames are compared with Gymnasium's in
// tests/families/box2d/.
#include <cstdint>
#include <string>
#include <vector>

#include "check.h"
#include "common/render2d/canvas.h"
#include "common/render2d/draw.h"

namespace envfleet::render2d::draw {
namespace {

constexpr int kW = 12, kH = 9;

// Draws with `draw` on a black kW x kH canvas and returns its rows as '#'/'.' strings.
template <typename Draw>
std::vector<std::string> Mask(Draw draw) {
  std::vector<uint8_t> rgb(kW * kH * 3, 0);
  const Canvas canvas(rgb.data(), kW, kH);
  draw(canvas);
  std::vector<std::string> rows;
  for (int y = 0; y < kH; ++y) {
    std::string row;
    for (int x = 0; x < kW; ++x) row += rgb[(y * kW + x) * 3] ? '#' : '.';
    rows.push_back(row);
  }
  return rows;
}

template <int N>
std::vector<std::string> PolygonMask(const int (&points)[N][2]) {
  return Mask([&](const Canvas& c) {
    int xs[N], ys[N];
    for (int i = 0; i < N; ++i) xs[i] = points[i][0], ys[i] = points[i][1];
    Polygon(c, xs, ys, N, {255, 0, 0});
  });
}

TEST(DrawFill, Triangle) {
  const int points[3][2] = {{1, 1}, {10, 3}, {4, 8}};
  const std::vector<std::string> expected = {"............", ".#..........", ".#####......",
                                             ".##########.", "..#######...", "..######....",
                                             "...####.....", "...###......", "....#......."};
  CHECK(PolygonMask(points) == expected);
}

TEST(DrawFill, OneRowHighIsOneSpan) {
  const int points[3][2] = {{2, 4}, {9, 4}, {6, 4}};
  const std::vector<std::string> expected = {"............", "............", "............",
                                             "............", "..########..", "............",
                                             "............", "............", "............"};
  CHECK(PolygonMask(points) == expected);
}

TEST(DrawFill, InnerHorizontalEdgesAreDrawnAfterTheScan) {
  // The notch's floor (y = 4, from x 3 to 6) is a lower border the scan alone leaves out.
  const int points[8][2] = {{1, 1}, {10, 1}, {10, 7}, {6, 7}, {6, 4}, {3, 4}, {3, 7}, {1, 7}};
  const std::vector<std::string> expected = {"............", ".##########.", ".##########.",
                                             ".##########.", ".##########.", ".###..#####.",
                                             ".###..#####.", ".###..#####.", "............"};
  CHECK(PolygonMask(points) == expected);
}

TEST(DrawFill, ClippedToTheSurface) {
  const int points[4][2] = {{-5, -2}, {8, 2}, {14, 12}, {-1, 6}};
  const std::vector<std::string> expected = {"##..........", "#####.......", "#########...",
                                             "#########...", "##########..", "##########..",
                                             "###########.", ".###########", "....########"};
  CHECK(PolygonMask(points) == expected);
}

TEST(DrawFill, SmallCircle) {
  const std::vector<std::string> expected = {"............", "............", "....##......",
                                             "...####.....", "...####.....", "....##......",
                                             "............", "............", "............"};
  CHECK(Mask([](const Canvas& c) { Circle(c, 5, 4, 2, {255, 0, 0}); }) == expected);
}

TEST(DrawFill, CircleAcrossTheEdge) {
  const std::vector<std::string> expected = {".......#####", "......######", ".....#######",
                                             ".....#######", ".....#######", ".....#######",
                                             "......######", ".......#####", "........####"};
  CHECK(Mask([](const Canvas& c) { Circle(c, 10, 4, 5, {255, 0, 0}); }) == expected);
}

TEST(DrawFill, CircleBelowRadiusOneDrawsNothing) {
  const std::vector<std::string> empty(kH, std::string(kW, '.'));
  CHECK(Mask([](const Canvas& c) { Circle(c, 5, 4, 0, {255, 0, 0}); }) == empty);
}

}  // namespace
}  // namespace envfleet::render2d::draw
