// BabyAI's instruction pieces (cpp/families/minigrid/babyai/) on hand-made worlds: what object
// descriptions match and say, and the verifiers' calls and their state, quirks included. The
// levels themselves are compared with minigrid 3.2.0 step by step in
// tests/families/minigrid/test_babyai.py.
#include <string>

#include "check.h"
#include "families/minigrid/babyai/instructions.h"
#include "families/minigrid/babyai/obj_desc.h"
#include "families/minigrid/babyai/verifier.h"

namespace envfleet::minigrid::babyai {
namespace {

// One 7x7 room, walled, the agent in the middle facing right (+x).
struct World {
  Grid grid;
  ObjectTable objects;
  Room room;
  Pos agent = {3, 3};
  int dir = 0;
  ObjectId carrying = kNoObject;

  World() {
    grid.Reset(7, 7);
    grid.WallRect(0, 0, 7, 7, ObjectTable::kGreyWall);
    room.top = {0, 0};
    room.size = {7, 7};
  }
  ObjectId Put(Type type, Color color, Pos pos) {
    const ObjectId id =
        type == Type::kDoor ? objects.AddDoor(color, false, false) : objects.Add(type, color);
    grid.Set(pos, id);
    objects[id].cur_pos = pos;
    return id;
  }
  MatchContext Matching() const { return {grid, objects, agent, dir, room}; }
  VerifyContext Verifying() const {
    const Pos d = kDirToVec[static_cast<size_t>(dir)];
    return {grid, objects, carrying, {agent.x + d.x, agent.y + d.y}};
  }
  // MiniGridEnv's pickup and drop of the cell in front, as the verifiers then see them.
  void Pickup() {
    const Pos front = Verifying().front_pos;
    carrying = grid.Get(front);
    objects[carrying].cur_pos = {-1, -1};
    grid.Set(front, kNoObject);
  }
  void Drop() {
    const Pos front = Verifying().front_pos;
    grid.Set(front, carrying);
    objects[carrying].cur_pos = front;
    carrying = kNoObject;
  }
};

std::string Words(const ObjDesc& desc) {
  MissionText text;
  desc.Surface(text);
  return std::string(text.view());
}

TEST(BabyAIObjDesc, LocationsMatchTheSideOfTheAgentInItsRoom) {
  World w;  // facing +x: "front" is x > 3, "left" is y < 3
  const ObjectId ahead = w.Put(Type::kBall, Color::kRed, {5, 3});
  const ObjectId left = w.Put(Type::kBall, Color::kRed, {2, 1});
  w.Put(Type::kKey, Color::kRed, {4, 5});
  ObjDesc desc;
  desc.Set(Type::kBall, Color::kRed, Loc::kFront);
  desc.FindMatchingObjs(w.Matching());
  REQUIRE_EQ(desc.obj_set().size(), 1u);
  CHECK_EQ(desc.obj_set()[0], ahead);
  CHECK_EQ(Words(desc), "the red ball in front of you");
  desc.Set(Type::kBall, std::nullopt, Loc::kLeft);
  desc.FindMatchingObjs(w.Matching());
  REQUIRE_EQ(desc.obj_set().size(), 1u);
  CHECK_EQ(desc.obj_set()[0], left);
  CHECK_EQ(Words(desc), "the ball on your left");
  desc.Set(std::nullopt, Color::kRed, Loc::kBehind);  // x < 3: the ball at (2, 1)
  desc.FindMatchingObjs(w.Matching());
  CHECK_EQ(desc.obj_set().size(), 1u);
  CHECK_EQ(Words(desc), "the red object behind you");
  desc.Set(Type::kBall, Color::kRed);  // no location: both, listed column by column
  desc.FindMatchingObjs(w.Matching());
  REQUIRE_EQ(desc.obj_set().size(), 2u);
  CHECK_EQ(desc.obj_set()[0], left);
  CHECK_EQ(Words(desc), "a red ball");
}

TEST(BabyAIObjDesc, WithoutATypeAGreyDescriptionMatchesTheWalls) {
  World w;
  w.Put(Type::kBox, Color::kGrey, {2, 2});
  ObjDesc desc;
  desc.Set(std::nullopt, Color::kGrey);
  desc.FindMatchingObjs(w.Matching());
  CHECK_EQ(desc.obj_set().size(), 24u + 1u);  // the 24 wall cells and the box
  CHECK_EQ(Words(desc), "a grey object");
}

TEST(BabyAIObjDesc, UpdatesFollowOnlyTheObjectsFoundAtFirst) {
  World w;
  const ObjectId ball = w.Put(Type::kBall, Color::kBlue, {4, 3});
  ObjDesc desc;
  desc.Set(Type::kBall, Color::kBlue);
  desc.FindMatchingObjs(w.Matching());
  w.Put(Type::kBall, Color::kBlue, {1, 1});  // a second blue ball, made later
  w.Pickup();                                // the first, carried: no position
  desc.FindMatchingObjs(w.Matching(), /*use_location=*/false);
  CHECK_EQ(desc.obj_set().size(), 1u);
  CHECK(desc.obj_poss().empty());
  w.dir = 1;
  w.Drop();  // at (3, 4)
  desc.FindMatchingObjs(w.Matching(), false);
  REQUIRE_EQ(desc.obj_poss().size(), 1u);
  CHECK(desc.obj_poss()[0] == (Pos{3, 4}));
  CHECK(w.objects[ball].cur_pos == (Pos{3, 4}));
}

TEST(BabyAIVerifier, GoToSucceedsFacingAStalePositionWhateverTheAction) {
  World w;
  w.Put(Type::kKey, Color::kGreen, {5, 3});
  Instructions instrs;
  instrs.SetRoot(instrs.Action(InstrKind::kGoTo, instrs.NewDesc(Type::kKey, Color::kGreen)));
  instrs.desc(0).FindMatchingObjs(w.Matching());
  ResetVerifier(instrs);
  CHECK(Verify(instrs, instrs.root(), kDone, w.Verifying()) == Status::kContinue);
  w.agent = {4, 3};  // facing the key
  CHECK(Verify(instrs, instrs.root(), kDone, w.Verifying()) == Status::kSuccess);
  w.Pickup();  // the key is gone, obj_poss (updated on drops only) still has its cell
  CHECK(Verify(instrs, instrs.root(), kLeft, w.Verifying()) == Status::kSuccess);
}

TEST(BabyAIVerifier, BeforeVerifiesItsSecondPartOnTheStepItsFirstSucceeds) {
  // "pick up the red ball, then pick up a ball": the second part has never seen the agent's
  // hands empty, so its preCarrying is still None: the one pickup wins both.
  World w;
  w.Put(Type::kBall, Color::kRed, {4, 3});
  Instructions instrs;
  const int first = instrs.Action(InstrKind::kPickup, instrs.NewDesc(Type::kBall, Color::kRed));
  const int second = instrs.Action(InstrKind::kPickup, instrs.NewDesc(Type::kBall, std::nullopt));
  instrs.SetRoot(instrs.Seq(InstrKind::kBefore, first, second));
  CHECK_EQ(instrs.NumNavsNeeded(), 2);
  for (int d = 0; d < instrs.num_descs(); ++d) instrs.desc(d).FindMatchingObjs(w.Matching());
  MissionText text;
  instrs.Surface(text);
  CHECK_EQ(text.view(), "pick up the red ball, then pick up the ball");
  ResetVerifier(instrs);
  CHECK(Verify(instrs, instrs.root(), kLeft, w.Verifying()) == Status::kContinue);
  w.Pickup();
  CHECK(Verify(instrs, instrs.root(), kPickup, w.Verifying()) == Status::kSuccess);
}

TEST(BabyAIVerifier, TwoStrictOpensInSequenceFailOnTheFirstDoor) {
  // OpenDoorsOrderDebug's Before of two strict Opens: the toggle that opens the first door is
  // checked by the second too, which faces a door not its own.
  World w;
  const ObjectId red = w.Put(Type::kDoor, Color::kRed, {4, 3});
  w.Put(Type::kDoor, Color::kBlue, {2, 3});
  Instructions instrs;
  const int open_red = instrs.Action(InstrKind::kOpen, instrs.NewDesc(Type::kDoor, Color::kRed), -1,
                                     /*strict=*/true);
  const int open_blue = instrs.Action(InstrKind::kOpen, instrs.NewDesc(Type::kDoor, Color::kBlue),
                                      -1, /*strict=*/true);
  instrs.SetRoot(instrs.Seq(InstrKind::kBefore, open_red, open_blue));
  for (int d = 0; d < instrs.num_descs(); ++d) instrs.desc(d).FindMatchingObjs(w.Matching());
  ResetVerifier(instrs);
  w.objects[red].is_open = true;  // MiniGridEnv's toggle, then the verifier
  CHECK(Verify(instrs, instrs.root(), kToggle, w.Verifying()) == Status::kFailure);
  // Without strictness the second part waits for its own door.
  instrs.node(open_blue).strict = false;
  ResetVerifier(instrs);
  CHECK(Verify(instrs, instrs.root(), kToggle, w.Verifying()) == Status::kContinue);
  CHECK(instrs.node(instrs.root()).a_done == Status::kSuccess);
}

TEST(BabyAIVerifier, AndWaitsForBothAndIgnoresAFailure) {
  World w;
  w.Put(Type::kDoor, Color::kYellow, {4, 3});
  w.Put(Type::kBox, Color::kPurple, {3, 5});
  Instructions instrs;
  const int open = instrs.Action(InstrKind::kOpen, instrs.NewDesc(Type::kDoor, Color::kGreen), -1,
                                 /*strict=*/true);  // facing a yellow door: fails
  const int go = instrs.Action(InstrKind::kGoTo, instrs.NewDesc(Type::kBox, Color::kPurple));
  instrs.SetRoot(instrs.Seq(InstrKind::kAnd, open, go));
  w.Put(Type::kDoor, Color::kGreen, {1, 3});
  for (int d = 0; d < instrs.num_descs(); ++d) instrs.desc(d).FindMatchingObjs(w.Matching());
  ResetVerifier(instrs);
  CHECK(Verify(instrs, instrs.root(), kToggle, w.Verifying()) == Status::kContinue);
  CHECK(instrs.node(instrs.root()).a_done == Status::kFailure);
}

TEST(BabyAIVerifier, PutNextChecksWhereTheObjectCarriedBeforeTheDropIs) {
  World w;
  w.Put(Type::kKey, Color::kRed, {4, 3});
  w.Put(Type::kBall, Color::kGrey, {5, 5});
  Instructions instrs;
  const int move = instrs.NewDesc(Type::kKey, Color::kRed);
  instrs.SetRoot(
      instrs.Action(InstrKind::kPutNext, move, instrs.NewDesc(Type::kBall, Color::kGrey)));
  CHECK_EQ(instrs.NumNavsNeeded(), 2);
  for (int d = 0; d < instrs.num_descs(); ++d) instrs.desc(d).FindMatchingObjs(w.Matching());
  ResetVerifier(instrs);
  w.Pickup();
  CHECK(Verify(instrs, instrs.root(), kPickup, w.Verifying()) == Status::kContinue);
  w.agent = {5, 3};
  w.dir = 1;  // facing (5, 4), next to the ball
  w.Drop();
  UpdateObjsPoss(instrs, w.Matching());
  CHECK(Verify(instrs, instrs.root(), kDrop, w.Verifying()) == Status::kSuccess);
}

}  // namespace
}  // namespace envfleet::minigrid::babyai
