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

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

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

namespace internal {

// ShrinkSSE over `lanes` interleaved channels at once (lane l of sample i at
// in[i * stride + l]): every lane sees the same counter, so each gets exactly ShrinkSSE's
// arithmetic, while the inner loops run over contiguous bytes (whole rows in the Y pass).
// `acc` holds one 16-bit accumulator per lane. kLanes > 0 fixes the lane count at compile time
// (the X pass's 3 channels: the lane loops unroll); the pointers do not overlap, which lets
// the compiler vectorise the Y pass's long lane loops.
template <int kLanes = 0>
inline void ShrinkLanes(const uint8_t* __restrict in, size_t stride, int count,
                        uint8_t* __restrict out, size_t out_stride, int out_count, int lanes_arg,
                        uint16_t* __restrict acc) {
  const int lanes = kLanes > 0 ? kLanes : lanes_arg;
  const uint32_t space = static_cast<uint32_t>(0x4000 * count / out_count);
  const uint16_t recip = static_cast<uint16_t>(0x40000000u / space);
  uint32_t counter = space;
  int written = 0;
  for (int l = 0; l < lanes; ++l) acc[l] = 0;
  for (int i = 0; i < count; ++i) {
    const uint8_t* __restrict s = in + i * stride;
    if (counter > 0x4000) {
      // This sample and the next ones that also fall wholly inside the output pixel (the
      // counter stays above 0x4000 for (counter - 1) / 0x4000 samples): the same additions,
      // one loop with no branch per sample.
      const int run = std::min<int>((counter - 1) / 0x4000, count - i);
      for (int k = 0; k < run; ++k, s += stride) {
        for (int l = 0; l < lanes; ++l) acc[l] = static_cast<uint16_t>(acc[l] + s[l]);
      }
      counter -= 0x4000u * run;
      i += run - 1;
      continue;
    }
    const uint32_t head_mul = counter & 0xffff;
    const uint32_t tail_mul = static_cast<uint16_t>(0x4000 - (counter & 0xffff));
    if (written < out_count) {
      uint8_t* __restrict o = out + written * out_stride;
      for (int l = 0; l < lanes; ++l) {
        const uint32_t s4 = static_cast<uint16_t>(s[l] << 2);
        const uint16_t head = static_cast<uint16_t>((s4 * head_mul) >> 16);
        const uint16_t sum = static_cast<uint16_t>(acc[l] + head);
        acc[l] = static_cast<uint16_t>((s4 * tail_mul) >> 16);
        const int16_t value = static_cast<int16_t>((uint32_t{sum} * recip) >> 16);
        o[l] = static_cast<uint8_t>(value < 0 ? 0 : (value > 255 ? 255 : value));
      }
    } else {
      for (int l = 0; l < lanes; ++l) {
        acc[l] = static_cast<uint16_t>((static_cast<uint16_t>(s[l] << 2) * tail_mul) >> 16);
      }
    }
    ++written;
    counter += space;
    counter -= 0x4000;
  }
}

}  // namespace internal

// SmoothScale on RGB byte frames (3 bytes a pixel, rows top first, no padding): the same
// shrink, channel by channel (pygame filters each byte of a 32-bit pixel on its own, so the
// missing fourth byte changes nothing). For references that draw a large surface and shrink
// it into their frame (CarRacing: 1000x800 to 96x96 and 600x400). `scratch` is working space
// kept by the caller so that repeated frames do not allocate.
inline void SmoothScaleRgb(const uint8_t* src, int src_width, int src_height, uint8_t* dst,
                           int width, int height, std::vector<uint8_t>* scratch) {
  if (width < 0 || height < 0) throw std::invalid_argument("smoothscale: negative size");
  if (width > src_width || height > src_height)
    throw std::logic_error("smoothscale: enlarging is not implemented");
  if (width == 0 || height == 0) return;
  const size_t row_bytes = static_cast<size_t>(width) * 3;
  // scratch: the X pass's rows, then one 16-bit accumulator per byte of a row.
  const size_t rows_bytes = width < src_width ? row_bytes * src_height : 0;
  scratch->resize(rows_bytes + row_bytes * sizeof(uint16_t) + sizeof(uint16_t));
  uint8_t* rows = scratch->data();
  uint16_t acc_x[3];
  auto* acc = reinterpret_cast<uint16_t*>(
      scratch->data() + ((rows_bytes + alignof(uint16_t) - 1) & ~(alignof(uint16_t) - 1)));
  const uint8_t* x_scaled = src;
  if (width < src_width) {
    for (int y = 0; y < src_height; ++y) {
      internal::ShrinkLanes<3>(src + static_cast<size_t>(y) * src_width * 3, 3, src_width,
                               rows + y * row_bytes, 3, width, 3, acc_x);
    }
    x_scaled = rows;
  }
  if (height < src_height) {
    internal::ShrinkLanes(x_scaled, row_bytes, src_height, dst, row_bytes, height,
                          static_cast<int>(row_bytes), acc);
  } else {
    std::copy(x_scaled, x_scaled + row_bytes * height, dst);
  }
}

}  // namespace envfleet::render2d

#endif  // ENVFLEET_COMMON_RENDER2D_SMOOTHSCALE_H_
