// Mission strings: the text each env's _gen_grid sets (minigrid 3.2.0), built without
// allocating, and EnvPool 1.2.5's mission_id.
//
// The observation carries the mission as EnvPool does: its bytes, zero-padded to
// mission_bytes (96 for the MiniGrid ids; a longer mission is cut there, as EnvPool cuts it).
// mission_id is EnvPool's info entry (measured against envpool 1.2.5, tests/families/minigrid/
// test_minigrid_spec.py): 0 for an env whose missions never vary, else an index of the
// placeholders the env drew, COLOR_TO_IDX order for colours and key 0, ball 1, box 2 for
// objects (EnvPool's MissionObjectIndex); each env's header says which.
#ifndef ENVFLEET_FAMILIES_MINIGRID_MISSION_H_
#define ENVFLEET_FAMILIES_MINIGRID_MISSION_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "families/minigrid/world_object.h"

namespace envfleet::minigrid {

class MissionText {
 public:
  static constexpr size_t kCapacity = 1024;  // BabyAI's longest missions fit many times over

  void Clear() { size_ = 0; }
  MissionText& operator<<(std::string_view text) {
    const size_t n = std::min(text.size(), kCapacity - size_);
    std::memcpy(chars_.data() + size_, text.data(), n);
    size_ += n;
    return *this;
  }
  MissionText& operator<<(Color color) { return *this << ColorName(color); }
  MissionText& operator<<(Type type) { return *this << TypeName(type); }
  void Set(std::string_view text) {
    Clear();
    *this << text;
  }

  std::string_view view() const { return {chars_.data(), size_}; }

  // The observation's bytes: the text, cut at or padded with zeros to `bytes`.
  void Write(uint8_t* out, size_t bytes) const {
    const size_t n = std::min(size_, bytes);
    std::memcpy(out, chars_.data(), n);
    std::memset(out + n, 0, bytes - n);
  }

 private:
  std::array<char, kCapacity> chars_{};
  size_t size_ = 0;
};

// EnvPool's index of an object type in missions: key 0, ball 1, anything else (box) 2.
inline int MissionObjectIndex(Type type) {
  return type == Type::kKey ? 0 : type == Type::kBall ? 1 : 2;
}

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_MISSION_H_
