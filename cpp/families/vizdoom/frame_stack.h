// The stacked observation of one ViZDoom buffer (the screen, or the depth, labels or automap
// buffer): each new frame's channel planes resized to the observation's size and pushed onto a
// ring of stack_num frames, written oldest first, channel-first ((stack_num * channels, H, W),
// EnvPool's layout). A new episode fills the ring with its first frame.
#ifndef ENVFLEET_FAMILIES_VIZDOOM_FRAME_STACK_H_
#define ENVFLEET_FAMILIES_VIZDOOM_FRAME_STACK_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/image/resize.h"

namespace envfleet {
namespace vizdoom {

// OpenCV's INTER_NEAREST shrink (cv::resize: source index floor(dst index * src / dst)), for
// the labels buffer, whose values are object ids that must not be averaged.
class NearestResizer {
 public:
  NearestResizer() = default;
  NearestResizer(int src_h, int src_w, int dst_h, int dst_w) : src_w_(src_w) {
    const double fy = static_cast<double>(src_h) / dst_h;
    const double fx = static_cast<double>(src_w) / dst_w;
    for (int y = 0; y < dst_h; ++y) {
      rows_.push_back(std::min(static_cast<int>(std::floor(y * fy)), src_h - 1));
    }
    for (int x = 0; x < dst_w; ++x) {
      cols_.push_back(std::min(static_cast<int>(std::floor(x * fx)), src_w - 1));
    }
  }
  void Resize(const uint8_t* src, uint8_t* dst) const {
    for (int row : rows_) {
      const uint8_t* s = src + static_cast<size_t>(row) * src_w_;
      for (int col : cols_) *dst++ = s[col];
    }
  }

 private:
  int src_w_ = 0;
  std::vector<int> rows_, cols_;
};

class FrameStack {
 public:
  FrameStack() = default;
  // A buffer of `channels` planes of raw_h x raw_w (planar, or interleaved pixels when
  // !planar), observed as stack_num frames of h x w.
  FrameStack(int channels, bool planar, int raw_h, int raw_w, int h, int w, int stack_num,
             bool inter_area, bool nearest)
      : channels_(channels),
        planar_(planar || channels == 1),
        nearest_(nearest),
        stack_num_(stack_num),
        raw_plane_(static_cast<size_t>(raw_h) * raw_w),
        plane_(static_cast<size_t>(h) * w),
        frame_bytes_(static_cast<size_t>(channels) * h * w),
        gathered_(planar_ ? 0 : raw_plane_),
        ring_(frame_bytes_ * stack_num) {
    if (nearest) {
      nearest_resizer_ = NearestResizer(raw_h, raw_w, h, w);
    } else {
      resizer_ = image::PlaneResizer(raw_h, raw_w, h, w, inter_area);
    }
  }

  void Push(const uint8_t* raw, bool fill) {
    head_ = (head_ + 1) % stack_num_;
    uint8_t* frame = ring_.data() + static_cast<size_t>(head_) * frame_bytes_;
    for (int c = 0; c < channels_; ++c) {
      const uint8_t* src = raw + static_cast<size_t>(c) * raw_plane_;
      if (!planar_) {  // interleaved pixels: gather channel c
        for (size_t p = 0; p < raw_plane_; ++p) gathered_[p] = raw[p * channels_ + c];
        src = gathered_.data();
      }
      uint8_t* dst = frame + static_cast<size_t>(c) * plane_;
      if (nearest_) {
        nearest_resizer_.Resize(src, dst);
      } else {
        resizer_.Resize(src, dst);
      }
    }
    if (!fill) return;
    for (int i = 0; i < stack_num_; ++i) {
      if (i != head_) std::memcpy(ring_.data() + i * frame_bytes_, frame, frame_bytes_);
    }
  }

  void Write(uint8_t* out) const {
    for (int i = 0; i < stack_num_; ++i) {
      const int slot = (head_ + 1 + i) % stack_num_;
      std::memcpy(out + static_cast<size_t>(i) * frame_bytes_,
                  ring_.data() + static_cast<size_t>(slot) * frame_bytes_, frame_bytes_);
    }
  }

 private:
  int channels_ = 1;
  bool planar_ = true;
  bool nearest_ = false;
  int stack_num_ = 1;
  size_t raw_plane_ = 0, plane_ = 0, frame_bytes_ = 0;
  std::vector<uint8_t> gathered_;
  std::vector<uint8_t> ring_;
  int head_ = 0;
  image::PlaneResizer resizer_;
  NearestResizer nearest_resizer_;
};

}  // namespace vizdoom
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_VIZDOOM_FRAME_STACK_H_
