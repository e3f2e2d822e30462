// The base of every BabyAI level: a port of minigrid 3.2.0's RoomGridLevel
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/core/roomgrid_level.py)
// on the RoomGrid port (room_grid.h).
//
// Generation (_gen_grid): the room grid, then the level's GenMission (gen_mission: objects,
// doors, the agent and the instructions), then validate_instrs; RejectSampling (GenMission or
// the validation returning false) or a RecursionError (PlacementError: place_obj, connect_all
// or rand_obj giving up) throws that attempt away and draws a new grid from where the
// generator stands, as minigrid's loop does. Rejections are frequent in some levels
// (GoToObjDoor rejects 3.3 attempts a reset on average, Unlock 2.6, GoToRedBlueBall 1.6), so they
// are return values, not exceptions; the rare RecursionError (at most 0.26 a reset, SynthS5R2's)
// stays one. Then the mission's words (surface) and, in reset, the verifier and the episode's time
// limit.
//
// Time limit: with max_steps None (the option's -1) and no default of the level's own, each
// episode's max_steps is num_navs_needed(instrs) * room_size**2 * num_rows * num_cols; levels
// such as OpenTwoDoors fix theirs (20 * room_size**2). The spec's time_limit is 0 (EnvPool
// registers every BabyAI id with max_episode_steps 0) unless max_steps is given, fixing it.
//
// Stepping: MiniGridEnv's step, then, after a drop, update_objs_poss, then the verifier
// (verifier.h): success ends the episode with the usual reward, failure with 0.
//
// Levels derive from RoomGridLevel and give GenMission (and, for PutNext's start_carrying,
// AfterReset); Reset, Step and Write are final here, so every level shares one set of the
// pool's compiled loops (babyai/level_types.cc).
//
// Options (LevelOptions): MiniGridEnv's (minigrid_env.h) with mission_bytes 512 (EnvPool's for
// BabyAI), and room_size / num_rows / num_cols where the level's minigrid class takes them.
// mission_id is -1 (EnvPool's for every BabyAI level).
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_ROOMGRID_LEVEL_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_ROOMGRID_LEVEL_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "families/minigrid/babyai/instructions.h"
#include "families/minigrid/babyai/obj_desc.h"
#include "families/minigrid/babyai/verifier.h"
#include "families/minigrid/room_grid.h"

