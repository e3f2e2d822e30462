// Bit-exact twin of OpenCV's cv::resize for single-channel uint8 images, for the shrinking
// resizes Atari and ViZDoom preprocessing use (Gymnasium's AtariPreprocessing calls
// cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA); EnvPool's use_inter_area_resize=False
// calls cv::resize with INTER_LINEAR). Multi-channel images are resized one plane at a time:
// OpenCV treats the channels of an interleaved image independently, with the same weights and
// the same order of operations, so per-plane results are identical.
//
// OpenCV (modules/imgproc/src/resize.cpp, hal::resize) picks one of these paths:
//   same size                       a copy
//   INTER_AREA, integer factors     resizeAreaFast_: 2x2 -> (a + b + c + d + 2) >> 2;
//                                   otherwise saturate(rint(float(int sum) * (1.f / area)))
//   INTER_AREA, other factors >= 1  ResizeArea_Invoker<uchar, float>: per source row, a float
//                                   horizontal pass buf[dx] += S[sx] * alpha over the area table
//                                   (computeResizeAreaTab), then per destination row a float
//                                   vertical pass sum (+)= beta * buf, then saturate(rint(sum))
//   INTER_LINEAR (a 2x2 integer shrink is done as INTER_AREA)
//                                   fixed point: 11-bit coefficients, an int horizontal pass,
//                                   and the vertical pass of its SIMD kernel
//                                   (((h0 >> 4) * b0 >> 16) + ((h1 >> 4) * b1 >> 16) + 2) >> 2
// Every table is computed once, at construction, with OpenCV's own double/float arithmetic;
// the per-frame work allocates nothing (scratch rows are per thread, sized on a thread's first
// frame). Enlarging is not supported (OpenCV then switches to other kernels); the Atari and ViZDoom
// envs reject such sizes.
//
// Exactness notes: products and sums are done in float exactly as OpenCV does them (the build
// uses -ffp-contract=off, so no FMA). Weight tables are padded to a fixed number of taps per
// output with zero weights: adding 0 * x to a finite non-negative float leaves it unchanged,
// so the padding changes no result. Rounding uses round-half-to-even, as cvRound does.
#ifndef ENVFLEET_COMMON_IMAGE_RESIZE_H_
#define ENVFLEET_COMMON_IMAGE_RESIZE_H_

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace envfleet {
namespace image {

class PlaneResizer {
 public:
  enum class Kind { kCopy, kArea2x2, kAreaInt, kArea, kLinear };

  PlaneResizer() = default;

  PlaneResizer(int src_h, int src_w, int dst_h, int dst_w, bool inter_area)
      : src_h_(src_h), src_w_(src_w), dst_h_(dst_h), dst_w_(dst_w) {
    if (src_h < 1 || src_w < 1 || dst_h < 1 || dst_w < 1) {
      throw std::invalid_argument("resize: sizes must be positive");
    }
    if (dst_h > src_h || dst_w > src_w) {
      throw std::invalid_argument("resize: only shrinking is supported, got " +
                                  std::to_string(src_h) + "x" + std::to_string(src_w) + " -> " +
                                  std::to_string(dst_h) + "x" + std::to_string(dst_w));
    }
    if (dst_h == src_h && dst_w == src_w) {
      kind_ = Kind::kCopy;
      return;
    }
    // cv::resize: inv_scale = dsize / ssize; hal::resize: scale = 1 / inv_scale.
    const double inv_scale_x = static_cast<double>(dst_w) / src_w;
    const double inv_scale_y = static_cast<double>(dst_h) / src_h;
    const double scale_x = 1. / inv_scale_x;
    const double scale_y = 1. / inv_scale_y;
    const int iscale_x = static_cast<int>(std::nearbyint(scale_x));
    const int iscale_y = static_cast<int>(std::nearbyint(scale_y));
    const bool is_area_fast =
        std::abs(scale_x - iscale_x) < DBL_EPSILON && std::abs(scale_y - iscale_y) < DBL_EPSILON;
    if (!inter_area && is_area_fast && iscale_x == 2 && iscale_y == 2) inter_area = true;
    if (inter_area) {
      if (is_area_fast) {
        ix_ = iscale_x;
        iy_ = iscale_y;
        kind_ = ix_ == 2 && iy_ == 2 ? Kind::kArea2x2 : Kind::kAreaInt;
        inv_area_ = 1.f / static_cast<float>(ix_ * iy_);
        return;
      }
      kind_ = Kind::kArea;
      AreaTable(src_w, dst_w, scale_x, &kx_, &xidx_, &xw_);
      AreaTable(src_h, dst_h, scale_y, &ky_, &yidx_, &yw_);
      return;
    }
    kind_ = Kind::kLinear;
    LinearTable(src_w, dst_w, scale_x, &lx_, &lxa_);
    LinearTable(src_h, dst_h, scale_y, &ly_, &lya_);
  }

  Kind kind() const { return kind_; }

  // Resizes one src_h x src_w plane (rows contiguous) into dst (dst_h x dst_w).
  void Resize(const uint8_t* src, uint8_t* dst) {
    switch (kind_) {
      case Kind::kCopy:
        std::memcpy(dst, src, static_cast<size_t>(src_h_) * src_w_);
        return;
      case Kind::kArea2x2:
        Area2x2(src, dst);
        return;
      case Kind::kAreaInt:
        AreaInt(src, dst);
        return;
      case Kind::kArea:
        Area(src, dst);
        return;
      case Kind::kLinear:
        Linear(src, dst);
        return;
    }
  }

 private:
  // cvRound for floats well inside int range (here |v| < 2^22): the 1.5 * 2^23 trick rounds
  // to nearest, ties to even, in the default rounding mode, and it vectorises.
  // (Without -ffast-math the compiler may not fold (v + m) - m into v.)
  static inline int RoundHalfEven(float v) {
    constexpr float kMagic = 12582912.0f;
    return static_cast<int>((v + kMagic) - kMagic);
  }
  static inline uint8_t SaturateU8(int v) {
    return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
  }

  // computeResizeAreaTab(), laid out as `taps` (index, weight) pairs per output, in OpenCV's
  // order, padded with zero weights.
  static void AreaTable(int ssize, int dsize, double scale, int* taps, std::vector<int>* idx,
                        std::vector<float>* w) {
    std::vector<std::vector<std::pair<int, float>>> cells(static_cast<size_t>(dsize));
    for (int dx = 0; dx < dsize; ++dx) {
      auto& cell = cells[dx];
      const double fsx1 = dx * scale;
      const double fsx2 = fsx1 + scale;
      const double cell_width = std::min(scale, ssize - fsx1);
      int sx1 = static_cast<int>(std::ceil(fsx1));
      int sx2 = static_cast<int>(std::floor(fsx2));
      sx2 = std::min(sx2, ssize - 1);
      sx1 = std::min(sx1, sx2);
      if (sx1 - fsx1 > 1e-3) {
        cell.emplace_back(sx1 - 1, static_cast<float>((sx1 - fsx1) / cell_width));
      }
      for (int sx = sx1; sx < sx2; ++sx) {
        cell.emplace_back(sx, static_cast<float>(1.0 / cell_width));
      }
      if (fsx2 - sx2 > 1e-3) {
        cell.emplace_back(
            sx2, static_cast<float>(std::min(std::min(fsx2 - sx2, 1.), cell_width) / cell_width));
      }
    }
    int k = 1;
    for (const auto& cell : cells) k = std::max(k, static_cast<int>(cell.size()));
    *taps = k;
    idx->assign(static_cast<size_t>(dsize) * k, 0);
    w->assign(static_cast<size_t>(dsize) * k, 0.f);
    for (int d = 0; d < dsize; ++d) {
      const auto& cell = cells[d];
      for (int j = 0; j < k; ++j) {
        const bool real = j < static_cast<int>(cell.size());
        (*idx)[d * k + j] = real ? cell[j].first : (cell.empty() ? 0 : cell.back().first);
        (*w)[d * k + j] = real ? cell[j].second : 0.f;
      }
    }
  }

  // hal::resize's INTER_LINEAR coefficients: fx = (float)((dx + 0.5) * scale - 0.5),
  // sx = floor(fx), fx -= sx, clamped at the borders; 11-bit fixed point (cvRound).
  static void LinearTable(int ssize, int dsize, double scale, std::vector<int>* ofs,
                          std::vector<int>* coef) {
    ofs->assign(static_cast<size_t>(dsize), 0);
    coef->assign(static_cast<size_t>(dsize) * 2, 0);
    for (int d = 0; d < dsize; ++d) {
      float f = static_cast<float>((d + 0.5) * scale - 0.5);
      int s = static_cast<int>(std::floor(f));
      f -= static_cast<float>(s);
      if (s < 0) f = 0.f, s = 0;
      if (s >= ssize - 1) f = 0.f, s = ssize - 1;
      (*ofs)[d] = s;
      (*coef)[2 * d] = static_cast<int>(std::nearbyint((1.f - f) * 2048.f));
      (*coef)[2 * d + 1] = static_cast<int>(std::nearbyint(f * 2048.f));
    }
  }

  void Area2x2(const uint8_t* src, uint8_t* dst) const {
    for (int dy = 0; dy < dst_h_; ++dy) {
      const uint8_t* s0 = src + static_cast<size_t>(2 * dy) * src_w_;
      const uint8_t* s1 = s0 + src_w_;
      uint8_t* d = dst + static_cast<size_t>(dy) * dst_w_;
      for (int dx = 0; dx < dst_w_; ++dx) {
        d[dx] = static_cast<uint8_t>(
            (s0[2 * dx] + s0[2 * dx + 1] + s1[2 * dx] + s1[2 * dx + 1] + 2) >> 2);
      }
    }
  }

  void AreaInt(const uint8_t* src, uint8_t* dst) const {
    for (int dy = 0; dy < dst_h_; ++dy) {
      uint8_t* d = dst + static_cast<size_t>(dy) * dst_w_;
      for (int dx = 0; dx < dst_w_; ++dx) {
        int sum = 0;
        for (int y = 0; y < iy_; ++y) {
          const uint8_t* s = src + static_cast<size_t>(dy * iy_ + y) * src_w_ + dx * ix_;
          for (int x = 0; x < ix_; ++x) sum += s[x];
        }
        d[dx] = SaturateU8(RoundHalfEven(static_cast<float>(sum) * inv_area_));
      }
    }
  }

  // The horizontal pass of one source row: h[dx] = sum_j float(s[idx[j]]) * w[j], in tap
  // order, `K` taps per output (a compile-time count, so the tap loop unrolls).
  template <int K>
  static void HorizontalRow(const uint8_t* s, const int* idx, const float* w, int n, float* h) {
    for (int dx = 0; dx < n; ++dx, idx += K, w += K) {
      float b = static_cast<float>(s[idx[0]]) * w[0];
      for (int j = 1; j < K; ++j) b = b + static_cast<float>(s[idx[j]]) * w[j];
      h[dx] = b;
    }
  }

  void Area(const uint8_t* src, uint8_t* dst) {
    // Scratch shared by every resizer on this thread: the horizontal pass holds no state
    // between calls, and one buffer per thread stays in cache where one per env would not.
    static thread_local std::vector<float> scratch;
    const size_t need = static_cast<size_t>(src_h_ + 1) * dst_w_;
    if (scratch.size() < need) scratch.resize(need);  // once per thread and size
    float* hbuf = scratch.data();
    float* acc = hbuf + static_cast<size_t>(src_h_) * dst_w_;
    // Horizontal pass, once per source row. A row equal to the one above (common in Atari
    // frames) has the same result, so it is copied rather than recomputed.
    for (int r = 0; r < src_h_; ++r) {
      const uint8_t* s = src + static_cast<size_t>(r) * src_w_;
      float* h = hbuf + static_cast<size_t>(r) * dst_w_;
      if (r > 0 && std::memcmp(s, s - src_w_, static_cast<size_t>(src_w_)) == 0) {
        std::memcpy(h, h - dst_w_, sizeof(float) * dst_w_);
        continue;
      }
      switch (kx_) {
        case 1:
          HorizontalRow<1>(s, xidx_.data(), xw_.data(), dst_w_, h);
          break;
        case 2:
          HorizontalRow<2>(s, xidx_.data(), xw_.data(), dst_w_, h);
          break;
        case 3:
          HorizontalRow<3>(s, xidx_.data(), xw_.data(), dst_w_, h);
          break;
        case 4:
          HorizontalRow<4>(s, xidx_.data(), xw_.data(), dst_w_, h);
          break;
        default: {
          const int k = kx_;
          const int* idx = xidx_.data();
          const float* w = xw_.data();
          for (int dx = 0; dx < dst_w_; ++dx, idx += k, w += k) {
            float b = static_cast<float>(s[idx[0]]) * w[0];
            for (int j = 1; j < k; ++j) b = b + static_cast<float>(s[idx[j]]) * w[j];
            h[dx] = b;
          }
        }
      }
    }
    // Vertical pass per output row, then round and saturate.
    for (int dy = 0; dy < dst_h_; ++dy) {
      const int* idx = yidx_.data() + static_cast<size_t>(dy) * ky_;
      const float* w = yw_.data() + static_cast<size_t>(dy) * ky_;
      {
        const float beta = w[0];
        const float* h = hbuf + static_cast<size_t>(idx[0]) * dst_w_;
        for (int dx = 0; dx < dst_w_; ++dx) acc[dx] = beta * h[dx];
      }
      for (int j = 1; j < ky_; ++j) {
        const float beta = w[j];
        const float* h = hbuf + static_cast<size_t>(idx[j]) * dst_w_;
        for (int dx = 0; dx < dst_w_; ++dx) acc[dx] = acc[dx] + beta * h[dx];
      }
      RoundToU8(acc, dst + static_cast<size_t>(dy) * dst_w_, dst_w_);
    }
  }

  // d[i] = saturate_cast<uchar>(cvRound(v[i])): round half to even, clamp to [0, 255].
  static void RoundToU8(const float* v, uint8_t* d, int n) {
    int i = 0;
#if defined(__SSE2__)
    // cvtps2dq rounds in the current (default: nearest-even) mode, as cvRound does; the two
    // saturating packs clamp to [0, 255] like saturate_cast.
    for (; i + 8 <= n; i += 8) {
      const __m128i lo = _mm_cvtps_epi32(_mm_loadu_ps(v + i));
      const __m128i hi = _mm_cvtps_epi32(_mm_loadu_ps(v + i + 4));
      const __m128i u8 = _mm_packus_epi16(_mm_packs_epi32(lo, hi), _mm_setzero_si128());
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d + i), u8);
    }
#endif
    for (; i < n; ++i) d[i] = SaturateU8(RoundHalfEven(v[i]));
  }

  void Linear(const uint8_t* src, uint8_t* dst) {
    static thread_local std::vector<int32_t> scratch;  // as in Area()
    const size_t need = static_cast<size_t>(src_h_) * dst_w_;
    if (scratch.size() < need) scratch.resize(need);
    int32_t* ibuf = scratch.data();
    for (int r = 0; r < src_h_; ++r) {
      const uint8_t* s = src + static_cast<size_t>(r) * src_w_;
      int32_t* h = ibuf + static_cast<size_t>(r) * dst_w_;
      for (int dx = 0; dx < dst_w_; ++dx) {
        const int sx = lx_[dx];
        const int a0 = lxa_[2 * dx], a1 = lxa_[2 * dx + 1];
        h[dx] = sx + 1 < src_w_ ? s[sx] * a0 + s[sx + 1] * a1 : s[sx] * 2048;
      }
    }
    for (int dy = 0; dy < dst_h_; ++dy) {
      const int sy = ly_[dy];
      const int b0 = lya_[2 * dy], b1 = lya_[2 * dy + 1];
      const int32_t* h0 = ibuf + static_cast<size_t>(sy) * dst_w_;
      const int32_t* h1 = ibuf + static_cast<size_t>(std::min(sy + 1, src_h_ - 1)) * dst_w_;
      uint8_t* d = dst + static_cast<size_t>(dy) * dst_w_;
      for (int dx = 0; dx < dst_w_; ++dx) {
        const int v = (((h0[dx] >> 4) * b0 >> 16) + ((h1[dx] >> 4) * b1 >> 16) + 2) >> 2;
        d[dx] = SaturateU8(v);
      }
    }
  }

  Kind kind_ = Kind::kCopy;
  int src_h_ = 0, src_w_ = 0, dst_h_ = 0, dst_w_ = 0;
  // Integer-factor area.
  int ix_ = 1, iy_ = 1;
  float inv_area_ = 1.f;
  // General area: taps per output column / row, source indices and weights.
  int kx_ = 1, ky_ = 1;
  std::vector<int> xidx_, yidx_;
  std::vector<float> xw_, yw_;
  // Linear.
  std::vector<int> lx_, lxa_, ly_, lya_;
};

}  // namespace image
}  // namespace envfleet

#endif  // ENVFLEET_COMMON_IMAGE_RESIZE_H_
