// MiniGrid's world objects (minigrid 3.2.0, minigrid/core/world_object.py and constants.py):
// their kinds, colours, behaviours and 3-number encodings, and the per-env table that holds
// them.
//
// Identity. minigrid keeps Python objects and compares them by identity: the object carried,
// a box's contents, the door an env remembers (RedBlueDoors' red_door, Unlock's door), the
// target of KeyCorridor's `carrying == self.obj`, PutNear's `grid.get(...) is preCarrying`,
// and BabyAI's verifiers, which keep objects and read their cur_pos. Here every object lives
// in its env's ObjectTable under a stable index (ObjectId) for the whole episode; the grid
// holds indices (grid.h), so two cells, the carried slot and a box may name the same object,
// and an object overwritten on the grid (ObstructedMaze-v0's blocking balls) stays in the
// table, unreachable, exactly as the Python object stays alive in room.objs.
//
// Walls, floors, goals and lava have no state and nothing refers to them but the grid, so
// one object per (type, colour) serves every cell of an episode (ObjectTable::Static): the
// table stays small and building a wall allocates nothing. (MultiRoom even shares one Wall
// object among all its cells.) Their init_pos/cur_pos are not kept: nothing reads them.
#ifndef ENVFLEET_FAMILIES_MINIGRID_WORLD_OBJECT_H_
#define ENVFLEET_FAMILIES_MINIGRID_WORLD_OBJECT_H_

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace envfleet::minigrid {

// OBJECT_TO_IDX.
enum class Type : uint8_t {
  kUnseen = 0,
  kEmpty = 1,
  kWall = 2,
  kFloor = 3,
  kDoor = 4,
  kKey = 5,
  kBall = 6,
  kBox = 7,
  kGoal = 8,
  kLava = 9,
  kAgent = 10,
};
inline constexpr int kNumTypes = 11;

// COLOR_TO_IDX.
enum class Color : uint8_t { kRed = 0, kGreen, kBlue, kPurple, kYellow, kGrey };
inline constexpr int kNumColors = 6;

// COLOR_NAMES: sorted(COLORS), the list every _rand_color / _rand_elem(COLOR_NAMES) indexes.
inline constexpr std::array<Color, kNumColors> kColorNames = {
    Color::kBlue, Color::kGreen, Color::kGrey, Color::kPurple, Color::kRed, Color::kYellow};

// COLORS, the RGB of each colour (indexed by Color).
inline constexpr std::array<std::array<uint8_t, 3>, kNumColors> kColorRgb = {{
    {255, 0, 0},      // red
    {0, 255, 0},      // green
    {0, 0, 255},      // blue
    {112, 39, 195},   // purple
    {255, 255, 0},    // yellow
    {100, 100, 100},  // grey
}};

inline std::string_view ColorName(Color color) {
  constexpr std::array<std::string_view, kNumColors> names = {"red",    "green",  "blue",
                                                              "purple", "yellow", "grey"};
  return names[static_cast<int>(color)];
}

inline std::string_view TypeName(Type type) {
  constexpr std::array<std::string_view, kNumTypes> names = {
      "unseen", "empty", "wall", "floor", "door", "key", "ball", "box", "goal", "lava", "agent"};
  return names[static_cast<int>(type)];
}

// Actions (minigrid/core/actions.py).
enum Action : int64_t {
  kLeft = 0,
  kRight = 1,
  kForward = 2,
  kPickup = 3,
  kDrop = 4,
  kToggle = 5,
  kDone = 6,
};
inline constexpr int kNumActions = 7;

// A grid position, (x, y) = (column, row) as minigrid's tuples.
struct Pos {
  int x = -1;
  int y = -1;
  friend bool operator==(const Pos&, const Pos&) = default;
};

// DIR_TO_VEC: right, down, left, up.
inline constexpr std::array<Pos, 4> kDirToVec = {{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}};

// An object's index in its env's ObjectTable; kNoObject is Python's None (an empty cell,
// nothing carried, an empty box).
using ObjectId = int32_t;
inline constexpr ObjectId kNoObject = -1;

struct WorldObject {
  Type type = Type::kEmpty;
  Color color = Color::kGrey;
  bool is_open = false;           // doors
  bool is_locked = false;         // doors
  ObjectId contains = kNoObject;  // boxes (Box.contains)
  Pos init_pos;                   // where place_obj / put_obj put it
  Pos cur_pos;                    // minigrid's cur_pos, updated where minigrid updates it

  // WorldObj.can_overlap / can_pickup / see_behind, per subclass.
  bool CanOverlap() const {
    return type == Type::kGoal || type == Type::kFloor || type == Type::kLava ||
           (type == Type::kDoor && is_open);
  }
  bool CanPickup() const { return type == Type::kKey || type == Type::kBall || type == Type::kBox; }
  bool SeeBehind() const {
    if (type == Type::kWall) return false;
    if (type == Type::kDoor) return is_open;
    return true;
  }
  // encode(): (OBJECT_TO_IDX, COLOR_TO_IDX, state); a door's state is 0 open, 2 locked,
  // 1 closed (Door.encode checks is_open first: an open door that is still marked locked,
  // which minigrid never makes, would encode as open).
  uint8_t State() const {
    if (type != Type::kDoor) return 0;
    return is_open ? 0 : is_locked ? 2 : 1;
  }
};

// One env's objects. Indices stay valid until Clear(), which a new episode calls; the storage
// is reserved when the env is built, so an episode's objects are added without allocating
// (a level that adds more than the reserve grows it once, in its Reset).
class ObjectTable {
 public:
  // Always object 0: the grey Wall() that Grid.slice puts outside the grid, and every
  // grey wall cell (Static).
  static constexpr ObjectId kGreyWall = 0;

  explicit ObjectTable(size_t reserve = 64) {
    objects_.reserve(reserve);
    Clear();
  }

  void Clear() {
    objects_.clear();
    static_ids_.fill(kNoObject);
    Static(Type::kWall, Color::kGrey);
  }

  // A new object with its own identity (doors, keys, balls, boxes).
  ObjectId Add(Type type, Color color) {
    WorldObject object;
    object.type = type;
    object.color = color;
    objects_.push_back(object);
    return static_cast<ObjectId>(objects_.size() - 1);
  }
  ObjectId AddDoor(Color color, bool is_open, bool is_locked) {
    const ObjectId id = Add(Type::kDoor, color);
    objects_[id].is_open = is_open;
    objects_[id].is_locked = is_locked;
    return id;
  }

  // The one object of a stateless kind (wall, floor, goal, lava) and colour: see the top.
  ObjectId Static(Type type, Color color) {
    ObjectId& id = static_ids_[StaticSlot(type, color)];
    if (id == kNoObject) id = Add(type, color);
    return id;
  }

  WorldObject& operator[](ObjectId id) { return objects_[static_cast<size_t>(id)]; }
  const WorldObject& operator[](ObjectId id) const { return objects_[static_cast<size_t>(id)]; }
  size_t size() const { return objects_.size(); }

 private:
  static size_t StaticSlot(Type type, Color color) {
    int kind = 0;
    switch (type) {
      case Type::kWall:
        kind = 0;
        break;
      case Type::kFloor:
        kind = 1;
        break;
      case Type::kGoal:
        kind = 2;
        break;
      case Type::kLava:
        kind = 3;
        break;
      default:
        throw std::logic_error("ObjectTable::Static: objects of this type have an identity");
    }
    return static_cast<size_t>(kind * kNumColors + static_cast<int>(color));
  }

  std::vector<WorldObject> objects_;
  std::array<ObjectId, 4 * kNumColors> static_ids_{};
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_WORLD_OBJECT_H_