namespace envfleet::minigrid::babyai {

// EnvPool 1.2.5's mission length and mission_id for BabyAI.
inline constexpr int64_t kMissionBytes = 512;
inline constexpr int32_t kMissionId = -1;

// A level's options: MiniGridEnv's, mission_bytes 512, and the level's own (`own`, which
// holds room_size / num_rows / num_cols where the level takes them).
inline Config LevelOptions(Config own) {
  Config config = CommonOptions(std::move(own), /*see_through_walls=*/false);
  config.Set("mission_bytes", kMissionBytes);
  return config;
}

// The room grid of a level: room_size, num_rows and num_cols from the options where the level
// takes them, else the class's own (`fixed`).
inline RoomShape LevelShape(const Config& config, RoomShape fixed) {
  if (config.Has("room_size")) {
    fixed.room_size = static_cast<int>(IntOption(config, "room_size", 3, 1024));
  }
  if (config.Has("num_rows"))
    fixed.num_rows = static_cast<int>(IntOption(config, "num_rows", 1, 64));
  if (config.Has("num_cols"))
    fixed.num_cols = static_cast<int>(IntOption(config, "num_cols", 1, 64));
  return fixed;
}

// A level's time limit: max_steps given (fixed for every episode), the class's own default
// (OpenTwoDoors' 20 * room_size**2...), or, with neither, per episode from the instructions.
struct LevelLimit {
  std::optional<int64_t> fixed;  // nullopt: per episode
  bool given = false;            // the max_steps option was given
};
inline LevelLimit LevelMaxSteps(const Config& config,
                                std::optional<int64_t> class_default = std::nullopt) {
  if (config.Get<int64_t>("max_steps") == -1) return {class_default, false};
  return {MaxSteps(config, 0), true};
}

// The level's shape and limit, as its constructor and spec take them.
struct LevelLayout {
  RoomShape shape;
  LevelLimit limit;
};

// The spec of a level: MiniGridEnv's, time_limit 0 unless max_steps is given.
inline EnvSpec LevelSpec(const Config& config, const LevelLayout& layout) {
  EnvSpec spec = MiniGridSpec(config, RoomGridEnv::RoomLayout(layout.shape, 0));
  spec.time_limit = layout.limit.given ? *layout.limit.fixed : 0;
  return spec;
}

// The rooms a level's generator needs: a room (i, j) it names (minigrid's get_room asserts at
// generation), or a neighbour for each door it adds to one (minigrid's add_door would look
// forever): options that lack them are refused, naming them.
inline void RequireRooms(const RoomShape& shape, int num_cols, int num_rows) {
  if (shape.num_cols < num_cols || shape.num_rows < num_rows) {
    throw std::invalid_argument("this level needs num_cols >= " + std::to_string(num_cols) +
                                " and num_rows >= " + std::to_string(num_rows) + ", got " +
                                std::to_string(shape.num_cols) + " and " +
                                std::to_string(shape.num_rows));
  }
}
inline void RequireTwoRooms(const RoomShape& shape) {
  if (shape.num_cols * shape.num_rows < 2) {
    throw std::invalid_argument("this level needs two rooms or more (num_rows * num_cols >= 2)");
  }
}

// The cells of a room of `shape` its objects may take: the (room_size - 2)**2 inside, less,
// where the agent stands before they are placed (`agent`), its cell and the cells next to it
// (place_in_room keeps away from the agent: up to 5 cells, 3 in a 2x2 room, 1 in a 1x1).
inline int64_t RoomCapacity(const RoomShape& shape, bool agent) {
  const int64_t n = shape.room_size - 2;
  return n * n - (agent ? (n >= 3 ? 5 : n == 2 ? 3 : 1) : 0);
}

// An object count option (num_dists, num_objs...) of objects placed in `rooms` rooms (the
// agent's among them when `agent`): at most what they hold (RoomCapacity; with the agent placed
// after them, one cell left for it), else minigrid would generate forever.
inline int CountOption(const Config& config, const std::string& name, const RoomShape& shape,
                       int rooms, int64_t low = 0, bool agent = false) {
  const int64_t capacity =
      agent ? RoomCapacity(shape, true) + RoomCapacity(shape, false) * (rooms - 1)
            : RoomCapacity(shape, false) * rooms - 1;
  return static_cast<int>(IntOption(config, name, low, std::max<int64_t>(low, capacity)));
}

// An option minigrid's class requires (num_doors, objs_per_room...): -1, not given, is refused,
// naming it; else within [low, high].
inline int RequiredIntOption(const Config& config, const std::string& name, int64_t low,
                             int64_t high) {
  if (config.Get<int64_t>(name) == -1) {
    throw std::invalid_argument("this level needs the option " + name);
  }
  return static_cast<int>(IntOption(config, name, low, high));
}

// A colour option: "" (None) or a colour's name.
inline std::optional<Color> ColorOption(const Config& config, const std::string& name) {
  const std::string& value = config.Get<std::string>(name);
  if (value.empty()) return std::nullopt;
  for (const Color color : kColorNames) {
    if (value == ColorName(color)) return color;
  }
  throw std::invalid_argument(name +
                              " must be None or one of 'red', 'green', 'blue', "
                              "'purple', 'yellow', 'grey'; got '" +
                              value + "'");
}

// `count` objects (the option `name`'s, or the level's own) fit in `rooms` rooms
// (CountOption's capacity), else the options are refused, naming it (minigrid would generate
// forever).
inline void RequireRoomFor(const std::string& name, const RoomShape& shape, int rooms, int count,
                           bool agent = false) {
  const int64_t capacity =
      agent ? RoomCapacity(shape, true) + RoomCapacity(shape, false) * (rooms - 1)
            : RoomCapacity(shape, false) * rooms - 1;
  if (count > capacity) {
    throw std::invalid_argument(name + ": room_size " + std::to_string(shape.room_size) +
                                " leaves room for " +
                                std::to_string(std::max<int64_t>(capacity, 0)) +
                                " of this level's " + std::to_string(count) + " objects");
  }
}

class RoomGridLevel : public RoomGridEnv {
 public:
  // Generation attempts before giving up: minigrid tries forever, which options no level
  // registers with can make endless (objects that barely fit). Registered levels need a few
  // (GoToObjDoor rejects most often: 3.3 attempts a reset on average, at most 25 in 300 seeds), so
  // 10000 is never reached by them and bounds the time a hopeless level takes.
  static constexpr int64_t kMaxAttempts = 10000;

  RoomGridLevel(const Config& config, uint64_t seed, const LevelLayout& layout)
      : RoomGridEnv(config, seed, layout.shape, layout.limit.fixed.value_or(0)),
        fixed_max_steps_(layout.limit.fixed.has_value()) {
    const size_t cells = static_cast<size_t>(width_) * height_;
    reachable_.resize(cells);
    stack_.reserve(4 * cells + 1);
    const size_t view_cells = static_cast<size_t>(agent_view_size_) * agent_view_size_;
    start_image_.resize(view_cells * 3);
    start_view_cells_.resize(view_cells);
    start_view_visible_.resize(view_cells);
  }

