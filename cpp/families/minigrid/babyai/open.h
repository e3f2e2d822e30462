// BabyAI's "open" levels: ports of minigrid 3.2.0's Open, OpenRedDoor, OpenDoor (OpenDoorDebug,
// OpenDoorColor, OpenDoorLoc), OpenTwoDoors (OpenRedBlueDoors, OpenRedBlueDoorsDebug) and
// OpenDoorsOrder
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/open.py).
//
// Open draws its door from every room's list of doors, rooms column by column, so each door is
// listed twice (once from each side), as minigrid lists them. OpenTwoDoors draws its two
// colours even when first_color and second_color are given.
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_OPEN_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_OPEN_H_

#include <string>
#include <vector>

#include "families/minigrid/babyai/roomgrid_level.h"

namespace envfleet::minigrid::babyai {

// Open: room_size 8, num_rows 3, num_cols 3; 18 distractors.
class Open final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions(
        {{"room_size", int64_t{8}}, {"num_rows", int64_t{3}}, {"num_cols", int64_t{3}}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {8, 3, 3}), LevelMaxSteps(config)};
  }
  static EnvSpec Spec(const Config& config) {
    const LevelLayout layout = LayoutOf(config);
    RequireTwoRooms(layout.shape);  // a door to open
    RequireRoomFor("room_size", layout.shape, layout.shape.num_rows * layout.shape.num_cols, 18,
                   /*agent=*/true);
    return LevelSpec(config, layout);
  }

  Open(const Config& config, uint64_t seed) : RoomGridLevel(config, seed, LayoutOf(config)) {
    Spec(config);
    doors_.reserve(64);
  }

 protected:
  bool GenMission() override {
    PlaceAgentInRoom();
    ConnectAll();
    AddDistractors(std::nullopt, std::nullopt, 18, /*all_unique=*/false);
    if (!CheckObjsReachable()) return false;
    doors_.clear();
    ForEachRoomDoor([this](ObjectId door) { doors_.push_back(door); });
    const WorldObject& door = objects_[doors_[static_cast<size_t>(RandIndex(doors_.size()))]];
    instrs_.SetRoot(instrs_.Action(InstrKind::kOpen, instrs_.NewDesc(door.type, door.color)));
    return true;
  }

 private:
  std::vector<ObjectId> doors_;
};

// OpenRedDoor: two rooms of 5, a red door between them; no options of its own.
class OpenRedDoor final : public RoomGridLevel {
 public:
  static Config DefaultConfig() { return LevelOptions({}); }
  static LevelLayout LayoutOf(const Config& config) { return {{5, 1, 2}, LevelMaxSteps(config)}; }
  static EnvSpec Spec(const Config& config) { return LevelSpec(config, LayoutOf(config)); }

  OpenRedDoor(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)) {}

 protected:
  bool GenMission() override {
    AddDoor(0, 0, 0, Color::kRed, false);
    PlaceAgentInRoom(0, 0);
    instrs_.SetRoot(instrs_.Action(InstrKind::kOpen, instrs_.NewDesc(Type::kDoor, Color::kRed)));
    return true;
  }
};

// OpenDoor: four doors of distinct colours around room (1, 1), the one to open named by its
// colour or by where it is (select_by "color", "loc", or None: drawn); debug makes the
// instruction strict. room_size 8, num_rows 3, num_cols 3.
class OpenDoor final : public RoomGridLevel {
 public:
  enum class SelectBy : uint8_t { kDraw, kColor, kLoc };

  static Config DefaultConfig() {
    return LevelOptions({{"room_size", int64_t{8}},
                         {"num_rows", int64_t{3}},
                         {"num_cols", int64_t{3}},
                         {"debug", false},
                         {"select_by", std::string()}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {8, 3, 3}), LevelMaxSteps(config)};
  }
  static SelectBy SelectByOption(const Config& config) {
    const std::string& value = config.Get<std::string>("select_by");
    if (value.empty()) return SelectBy::kDraw;
    if (value == "color") return SelectBy::kColor;
    if (value == "loc") return SelectBy::kLoc;
    throw std::invalid_argument("select_by must be None, 'color' or 'loc'; got '" + value + "'");
  }
  static EnvSpec Spec(const Config& config) {
    SelectByOption(config);
    const LevelLayout layout = LayoutOf(config);
    RequireRooms(layout.shape, 3, 3);
    return LevelSpec(config, layout);
  }

  OpenDoor(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)),
        debug_(config.Get<bool>("debug")),
        select_by_(SelectByOption(config)) {
    Spec(config);
  }

 protected:
  bool GenMission() override {
    const auto colors = RandSubset(kColorNames, 4);
    ObjectId first = kNoObject;
    for (int k = 0; k < 4; ++k) {
      const ObjectId door = AddDoor(1, 1, k, colors[static_cast<size_t>(k)], false).first;
      if (k == 0) first = door;
    }
    SelectBy select_by = select_by_;
    if (select_by == SelectBy::kDraw) {
      select_by = RandIndex(2) == 0 ? SelectBy::kColor : SelectBy::kLoc;  // ["color", "loc"]
    }
    const int desc = select_by == SelectBy::kColor
                         ? instrs_.NewDesc(Type::kDoor, objects_[first].color)
                         : instrs_.NewDesc(Type::kDoor, std::nullopt, RandElem(kLocNames));
    PlaceAgentInRoom(1, 1);
    instrs_.SetRoot(instrs_.Action(InstrKind::kOpen, desc, -1, debug_));
    return true;
  }

 private:
  const bool debug_;
  const SelectBy select_by_;
};

