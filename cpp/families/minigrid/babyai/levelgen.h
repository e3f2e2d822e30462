// BabyAI's level generator: a port of minigrid 3.2.0's LevelGen
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/core/levelgen.py),
// which draws instructions from the whole Baby language. The levels of synth.py (Synth,
// SynthS5R2, SynthLoc, SynthSeq, MiniBossLevel, BossLevel, BossLevelNoUnlock), GoToSeq
// (goto.py) and PickupLoc (pickup.py) are LevelGen with other arguments: their ids register
// this class with them (src/envfleet/families/minigrid.py).
//
// gen_mission: a locked room with probability locked_room_prob (a uniform draw taken even when
// it is 0), connect_all, num_dists distractors anywhere, the agent in any room but the locked
// one, the reachability check without unblocking, then rand_instr: the kind (action, and, seq)
// and for an action its kind (goto, pickup, open, putnext) and descriptions (rand_obj: colour
// from [None, *COLOR_NAMES], type, then with locations a coin and a location, until a
// description matches an object, and without implicit unlocking one outside the locked room;
// RecursionError after 101 tries); "and" joins two actions, "seq" two actions or ands with
// "before" or "after".
//
// Options: room_size 8, num_rows 3, num_cols 3, num_dists 18, locked_room_prob 0.5, locations,
// unblocking, implicit_unlock (True), action_kinds ("goto", "pickup", "open", "putnext"),
// instr_kinds ("action", "and", "seq"); each kinds entry may also be EnvPool's comma-separated
// string ("goto,pickup"). minigrid's subclasses fix some of them (Synth: instr_kinds, locations,
// unblocking, implicit_unlock) and refuse them as arguments; envfleet takes them all.
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_LEVELGEN_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_LEVELGEN_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "families/minigrid/babyai/roomgrid_level.h"

namespace envfleet::minigrid::babyai {

// LevelGen's action_kinds and instr_kinds.
enum class ActionKind : uint8_t { kGoTo, kPickup, kOpen, kPutNext };
enum class InstrChoice : uint8_t { kAction, kAnd, kSeq };

// A list of names (minigrid's tuple of strings; an entry may hold several, comma-separated,
// as EnvPool's string does), as the kinds they name, in order; an unknown one is refused,
// naming the option and listing the names.
template <typename Kind, size_t N>
std::vector<Kind> KindsOption(const Config& config, const std::string& option,
                              const std::array<const char*, N>& names) {
  std::vector<Kind> kinds;
  for (const std::string& entry : config.Get<std::vector<std::string>>(option)) {
    size_t start = 0;
    while (start <= entry.size()) {
      const size_t end = std::min(entry.find(',', start), entry.size());
      const std::string name = entry.substr(start, end - start);
      size_t k = 0;
      while (k < N && name != names[k]) ++k;
      if (k == N) {
        std::string valid;
        for (const char* n : names) valid += std::string(valid.empty() ? "" : ", ") + "'" + n + "'";
        throw std::invalid_argument(option + " must name kinds among " + valid + "; got '" + name +
                                    "'");
      }
      kinds.push_back(static_cast<Kind>(k));
      start = end + 1;
    }
  }
  if (kinds.empty()) throw std::invalid_argument(option + " must name at least one kind");
  return kinds;
}

inline constexpr std::array<const char*, 4> kActionKindNames = {"goto", "pickup", "open",
                                                                "putnext"};
inline constexpr std::array<const char*, 3> kInstrKindNames = {"action", "and", "seq"};

class LevelGen final : public RoomGridLevel {
 public:
  static Config DefaultConfig() {
    return LevelOptions({
        {"room_size", int64_t{8}},
        {"num_rows", int64_t{3}},
        {"num_cols", int64_t{3}},
        {"num_dists", int64_t{18}},
        {"locked_room_prob", 0.5},
        {"locations", true},
        {"unblocking", true},
        {"implicit_unlock", true},
        {"action_kinds", std::vector<std::string>{"goto", "pickup", "open", "putnext"}},
        {"instr_kinds", std::vector<std::string>{"action", "and", "seq"}},
    });
  }
  static LevelLayout LayoutOf(const Config& config) {
    return {LevelShape(config, {}), LevelMaxSteps(config)};
  }
  static EnvSpec Spec(const Config& config) {
    const RoomShape shape = LevelShape(config, {});
    // In one room there is no door to name: an instruction needs a distractor.
    CountOption(config, "num_dists", shape, shape.num_rows * shape.num_cols,
                shape.num_rows * shape.num_cols == 1 ? 1 : 0);
    if (config.Get<double>("locked_room_prob") > 0 && shape.num_rows * shape.num_cols < 2) {
      // add_locked_room would look forever for a wall with a neighbour
      throw std::invalid_argument(
          "locked_room_prob > 0 needs more than one room (num_rows * "
          "num_cols >= 2)");
    }
    KindsOption<ActionKind>(config, "action_kinds", kActionKindNames);
    KindsOption<InstrChoice>(config, "instr_kinds", kInstrKindNames);
    return LevelSpec(config, LayoutOf(config));
  }