  // RoomGridLevel.reset: MiniGridEnv.reset (with _gen_grid below), the verifier, the
  // episode's time limit, then the level's AfterReset.
  void Reset() final {
    made_ = false;
    start_image_saved_ = false;
    MiniGridEnv::Reset();
    ResetVerifier(instrs_);
    if (!fixed_max_steps_) {
      max_steps_ =
          int64_t{instrs_.NumNavsNeeded()} * room_size_ * room_size_ * num_rows_ * num_cols_;
    }
    AfterReset();
    made_ = true;
  }

  // RoomGridLevel.step: MiniGridEnv.step, update_objs_poss after a drop, then the verifier.
  void Step(const void* action_ptr) final {
    RequireMade();
    const int64_t action = *static_cast<const int64_t*>(action_ptr);
    StepAgent(action);
    if (action == kDrop) UpdateObjsPoss(instrs_, Matching());
    const VerifyContext env{grid_, objects_, carrying_, FrontPos()};
    switch (Verify(instrs_, instrs_.root(), action, env)) {
      case Status::kSuccess:
        terminated_ = true;
        reward_ = SuccessReward();
        break;
      case Status::kFailure:
        terminated_ = true;
        reward_ = 0;
        break;
      default:
        break;
    }
  }

  // MiniGridEnv's observation; reset's image is the one the level saved before AfterReset
  // changed the world (PutNext's start_carrying: minigrid computes reset's observation before
  // the agent takes the object).
  void Write(const OutputSlot& out) const final {
    MiniGridEnv::Write(out);
    if (start_image_saved_ && step_count_ == 0 && obs_wrapper_ == ObsWrapper::kNone) {
      std::memcpy(out.Get<uint8_t>(1), start_image_.data(), start_image_.size());
    }
  }

  void Render(int camera_id, int width, int height, uint8_t* rgb) final {
    RequireMade();
    MiniGridEnv::Render(camera_id, width, height, rgb);
  }

  const Instructions& instructions() const { return instrs_; }

 protected:
  // gen_mission: objects, doors, the agent and instrs_ (already cleared) on the fresh room
  // grid. Returns false where minigrid raises RejectSampling.
  virtual bool GenMission() = 0;
  // After reset's verifier and time limit (PutNext's override of reset).
  virtual void AfterReset() {}
  // LevelGen's `unblocking` (validate_instrs reads it where a level has it).
  virtual bool Unblocking() const { return false; }

  // _gen_grid: see the top.
  void GenGrid() final {
    for (int64_t attempt = 0;; ++attempt) {
      if (attempt == kMaxAttempts) {
        throw PlacementError("babyai: no level generated in " + std::to_string(kMaxAttempts) +
                             " attempts: these options make levels minigrid would generate "
                             "forever (objects that do not fit, no object to name?)");
      }
      if (attempt > 0) {
        objects_.Clear();
        grid_.Reset(width_, height_);
      }
      RoomGridEnv::GenGrid();
      instrs_.Clear();
      try {
        if (!GenMission()) continue;
        if (instrs_.root() < 0) throw std::logic_error("babyai: the level set no instructions");
        FindAllObjs();
        if (!ValidateInstrs(instrs_.root())) continue;
      } catch (const PlacementError&) {
        continue;
      }
      break;
    }
    mission_.Clear();
    instrs_.Surface(mission_);
    mission_id_ = kMissionId;
  }

  // check_objs_reachable(): every object but walls reachable from the agent, through empty
  // cells and doors (locked or not). Returns false where minigrid raises RejectSampling (and
  // where raise_exc=False returns False).
  bool CheckObjsReachable() {
    std::fill(reachable_.begin(), reachable_.end(), 0);
    stack_.clear();
    stack_.push_back(agent_pos_);
    while (!stack_.empty()) {
      const Pos pos = stack_.back();
      stack_.pop_back();
      if (!grid_.Contains(pos.x, pos.y)) continue;
      uint8_t& seen = reachable_[static_cast<size_t>(pos.y) * width_ + pos.x];
      if (seen) continue;
      seen = 1;
      const ObjectId cell = grid_.Get(pos);
      if (cell != kNoObject && objects_[cell].type != Type::kDoor) continue;
      stack_.push_back({pos.x + 1, pos.y});
      stack_.push_back({pos.x - 1, pos.y});
      stack_.push_back({pos.x, pos.y + 1});
      stack_.push_back({pos.x, pos.y - 1});
    }
    for (int j = 0; j < height_; ++j) {
      for (int i = 0; i < width_; ++i) {
        const ObjectId cell = grid_.Get(i, j);
        if (cell == kNoObject || objects_[cell].type == Type::kWall) continue;
        if (!reachable_[static_cast<size_t>(j) * width_ + i]) return false;
      }
    }
    return true;
  }