// OpenTwoDoors: a door on each side of room (1, 1), to open left first (first_color, then
// second_color; None: drawn); strict makes the first instruction strict. room_size 6,
// num_rows 3, num_cols 3; max_steps 20 * 6**2.
class OpenTwoDoors final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions({{"num_rows", int64_t{3}},
                         {"num_cols", int64_t{3}},
                         {"first_color", std::string()},
                         {"second_color", std::string()},
                         {"strict", false}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {6, 3, 3}), LevelMaxSteps(config, 20 * 6 * 6)};
  }
  static EnvSpec Spec(const Config& config) {
    ColorOption(config, "first_color");
    ColorOption(config, "second_color");
    const LevelLayout layout = LayoutOf(config);
    RequireRooms(layout.shape, 3, 2);
    return LevelSpec(config, layout);
  }

  OpenTwoDoors(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)),
        first_color_(ColorOption(config, "first_color")),
        second_color_(ColorOption(config, "second_color")),
        strict_(config.Get<bool>("strict")) {
    Spec(config);
  }

 protected:
  bool GenMission() override {
    const auto colors = RandSubset(kColorNames, 2);
    const ObjectId door1 = AddDoor(1, 1, 2, first_color_.value_or(colors[0]), false).first;
    const ObjectId door2 = AddDoor(1, 1, 0, second_color_.value_or(colors[1]), false).first;
    PlaceAgentInRoom(1, 1);
    const int open1 = instrs_.Action(
        InstrKind::kOpen, instrs_.NewDesc(Type::kDoor, objects_[door1].color), -1, strict_);
    const int open2 =
        instrs_.Action(InstrKind::kOpen, instrs_.NewDesc(Type::kDoor, objects_[door2].color));
    instrs_.SetRoot(instrs_.Seq(InstrKind::kBefore, open1, open2));
    return true;
  }

 private:
  const std::optional<Color> first_color_;
  const std::optional<Color> second_color_;
  const bool strict_;
};

// OpenDoorsOrder: num_doors (2 to 4, required) doors of distinct colours around room (1, 1);
// open one, or two in order (before or after); debug makes them strict. room_size 6,
// num_rows 3, num_cols 3; max_steps 20 * 6**2.
class OpenDoorsOrder final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions({{"num_rows", int64_t{3}},
                         {"num_cols", int64_t{3}},
                         {"num_doors", int64_t{-1}},
                         {"debug", false}});
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {6, 3, 3}), LevelMaxSteps(config, 20 * 6 * 6)};
  }
  static int NumDoors(const Config& config) {
    return RequiredIntOption(config, "num_doors", 2, 4);  // room (1, 1) has four walls
  }
  static EnvSpec Spec(const Config& config) {
    NumDoors(config);
    const LevelLayout layout = LayoutOf(config);
    RequireRooms(layout.shape, 3, 3);
    return LevelSpec(config, layout);
  }

  OpenDoorsOrder(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)),
        num_doors_(NumDoors(config)),
        debug_(config.Get<bool>("debug")) {
    Spec(config);
    doors_.reserve(4);
    pair_.reserve(2);
  }

 protected:
  bool GenMission() override {
    const auto colors = RandSubset(kColorNames, static_cast<size_t>(num_doors_));
    doors_.clear();
    for (int k = 0; k < num_doors_; ++k) {
      doors_.push_back(AddDoor(1, 1, std::nullopt, colors[static_cast<size_t>(k)], false).first);
    }
    PlaceAgentInRoom(1, 1);
    RandSubset(doors_, 2, pair_);
    const int desc1 = instrs_.NewDesc(Type::kDoor, objects_[pair_[0]].color);
    const int desc2 = instrs_.NewDesc(Type::kDoor, objects_[pair_[1]].color);
    const int mode = RandInt(0, 3);
    if (mode == 0) {
      instrs_.SetRoot(instrs_.Action(InstrKind::kOpen, desc1, -1, debug_));
    } else {
      const int open1 = instrs_.Action(InstrKind::kOpen, desc1, -1, debug_);
      const int open2 = instrs_.Action(InstrKind::kOpen, desc2, -1, debug_);
      instrs_.SetRoot(
          instrs_.Seq(mode == 1 ? InstrKind::kBefore : InstrKind::kAfter, open1, open2));
    }
    return true;
  }

 private:
  const int num_doors_;
  const bool debug_;
  std::vector<ObjectId> doors_;
  std::vector<ObjectId> pair_;
};

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_OPEN_H_
