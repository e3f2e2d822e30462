// BabyAI's instructions: the tree of minigrid 3.2.0's Instr classes
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/core/verifier.py):
// the actions GoToInstr, OpenInstr, PickupInstr and PutNextInstr over object descriptions
// (obj_desc.h), and the sequences BeforeInstr, AfterInstr and AndInstr over two of them; their
// words (surface) and RoomGridLevel.num_navs_needed. Verifying them is verifier.h.
//
// The tree lives in fixed arrays, rebuilt per episode without allocating: the deepest tree the
// grammar makes (LevelGen's "seq" of two "and"s of two actions) has 7 instructions and 8
// descriptions (four PutNexts).
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_INSTRUCTIONS_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_INSTRUCTIONS_H_

#include <array>
#include <cstdint>
#include <stdexcept>

#include "families/minigrid/babyai/obj_desc.h"
#include "families/minigrid/mission.h"

namespace envfleet::minigrid::babyai {

enum class InstrKind : uint8_t { kGoTo, kOpen, kPickup, kPutNext, kBefore, kAfter, kAnd };

// What Instr.verify returns; kNotYet is the False a sequence's a_done/b_done start as.
enum class Status : uint8_t { kNotYet, kContinue, kSuccess, kFailure };

struct Instr {
  InstrKind kind = InstrKind::kGoTo;
  bool strict = false;
  // Actions: their descriptions (PutNext: desc_move, desc_fixed), indices into descs.
  int desc = -1;
  int desc_fixed = -1;
  // Sequences: instr_a and instr_b, indices into the nodes.
  int a = -1;
  int b = -1;
  // Verifier state (verifier.h): Pickup's and PutNext's preCarrying, a sequence's a_done and
  // b_done.
  ObjectId pre_carrying = kNoObject;
  Status a_done = Status::kNotYet;
  Status b_done = Status::kNotYet;

  bool IsAction() const { return kind <= InstrKind::kPutNext; }
};

class Instructions {
 public:
  static constexpr int kMaxNodes = 7;
  static constexpr int kMaxDescs = 8;

  void Clear() {
    num_nodes_ = 0;
    num_descs_ = 0;
    root_ = -1;
  }

  // A new description (ObjDesc(type, color, loc)); returns its index.
  int NewDesc(std::optional<Type> type, std::optional<Color> color, Loc loc = Loc::kNone) {
    if (num_descs_ == kMaxDescs) throw std::logic_error("babyai: too many object descriptions");
    descs_[static_cast<size_t>(num_descs_)].Set(type, color, loc);
    return num_descs_++;
  }
  // GoToInstr(desc), OpenInstr(desc, strict), PickupInstr(desc, strict),
  // PutNextInstr(desc_move, desc_fixed, strict); returns the node's index.
  int Action(InstrKind kind, int desc, int desc_fixed = -1, bool strict = false) {
    if (kind == InstrKind::kOpen && descs_[static_cast<size_t>(desc)].type() != Type::kDoor) {
      throw std::logic_error("babyai: OpenInstr needs a door");  // minigrid asserts
    }
    Instr& node = NewNode(kind);
    node.desc = desc;
    node.desc_fixed = desc_fixed;
    node.strict = strict;
    return num_nodes_ - 1;
  }
  // BeforeInstr(a, b), AfterInstr(a, b), AndInstr(a, b) (strict: SeqInstr's).
  int Seq(InstrKind kind, int a, int b, bool strict = false) {
    Instr& node = NewNode(kind);
    node.a = a;
    node.b = b;
    node.strict = strict;
    return num_nodes_ - 1;
  }
  void SetRoot(int node) { root_ = node; }

  int root() const { return root_; }
  int num_nodes() const { return num_nodes_; }
  int num_descs() const { return num_descs_; }
  Instr& node(int i) { return nodes_[static_cast<size_t>(i)]; }
  const Instr& node(int i) const { return nodes_[static_cast<size_t>(i)]; }
  ObjDesc& desc(int i) { return descs_[static_cast<size_t>(i)]; }
  const ObjDesc& desc(int i) const { return descs_[static_cast<size_t>(i)]; }

  // instrs.surface(env), once every description has found its objects.
  void Surface(MissionText& out) const { Surface(root_, out); }

  // num_navs_needed(instrs): 2 for a PutNext, 1 for another action, a sequence's two summed.
  int NumNavsNeeded() const { return NumNavsNeeded(root_); }

 private:
  Instr& NewNode(InstrKind kind) {
    if (num_nodes_ == kMaxNodes) throw std::logic_error("babyai: too many instructions");
    Instr& node = nodes_[static_cast<size_t>(num_nodes_++)];
    node = Instr{};
    node.kind = kind;
    return node;
  }

  void Surface(int i, MissionText& out) const {
    const Instr& n = node(i);
    switch (n.kind) {
      case InstrKind::kGoTo:
        out << "go to ";
        desc(n.desc).Surface(out);
        break;
      case InstrKind::kOpen:
        out << "open ";
        desc(n.desc).Surface(out);
        break;
      case InstrKind::kPickup:
        out << "pick up ";
        desc(n.desc).Surface(out);
        break;
      case InstrKind::kPutNext:
        out << "put ";
        desc(n.desc).Surface(out);
        out << " next to ";
        desc(n.desc_fixed).Surface(out);
        break;
      case InstrKind::kBefore:
        Surface(n.a, out);
        out << ", then ";
        Surface(n.b, out);
        break;
      case InstrKind::kAfter:
        Surface(n.a, out);
        out << " after you ";
        Surface(n.b, out);
        break;
      case InstrKind::kAnd:
        Surface(n.a, out);
        out << " and ";
        Surface(n.b, out);
        break;
    }
  }

  int NumNavsNeeded(int i) const {
    const Instr& n = node(i);
    if (n.kind == InstrKind::kPutNext) return 2;
    if (n.IsAction()) return 1;
    return NumNavsNeeded(n.a) + NumNavsNeeded(n.b);
  }

  std::array<Instr, kMaxNodes> nodes_{};
  std::array<ObjDesc, kMaxDescs> descs_;
  int num_nodes_ = 0;
  int num_descs_ = 0;
  int root_ = -1;
};

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_INSTRUCTIONS_H_
