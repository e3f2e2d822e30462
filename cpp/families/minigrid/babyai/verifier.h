// BabyAI's verifiers: a port of minigrid 3.2.0's Instr.reset_verifier / verify /
// update_objs_poss
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/babyai/core/verifier.py),
// which RoomGridLevel.step runs after every step to end the episode in success or failure.
//
// Each call is the reference's, with its side effects in its order, since the state they
// leave decides later steps:
//   GoTo     success when the cell in front is one of obj_poss, whatever the action; obj_poss
//            is only recomputed on drops, so a target picked up still counts at its old cell.
//   Open     on toggle: success when the cell in front is one of obj_set and open; strict: any
//            other door in front fails.
//   Pickup   preCarrying is what was carried before this step (set on every call, so a call
//            it skips is a step it forgets); on pickup: success when nothing was carried and
//            one of obj_set now is; strict: carrying anything else fails.
//   PutNext  on drop: success when the object carried before is one of desc_move's obj_set
//            and its cur_pos (where it was dropped, or wherever it last was: a failed drop
//            leaves it at (-1, -1), PutNext's start_carrying at its first cell) is next to one
//            of desc_fixed's obj_poss; strict: picking anything up fails.
//   Before   a, then b (b is first verified on the very step a succeeds); strict: b
//            succeeding first fails.
//   After    b, then a, the same way.
//   And      a and b each until it succeeds, in any order; their failures are ignored.
// BABYAI_DONE_ACTIONS (an environment variable minigrid reads at import, unset by default) is
// not followed: `done` is an action like the others here, as in minigrid by default.
#ifndef ENVFLEET_FAMILIES_MINIGRID_BABYAI_VERIFIER_H_
#define ENVFLEET_FAMILIES_MINIGRID_BABYAI_VERIFIER_H_

#include <cstdint>
#include <cstdlib>

#include "families/minigrid/babyai/instructions.h"
#include "families/minigrid/babyai/obj_desc.h"