  LevelGen(const Config& config, uint64_t seed)
      : RoomGridLevel(config, seed, LayoutOf(config)),
        num_dists_(static_cast<int>(config.Get<int64_t>("num_dists"))),
        locked_room_prob_(config.Get<double>("locked_room_prob")),
        locations_(config.Get<bool>("locations")),
        unblocking_(config.Get<bool>("unblocking")),
        implicit_unlock_(config.Get<bool>("implicit_unlock")),
        action_kinds_(KindsOption<ActionKind>(config, "action_kinds", kActionKindNames)),
        instr_kinds_(KindsOption<InstrChoice>(config, "instr_kinds", kInstrKindNames)) {
    Spec(config);
  }

 protected:
  bool Unblocking() const override { return unblocking_; }

  bool GenMission() override {
    locked_room_ = nullptr;
    if (rng().Uniform(0, 1) < locked_room_prob_) AddLockedRoom();
    ConnectAll();
    AddDistractors(std::nullopt, std::nullopt, num_dists_, /*all_unique=*/false);
    do {
      PlaceAgentInRoom();
    } while (AgentRoom() == locked_room_);
    if (!unblocking_ && !CheckObjsReachable()) return false;
    instrs_.SetRoot(RandInstr(instr_kinds_.data(), instr_kinds_.size()));
    return true;
  }

 private:
  // add_locked_room(): a locked door on a wall with a neighbour (its colour drawn by add_door),
  // then its key in another room.
  void AddLockedRoom() {
    ObjectId door = kNoObject;
    while (true) {
      const int i = RandInt(0, num_cols_);
      const int j = RandInt(0, num_rows_);
      const int door_idx = RandInt(0, 4);
      locked_room_ = &RoomAt(i, j);
      if (locked_room_->neighbors[static_cast<size_t>(door_idx)] < 0) continue;
      door = AddDoor(i, j, door_idx, std::nullopt, true).first;
      break;
    }
    while (true) {
      const int i = RandInt(0, num_cols_);
      const int j = RandInt(0, num_rows_);
      if (&RoomAt(i, j) == locked_room_) continue;
      AddObject(i, j, Type::kKey, objects_[door].color);
      break;
    }
  }

  // rand_obj(types, colors=COLOR_NAMES, max_tries=100): a new description that matches.
  template <size_t N>
  int RandObj(const std::array<Type, N>& types) {
    const int d = instrs_.NewDesc(std::nullopt, std::nullopt);
    ObjDesc& desc = instrs_.desc(d);
    const MatchContext env = Matching();
    for (int num_tries = 0;; ++num_tries) {
      if (num_tries > 100) throw PlacementError("failed to find suitable object");
      // _rand_elem([None, *COLOR_NAMES])
      const int color_index = RandIndex(kNumColors + 1);
      const std::optional<Color> color =
          color_index == 0
              ? std::nullopt
              : std::optional<Color>(kColorNames[static_cast<size_t>(color_index - 1)]);
      const Type type = RandElem(types);
      Loc loc = Loc::kNone;
      if (locations_ && RandBool()) loc = RandElem(kLocNames);
      desc.Set(type, color, loc);
      // At least one object matches (outside the locked room without implicit unlocking);
      // the objects themselves are found once the instructions are complete.
      if (!desc.AnyMatch(env, implicit_unlock_ ? nullptr : locked_room_)) continue;
      return d;
    }
  }

  // rand_instr(action_kinds, instr_kinds): `kinds` is the instr_kinds it draws from.
  int RandInstr(const InstrChoice* kinds, size_t num_kinds) {
    static constexpr std::array<InstrChoice, 1> kActionOnly = {InstrChoice::kAction};
    static constexpr std::array<InstrChoice, 2> kActionOrAnd = {InstrChoice::kAction,
                                                                InstrChoice::kAnd};
    switch (kinds[RandIndex(num_kinds)]) {
      case InstrChoice::kAction:
        switch (action_kinds_[static_cast<size_t>(RandIndex(action_kinds_.size()))]) {
          case ActionKind::kGoTo:
            return instrs_.Action(InstrKind::kGoTo, RandObj(kDescTypes));
          case ActionKind::kPickup:
            return instrs_.Action(InstrKind::kPickup, RandObj(kDescTypesNotDoor));
          case ActionKind::kOpen:
            return instrs_.Action(InstrKind::kOpen, RandObj(std::array<Type, 1>{Type::kDoor}));
          case ActionKind::kPutNext: {
            const int move = RandObj(kDescTypesNotDoor);
            return instrs_.Action(InstrKind::kPutNext, move, RandObj(kDescTypes));
          }
        }
        break;
      case InstrChoice::kAnd: {
        const int a = RandInstr(kActionOnly.data(), kActionOnly.size());
        const int b = RandInstr(kActionOnly.data(), kActionOnly.size());
        return instrs_.Seq(InstrKind::kAnd, a, b);
      }
      case InstrChoice::kSeq: {
        const int a = RandInstr(kActionOrAnd.data(), kActionOrAnd.size());
        const int b = RandInstr(kActionOrAnd.data(), kActionOrAnd.size());
        // _rand_elem(["before", "after"])
        return instrs_.Seq(RandIndex(2) == 0 ? InstrKind::kBefore : InstrKind::kAfter, a, b);
      }
    }
    throw std::logic_error("babyai: unknown instruction kind");
  }

  const int num_dists_;
  const double locked_room_prob_;
  const bool locations_;
  const bool unblocking_;
  const bool implicit_unlock_;
  const std::vector<ActionKind> action_kinds_;
  const std::vector<InstrChoice> instr_kinds_;
  const Room* locked_room_ = nullptr;
};

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_LEVELGEN_H_
