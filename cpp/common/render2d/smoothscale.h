// pygame.transform.smoothscale, for the references that draw scaled sprites (Gymnasium's
// Pendulum scales its torque arrow, assets/clockwise.png, by the last torque). Sprites are
// image::Image (cpp/common/image/png.h: our PNG decoder; flips and alpha blits are there too).
//
// SmoothScale repeats smoothscale on a 32-bit surface as pygame 2.6.1's x86-64 wheels run it:
// the "SSE" backend (src_c/scale_mmx64.c, filter_shrink_X_SSE / filter_shrink_Y_SSE), an
// area-averaging shrink in 14-bit fixed point with 16-bit lanes (pmulhuw), which differs in
// the last bit from the generic C filter (16-bit fixed point) that other machines run.
// Every byte of a pixel is filtered on its own, so the channel order does not matter.
#ifndef ENVFLEET_COMMON_RENDER2D_SMOOTHSCALE_H_
#define ENVFLEET_COMMON_RENDER2D_SMOOTHSCALE_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "common/image/png.h"

namespace envfleet::render2d {

namespace internal {

// One pass of pygame's SSE area-averaging shrink (filter_shrink_X_SSE / filter_shrink_Y_SSE:
// the same arithmetic along x or y) over `count` source samples of one channel, `stride`
// apart, into `out_count` samples `out_stride` apart. In 16-bit lanes: the accumulator adds
// whole samples (wrapping); the sample that straddles an output boundary is split with
// pmulhuw((s << 2), counter) and pmulhuw((s << 2), 0x4000 - counter); the output is
// pmulhuw(sum, recip) with recip = 0x40000000 / space, saturated to 0..255 as a signed word
// (packuswb). space = 0x4000 * count / out_count; the counter wraps every 0x4000.
inline void ShrinkSSE(const uint8_t* in, size_t stride, int count, uint8_t* out, size_t out_stride,
                      int out_count) {
  const uint32_t space = static_cast<uint32_t>(0x4000 * count / out_count);
  const uint16_t recip = static_cast<uint16_t>(0x40000000u / space);
  uint32_t counter = space;
  uint16_t accumulator = 0;
  int written = 0;
  const auto mulhi = [](uint32_t a, uint32_t b) {
    return static_cast<uint16_t>(((a & 0xffff) * (b & 0xffff)) >> 16);
  };
  for (int i = 0; i < count; ++i) {
    const uint16_t s = in[i * stride];
    if (counter > 0x4000) {
      accumulator = static_cast<uint16_t>(accumulator + s);
      counter -= 0x4000;
      continue;
    }
    const uint16_t s4 = static_cast<uint16_t>(s << 2);
    const uint16_t frac = static_cast<uint16_t>(0x4000 - (counter & 0xffff));
    const uint16_t head = mulhi(s4, counter);
    const uint16_t tail = mulhi(s4, frac);
    const uint16_t sum = static_cast<uint16_t>(accumulator + head);
    accumulator = tail;
    const int16_t value = static_cast<int16_t>(mulhi(sum, recip));
    if (written < out_count) {
      out[written * out_stride] = static_cast<uint8_t>(value < 0 ? 0 : (value > 255 ? 255 : value));
    }
    ++written;
    counter += space;
    counter -= 0x4000;
  }
}

}  // namespace internal

// pygame.transform.smoothscale(image, (width, height)) with the SSE backend, for sizes no
// larger than the image (Gymnasium only shrinks its sprites; enlarging runs other filters,
// not reproduced here: it throws). X is scaled first into a temporary image, then Y.
inline image::Image SmoothScale(const image::Image& src, int width, int height) {
  if (width < 0 || height < 0) throw std::invalid_argument("smoothscale: negative size");
  if (width > src.width || height > src.height)
    throw std::logic_error("smoothscale: enlarging is not implemented");
  image::Image dst(width, height);
  if (width == 0 || height == 0) return dst;
  image::Image tmp;
  const image::Image* rows = &src;
  if (width < src.width) {
    tmp = image::Image(width, src.height);
    for (int y = 0; y < src.height; ++y) {
      for (int k = 0; k < 4; ++k) {
        internal::ShrinkSSE(src.At(0, y) + k, 4, src.width, tmp.At(0, y) + k, 4, width);
      }
    }
    rows = &tmp;
  }
  if (height < src.height) {
    for (int x = 0; x < width; ++x) {
      for (int k = 0; k < 4; ++k) {
        internal::ShrinkSSE(rows->At(x, 0) + k, static_cast<size_t>(width) * 4, src.height,
                            dst.At(x, 0) + k, static_cast<size_t>(width) * 4, height);
      }
    }
  } else {
    dst.rgba = rows->rgba;
  }
  return dst;
}

}  // namespace envfleet::render2d

#endif  // ENVFLEET_COMMON_RENDER2D_SMOOTHSCALE_H_