namespace envfleet::minigrid::babyai {

// What verify reads of the env after the step.
struct VerifyContext {
  const Grid& grid;
  const ObjectTable& objects;
  ObjectId carrying;
  Pos front_pos;
};

// reset_verifier(env): preCarrying None, a_done and b_done False. (It also finds each
// description's objects, as the level already did for the mission's words in the same state.)
inline void ResetVerifier(Instructions& instrs) {
  for (int i = 0; i < instrs.num_nodes(); ++i) {
    Instr& node = instrs.node(i);
    node.pre_carrying = kNoObject;
    node.a_done = Status::kNotYet;
    node.b_done = Status::kNotYet;
  }
}

// update_objs_poss(): every description's obj_poss, without locations (after a drop).
inline void UpdateObjsPoss(Instructions& instrs, const MatchContext& env) {
  for (int i = 0; i < instrs.num_descs(); ++i) instrs.desc(i).FindMatchingObjs(env, false);
}

// pos_next_to(a, b): one step apart, not diagonally.
inline bool PosNextTo(Pos a, Pos b) { return std::abs(a.x - b.x) + std::abs(a.y - b.y) == 1; }

// verify(action) of the node `i`.
inline Status Verify(Instructions& instrs, int i, int64_t action, const VerifyContext& env);

namespace verifier_internal {

inline bool Contains(const std::vector<ObjectId>& objs, ObjectId id) {
  for (ObjectId obj : objs) {
    if (obj == id) return true;
  }
  return false;
}

inline Status VerifyGoTo(const Instructions& instrs, const Instr& node, const VerifyContext& env) {
  for (const Pos pos : instrs.desc(node.desc).obj_poss()) {
    if (pos == env.front_pos) return Status::kSuccess;
  }
  return Status::kContinue;
}

inline Status VerifyOpen(const Instructions& instrs, const Instr& node, int64_t action,
                         const VerifyContext& env) {
  if (action != kToggle) return Status::kContinue;
  const ObjectId front = env.grid.Get(env.front_pos);
  if (front != kNoObject && env.objects[front].is_open &&
      Contains(instrs.desc(node.desc).obj_set(), front)) {
    return Status::kSuccess;
  }
  if (node.strict && front != kNoObject && env.objects[front].type == Type::kDoor) {
    return Status::kFailure;
  }
  return Status::kContinue;
}

inline Status VerifyPickup(const Instructions& instrs, Instr& node, int64_t action,
                           const VerifyContext& env) {
  const ObjectId pre_carrying = node.pre_carrying;
  node.pre_carrying = env.carrying;
  if (action != kPickup) return Status::kContinue;
  if (pre_carrying == kNoObject && env.carrying != kNoObject &&
      Contains(instrs.desc(node.desc).obj_set(), env.carrying)) {
    return Status::kSuccess;
  }
  if (node.strict && env.carrying != kNoObject) return Status::kFailure;
  return Status::kContinue;
}

inline Status VerifyPutNext(const Instructions& instrs, Instr& node, int64_t action,
                            const VerifyContext& env) {
  const ObjectId pre_carrying = node.pre_carrying;
  node.pre_carrying = env.carrying;
  if (node.strict && action == kPickup && env.carrying != kNoObject) return Status::kFailure;
  if (action != kDrop) return Status::kContinue;
  if (pre_carrying == kNoObject || !Contains(instrs.desc(node.desc).obj_set(), pre_carrying)) {
    return Status::kContinue;
  }
  const Pos pos_a = env.objects[pre_carrying].cur_pos;
  for (const Pos pos_b : instrs.desc(node.desc_fixed).obj_poss()) {
    if (PosNextTo(pos_a, pos_b)) return Status::kSuccess;
  }
  return Status::kContinue;
}

// BeforeInstr.verify (first = a, second = b) and AfterInstr.verify (first = b, second = a).
inline Status VerifyInOrder(Instructions& instrs, int i, int64_t action, const VerifyContext& env,
                            bool a_first) {
  Instr& node = instrs.node(i);
  Status& first_done = a_first ? node.a_done : node.b_done;
  Status& second_done = a_first ? node.b_done : node.a_done;
  const int first = a_first ? node.a : node.b;
  const int second = a_first ? node.b : node.a;
  if (first_done == Status::kSuccess) {
    second_done = Verify(instrs, second, action, env);
    if (second_done == Status::kFailure) return Status::kFailure;
    if (second_done == Status::kSuccess) return Status::kSuccess;
  } else {
    first_done = Verify(instrs, first, action, env);
    if (first_done == Status::kFailure) return Status::kFailure;
    if (first_done == Status::kSuccess) return VerifyInOrder(instrs, i, action, env, a_first);
    if (node.strict && Verify(instrs, second, action, env) == Status::kSuccess) {
      return Status::kFailure;
    }
  }
  return Status::kContinue;
}

inline Status VerifyAnd(Instructions& instrs, int i, int64_t action, const VerifyContext& env) {
  Instr& node = instrs.node(i);
  if (node.a_done != Status::kSuccess) node.a_done = Verify(instrs, node.a, action, env);
  if (node.b_done != Status::kSuccess) node.b_done = Verify(instrs, node.b, action, env);
  if (node.a_done == Status::kSuccess && node.b_done == Status::kSuccess) {
    return Status::kSuccess;
  }
  return Status::kContinue;
}

}  // namespace verifier_internal

inline Status Verify(Instructions& instrs, int i, int64_t action, const VerifyContext& env) {
  using namespace verifier_internal;  // NOLINT(build/namespaces)
  Instr& node = instrs.node(i);
  switch (node.kind) {
    case InstrKind::kGoTo:
      return VerifyGoTo(instrs, node, env);
    case InstrKind::kOpen:
      return VerifyOpen(instrs, node, action, env);
    case InstrKind::kPickup:
      return VerifyPickup(instrs, node, action, env);
    case InstrKind::kPutNext:
      return VerifyPutNext(instrs, node, action, env);
    case InstrKind::kBefore:
      return VerifyInOrder(instrs, i, action, env, /*a_first=*/true);
    case InstrKind::kAfter:
      return VerifyInOrder(instrs, i, action, env, /*a_first=*/false);
    case InstrKind::kAnd:
      return VerifyAnd(instrs, i, action, env);
  }
  return Status::kContinue;
}

}  // namespace envfleet::minigrid::babyai

#endif  // ENVFLEET_FAMILIES_MINIGRID_BABYAI_VERIFIER_H_
