// cpp/common/image/planar.h: InterleavedToPlanar against the plain definition
// (planes[c * n + p] == rgb[3 * p + c]) for every length from 0 to 80 pixels (the 16-pixel
// shuffle path, the tail after it, and lengths under one group) and a 64x64 frame, at
// unaligned addresses, without writing past the planes.
#include "common/image/planar.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "check.h"

namespace envfleet {
namespace {

void CheckLength(size_t pixels, size_t offset) {
  std::vector<uint8_t> rgb(3 * pixels + offset);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<uint8_t>(i * 151 + 7);
  const uint8_t guard = 0xA5;
  std::vector<uint8_t> planes(3 * pixels + offset + 16, guard);
  image::InterleavedToPlanar(rgb.data() + offset, planes.data() + offset, pixels);
  for (size_t c = 0; c < 3; ++c) {
    for (size_t p = 0; p < pixels; ++p) {
      CHECK_EQ(planes[offset + c * pixels + p], rgb[offset + 3 * p + c]);
    }
  }
  for (size_t i = 0; i < offset; ++i) CHECK_EQ(planes[i], guard);
  for (size_t i = offset + 3 * pixels; i < planes.size(); ++i) CHECK_EQ(planes[i], guard);
}

TEST(InterleavedToPlanar, EqualsThePlainDefinitionForAnyLength) {
  for (size_t pixels = 0; pixels <= 80; ++pixels) {
    CheckLength(pixels, 0);
    CheckLength(pixels, 3);
  }
}

TEST(InterleavedToPlanar, AProcgenFrame) { CheckLength(64 * 64, 1); }

}  // namespace
}  // namespace envfleet
