// AtariResizeCheck: a fixture env type of the test-only module _envfleet_testing (module.cc),
// not a game. Each reset or step draws a new uint8 image (uniform noise, Atari-like runs of a
// few colours, or 0/255 extremes, in turn) and returns it as obs "src" (H, W[, C]) together
// with its resize by cpp/common/image/resize.h's PlaneResizer as obs "dst", so
// tests/families/atari/test_atari_resize.py can compare "dst" with cv2.resize(src) bit for bit
// through the ordinary pool. Channels are interleaved as cv2 holds them and resized one plane
// at a time, as the Atari env does. Header-only resize code: no ALE needed.
#ifndef ENVFLEET_TESTS_CPP_TESTING_MODULE_ATARI_RESIZE_CHECK_H_
#define ENVFLEET_TESTS_CPP_TESTING_MODULE_ATARI_RESIZE_CHECK_H_

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/image/resize.h"
#include "core/env.h"
#include "core/spec.h"

namespace envfleet {
namespace testing {

class AtariResizeCheckEnv : public Env {
 public:
  static Config DefaultConfig() {
    return {{"src_height", int64_t{210}}, {"src_width", int64_t{160}}, {"dst_height", int64_t{84}},
            {"dst_width", int64_t{84}},   {"channels", int64_t{1}},    {"inter_area", true}};
  }

  static EnvSpec Spec(const Config& config) {
    const int64_t c = config.Get<int64_t>("channels");
    if (c < 1 || c > 4) throw std::invalid_argument("channels must be in [1, 4]");
    EnvSpec spec;
    spec.obs = {Box("src", DType::kUint8,
                    {config.Get<int64_t>("src_height"), config.Get<int64_t>("src_width"), c}, {0.0},
                    {255.0}),
                Box("dst", DType::kUint8,
                    {config.Get<int64_t>("dst_height"), config.Get<int64_t>("dst_width"), c}, {0.0},
                    {255.0})};
    spec.obs_layout = ObsLayout::kDict;
    spec.action = Discrete("action", 1);
    return spec;
  }

  AtariResizeCheckEnv(const Config& config, uint64_t seed)
      : Env(seed),
        sh_(static_cast<int>(config.Get<int64_t>("src_height"))),
        sw_(static_cast<int>(config.Get<int64_t>("src_width"))),
        dh_(static_cast<int>(config.Get<int64_t>("dst_height"))),
        dw_(static_cast<int>(config.Get<int64_t>("dst_width"))),
        c_(static_cast<int>(config.Get<int64_t>("channels"))),
        resizer_(sh_, sw_, dh_, dw_, config.Get<bool>("inter_area")),
        src_(static_cast<size_t>(sh_) * sw_ * c_),
        dst_(static_cast<size_t>(dh_) * dw_ * c_),
        plane_in_(static_cast<size_t>(sh_) * sw_),
        plane_out_(static_cast<size_t>(dh_) * dw_) {}

  void Reset() override { Draw(); }
  void Step(const void*) override {
    Draw();
    reward_ = 0.0;
    terminated_ = false;
  }
  void Write(const OutputSlot& out) const override {
    std::memcpy(out.Get<uint8_t>(0), src_.data(), src_.size());
    std::memcpy(out.Get<uint8_t>(1), dst_.data(), dst_.size());
  }

 private:
  uint8_t Byte() { return static_cast<uint8_t>(rng().NextUint64() >> 56); }

  void Draw() {
    const int pattern = static_cast<int>(count_++ % 3);
    if (pattern == 0) {  // uniform noise
      for (auto& v : src_) v = Byte();
    } else if (pattern == 1) {  // runs of a few levels, repeated rows: like Atari frames
      uint8_t palette[4] = {Byte(), Byte(), Byte(), Byte()};
      for (int y = 0; y < sh_; ++y) {
        if (y > 0 && (Byte() & 3) != 0) {
          std::memcpy(&src_[static_cast<size_t>(y) * sw_ * c_],
                      &src_[static_cast<size_t>(y - 1) * sw_ * c_], static_cast<size_t>(sw_) * c_);
          continue;
        }
        uint8_t level = palette[Byte() & 3];
        for (int x = 0; x < sw_ * c_; ++x) {
          if ((Byte() & 7) == 0) level = palette[Byte() & 3];
          src_[static_cast<size_t>(y) * sw_ * c_ + x] = level;
        }
      }
    } else {  // extremes
      for (auto& v : src_) v = (Byte() & 1) ? 255 : 0;
    }
    for (int c = 0; c < c_; ++c) {
      for (size_t i = 0; i < plane_in_.size(); ++i) plane_in_[i] = src_[i * c_ + c];
      resizer_.Resize(plane_in_.data(), plane_out_.data());
      for (size_t i = 0; i < plane_out_.size(); ++i) dst_[i * c_ + c] = plane_out_[i];
    }
  }

  int sh_, sw_, dh_, dw_, c_;
  image::PlaneResizer resizer_;
  std::vector<uint8_t> src_, dst_, plane_in_, plane_out_;
  int64_t count_ = 0;
};

}  // namespace testing
}  // namespace envfleet

#endif  // ENVFLEET_TESTS_CPP_TESTING_MODULE_ATARI_RESIZE_CHECK_H_
