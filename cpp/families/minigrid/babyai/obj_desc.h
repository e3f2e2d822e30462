// BabyAI's object descriptions: a port of minigrid 3.2.0's ObjDesc
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/core/verifier.py):
// a type, a colour and a location relative to the agent (each possibly None), the objects of
// the grid that match it (obj_set, by identity) and their positions (obj_poss), and its words
// ("the red ball on your left", "a key").
//
// find_matching_objs scans the grid column by column (x outer, y inner) as minigrid does, so
// obj_set and obj_poss list objects in minigrid's order. A location only matches objects in
// the room the agent stands in, on the side of the agent it names (dot products with its
// direction and the direction to its right). With use_location false (after a drop) obj_set
// stays and obj_poss is recomputed: the grid positions of the objects already in obj_set,
// nothing for an object being carried.
//
// Walls share one object per colour here (world_object.h), where minigrid has one per cell:
// only a description without a type matches walls (PickupDist's "a grey object"), it then
// matches every grey wall cell at once, and walls never move after generation, so "the
// objects tracked" are the same cells either way.
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_OBJ_DESC_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_OBJ_DESC_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "families/minigrid/grid.h"
#include "families/minigrid/mission.h"
#include "families/minigrid/room_grid.h"
#include "families/minigrid/world_object.h"

namespace envfleet::minigrid::babyai {

// LOC_NAMES, in its order (LevelGen draws from it; OpenDoor too).
enum class Loc : uint8_t { kNone, kLeft, kRight, kFront, kBehind };
inline constexpr std::array<Loc, 4> kLocNames = {Loc::kLeft, Loc::kRight, Loc::kFront,
                                                 Loc::kBehind};

// OBJ_TYPES and OBJ_TYPES_NOT_DOOR, in their order (not add_object's key, ball, box).
inline constexpr std::array<Type, 4> kDescTypes = {Type::kBox, Type::kBall, Type::kKey,
                                                   Type::kDoor};
inline constexpr std::array<Type, 3> kDescTypesNotDoor = {Type::kBox, Type::kBall, Type::kKey};

// What find_matching_objs reads of the env.
struct MatchContext {
  const Grid& grid;
  const ObjectTable& objects;
  Pos agent_pos;
  int agent_dir;
  const Room& agent_room;  // room_from_pos(agent_pos)
};

class ObjDesc {
 public:
  // Room for the objects of a large level without growing (a larger one grows once).
  static constexpr size_t kReserve = 64;

  ObjDesc() {
    obj_set_.reserve(kReserve);
    obj_poss_.reserve(kReserve);
    matches_.reserve(256);  // MiniGridEnv::kObjectReserve
  }

  // ObjDesc(type, color, loc): nothing matched yet.
  void Set(std::optional<Type> type, std::optional<Color> color, Loc loc = Loc::kNone) {
    type_ = type;
    color_ = color;
    loc_ = loc;
    obj_set_.clear();
    obj_poss_.clear();
  }

  std::optional<Type> type() const { return type_; }
  std::optional<Color> color() const { return color_; }
  Loc loc() const { return loc_; }
  const std::vector<ObjectId>& obj_set() const { return obj_set_; }
  const std::vector<Pos>& obj_poss() const { return obj_poss_; }

  // find_matching_objs(env, use_location)
  void FindMatchingObjs(const MatchContext& env, bool use_location = true) {
    const bool any = MarkMatches(env, use_location);
    if (use_location) obj_set_.clear();
    obj_poss_.clear();
    if (!any) return;
    ScanGrid(env, use_location, [&](ObjectId id, int i, int j) {
      if (use_location) obj_set_.push_back(id);
      obj_poss_.push_back({i, j});
      return true;
    });
  }

  // Whether find_matching_objs (with locations) would match anything, and, with
  // `outside` a room, anything outside it: what LevelGen's rand_obj asks of a description.
  // Leaves obj_set and obj_poss as they were.
  bool AnyMatch(const MatchContext& env, const Room* outside) {
    if (!MarkMatches(env, true)) return false;
    bool found = false;
    ScanGrid(env, true, [&](ObjectId, int i, int j) {
      found = outside == nullptr || !outside->PosInside(i, j);
      return !found;
    });
    return found;
  }

  // surface(env), after a find: "the" for one match, "a" for several.
  void Surface(MissionText& out) const {
    if (obj_set_.empty()) {
      throw std::logic_error("babyai: no object matching description");  // minigrid asserts
    }
    out << (obj_set_.size() > 1 ? "a " : "the ");
    if (color_) out << *color_ << " ";
    if (type_) {
      out << *type_;
    } else {
      out << "object";
    }
    switch (loc_) {
      case Loc::kNone:
        break;
      case Loc::kFront:
        out << " in front of you";
        break;
      case Loc::kBehind:
        out << " behind you";
        break;
      case Loc::kLeft:
        out << " on your left";
        break;
      case Loc::kRight:
        out << " on your right";
        break;
    }
  }

 private:
  std::optional<Type> type_;
  std::optional<Color> color_;
  Loc loc_ = Loc::kNone;
  std::vector<ObjectId> obj_set_;
  std::vector<Pos> obj_poss_;
  std::vector<uint8_t> matches_;  // MarkMatches' scratch, per object

  // Marks, per object, what the type and colour (and, without locations, the tracked set) let
  // through, so that a scan reads each cell once. Returns whether any object is marked.
  bool MarkMatches(const MatchContext& env, bool use_location) {
    matches_.assign(env.objects.size(), 0);
    bool any = false;
    for (size_t id = 0; id < env.objects.size(); ++id) {
      const WorldObject& obj = env.objects[static_cast<ObjectId>(id)];
      matches_[id] = (!type_ || obj.type == *type_) && (!color_ || obj.color == *color_);
      any = any || matches_[id];
    }
    if (!use_location) {  // only the objects obj_set tracks from the start
      any = false;
      for (const ObjectId id : obj_set_) matches_[static_cast<size_t>(id)] |= 2;
      for (uint8_t& match : matches_) {
        match = match == 3;
        any = any || match;
      }
    }
    return any;
  }

  // The cells of marked objects (in the agent's room and on the named side of it, with a
  // location and use_location), column by column as minigrid scans: f(id, x, y), until it
  // returns false.
  template <typename F>
  void ScanGrid(const MatchContext& env, bool use_location, const F& f) const {
    const Pos d1 = kDirToVec[static_cast<size_t>(env.agent_dir)];
    const Pos d2 = {-d1.y, d1.x};
    const int width = env.grid.width();
    const int height = env.grid.height();
    const ObjectId* cells = env.grid.cells();
    for (int i = 0; i < width; ++i) {
      for (int j = 0; j < height; ++j) {
        const ObjectId id = cells[static_cast<size_t>(j) * width + i];
        if (id == kNoObject || !matches_[static_cast<size_t>(id)]) continue;
        if (use_location && loc_ != Loc::kNone) {
          if (!env.agent_room.PosInside(i, j)) continue;
          const Pos v = {i - env.agent_pos.x, j - env.agent_pos.y};
          const int along = v.x * d1.x + v.y * d1.y;
          const int across = v.x * d2.x + v.y * d2.y;
          const bool matches = loc_ == Loc::kLeft    ? across < 0
                               : loc_ == Loc::kRight ? across > 0
                               : loc_ == Loc::kFront ? along > 0
                                                     : along < 0;
          if (!matches) continue;
        }
        if (!f(id, i, j)) return;
      }
    }
  }
};

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_OBJ_DESC_H_