  // Every door of every room, as minigrid lists them: rooms column by column (i outer), each
  // room's doors right, down, left, up, so a door shows once from each side. `f(door)`.
  template <typename F>
  void ForEachRoomDoor(const F& f) const {
    for (int i = 0; i < num_cols_; ++i) {
      for (int j = 0; j < num_rows_; ++j) {
        for (const ObjectId door : RoomAt(i, j).doors) {
          if (door == Room::kNoDoor) continue;
          if (door == Room::kWallRemoved) {
            // minigrid reads door attributes of the True a removed wall leaves: an error.
            throw std::logic_error("babyai: a removed wall where a door was expected");
          }
          f(door);
        }
      }
    }
  }

  // open_all_doors()
  void OpenAllDoors() {
    ForEachRoomDoor([this](ObjectId door) { objects_[door].is_open = true; });
  }

  // What the descriptions read of the env.
  MatchContext Matching() const {
    return {grid_, objects_, agent_pos_, agent_dir_,
            RoomAt(agent_pos_.x / (room_size_ - 1), agent_pos_.y / (room_size_ - 1))};
  }

  // The room the agent stands in (room_from_pos(*agent_pos)).
  const Room* AgentRoom() const {
    return &RoomAt(agent_pos_.x / (room_size_ - 1), agent_pos_.y / (room_size_ - 1));
  }

  // Saves reset's image as gen_obs makes it now (see Write).
  void SaveStartImage() {
    ComputeStartView();
    start_image_saved_ = true;
  }

  using RoomGridEnv::RandSubset;  // of colours
  // _rand_subset(items, n) of a list of objects: n draws, each removing the element drawn.
  // Leaves the subset in `out`.
  void RandSubset(std::vector<ObjectId>& items, size_t n, std::vector<ObjectId>& out) {
    out.clear();
    for (size_t k = 0; k < n; ++k) {
      const size_t idx = static_cast<size_t>(RandIndex(items.size()));
      out.push_back(items[idx]);
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(idx));
    }
  }

  Instructions instrs_;

 private:
  // Each description's objects, in the state the mission's words and the verifier see.
  void FindAllObjs() {
    const MatchContext env = Matching();
    for (int i = 0; i < instrs_.num_descs(); ++i) instrs_.desc(i).FindMatchingObjs(env);
  }

  // validate_instrs(instr): PutNext's objects neither shared nor already next to each other;
  // with unblocking, no key of a locked door's colour in any instruction. False: rejected.
  bool ValidateInstrs(int i) {
    const Instr& node = instrs_.node(i);
    if (node.kind == InstrKind::kPutNext) {
      const ObjDesc& move = instrs_.desc(node.desc);
      const ObjDesc& fixed = instrs_.desc(node.desc_fixed);
      for (const ObjectId obj : move.obj_set()) {
        if (verifier_internal::Contains(fixed.obj_set(), obj)) return false;
      }
      for (const ObjectId obj : move.obj_set()) {
        for (const Pos pos_b : fixed.obj_poss()) {
          if (PosNextTo(objects_[obj].cur_pos, pos_b)) return false;
        }
      }
      // (moving an object next to itself: the shared objects' check above already refused it)
    }
    if (node.IsAction()) {
      if (!Unblocking()) return true;
      for (const int d : {node.desc, node.desc_fixed}) {
        if (d < 0) continue;
        const ObjDesc& desc = instrs_.desc(d);
        if (desc.type() == Type::kKey && desc.color() && LockedDoorColor(*desc.color())) {
          return false;
        }
      }
      return true;
    }
    return ValidateInstrs(node.a) && ValidateInstrs(node.b);
  }

  // Whether a locked door of `color` is in any room (colors_of_locked_doors).
  bool LockedDoorColor(Color color) const {
    bool found = false;
    ForEachRoomDoor([&](ObjectId door) {
      found = found || (objects_[door].is_locked && objects_[door].color == color);
    });
    return found;
  }

  // gen_obs()["image"] now (the image the base class writes), into start_image_.
  void ComputeStartView() {
    ComputeView(grid_, objects_, ViewOfAgent(), start_view_cells_.data(),
                start_view_visible_.data());
    EncodeView(objects_, start_view_cells_.data(), start_view_visible_.data(), agent_view_size_,
               start_image_.data());
  }

  // A reset that threw (PlacementError after kMaxAttempts, say) leaves a level half made:
  // stepping or drawing it is refused until a reset succeeds.
  void RequireMade() const {
    if (!made_) throw std::logic_error("babyai: the level's last reset failed; reset it again");
  }

  const bool fixed_max_steps_;
  bool made_ = false;
  std::vector<uint8_t> reachable_;
  std::vector<Pos> stack_;
  std::vector<uint8_t> start_image_;
  bool start_image_saved_ = false;
  std::vector<ObjectId> start_view_cells_;
  std::vector<uint8_t> start_view_visible_;
};

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_ROOMGRID_LEVEL_H_
