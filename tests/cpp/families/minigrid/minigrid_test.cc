// The MiniGrid core's pieces (cpp/families/minigrid/): the object table's identities, the
// grid's bounds, the agent's view and visibility, the process-wide tile cache under
// concurrent use, and the room grid's helpers BabyAI will build on (connect_all,
// add_distractors). The envs themselves are compared with minigrid 3.2.0 step by step in
// tests/families/minigrid/.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "check.h"
#include "families/minigrid/empty.h"
#include "families/minigrid/render.h"
#include "families/minigrid/room_grid.h"
#include "families/minigrid/view.h"
#include "families/minigrid/world_object.h"

namespace envfleet::minigrid {
namespace {

TEST(MiniGridObjects, StatelessKindsAreOneObjectEachAndTheOthersHaveIdentities) {
  ObjectTable objects;
  CHECK_EQ(objects.Static(Type::kWall, Color::kGrey), ObjectTable::kGreyWall);
  const ObjectId lava = objects.Static(Type::kLava, Color::kRed);
  CHECK_EQ(objects.Static(Type::kLava, Color::kRed), lava);
  CHECK_NE(objects.Static(Type::kWall, Color::kBlue), ObjectTable::kGreyWall);
  const ObjectId a = objects.Add(Type::kKey, Color::kRed);
  const ObjectId b = objects.Add(Type::kKey, Color::kRed);
  CHECK_NE(a, b);  // equal kinds and colours, two objects (KeyCorridor compares identities)
  CHECK_THROWS(std::logic_error, objects.Static(Type::kDoor, Color::kRed));
  objects.Clear();
  CHECK_EQ(objects.size(), 1u);  // the grey wall, always object 0
  CHECK(objects[ObjectTable::kGreyWall].type == Type::kWall);
}

TEST(MiniGridObjects, DoorStatesEncodeAsMinigridsDoorEncode) {
  ObjectTable objects;
  const ObjectId door = objects.AddDoor(Color::kYellow, false, true);
  CHECK_EQ(objects[door].State(), 2);  // locked
  CHECK(!objects[door].CanOverlap() && !objects[door].SeeBehind());
  objects[door].is_locked = false;
  CHECK_EQ(objects[door].State(), 1);  // closed
  objects[door].is_open = true;
  CHECK_EQ(objects[door].State(), 0);  // open
  CHECK(objects[door].CanOverlap() && objects[door].SeeBehind());
}

TEST(MiniGridGrid, CellsOutsideTheGridAreRefused) {
  Grid grid;
  grid.Reset(5, 4);
  CHECK_EQ(grid.Get(4, 3), kNoObject);
  CHECK_THROWS(std::logic_error, grid.Get(5, 0));
  CHECK_THROWS(std::logic_error, grid.Set(0, -1, kNoObject));
}

// A 9x9 walled world with a wall segment, for the view tests.
struct ViewWorld {
  ObjectTable objects;
  Grid grid;
  ViewWorld() {
    grid.Reset(9, 9);
    grid.WallRect(0, 0, 9, 9, ObjectTable::kGreyWall);
  }
};

TEST(MiniGridView, TheAgentLooksUpFromTheBottomRowInEveryDirection) {
  ViewWorld world;
  const ObjectId key = world.objects.Add(Type::kKey, Color::kBlue);
  const Pos agent = {4, 4};
  for (int dir = 0; dir < 4; ++dir) {
    world.grid.Reset(9, 9);
    const Pos front = {agent.x + kDirToVec[dir].x, agent.y + kDirToVec[dir].y};
    world.grid.Set(front, key);
    AgentView view{agent, dir, 7, false, kNoObject};
    std::vector<ObjectId> cells(49);
    std::vector<uint8_t> visible(49);
    ComputeView(world.grid, world.objects, view, cells.data(), visible.data());
    CHECK_EQ(cells[5 * 7 + 3], key);  // straight ahead of (3, 6)
    CHECK(visible[6 * 7 + 3] && visible[5 * 7 + 3]);
  }
}

TEST(MiniGridView, WallsHideWhatIsBehindThemUnlessSeeThroughWalls) {
  ViewWorld world;
  const ObjectId ball = world.objects.Add(Type::kBall, Color::kGreen);
  // Facing up from (4, 7): a wall across the view two cells ahead, the ball behind it.
  world.grid.HorzWall(1, 5, 7, ObjectTable::kGreyWall);
  world.grid.Set(4, 3, ball);
  std::vector<ObjectId> cells(49);
  std::vector<uint8_t> visible(49);
  AgentView view{{4, 7}, 3, 7, false, kNoObject};
  ComputeView(world.grid, world.objects, view, cells.data(), visible.data());
  CHECK(visible[4 * 7 + 3]);   // the wall, two ahead
  CHECK(!visible[2 * 7 + 3]);  // the ball's cell, behind it
  CHECK_EQ(cells[2 * 7 + 3], kNoObject);
  view.see_through_walls = true;
  ComputeView(world.grid, world.objects, view, cells.data(), visible.data());
  CHECK(visible[2 * 7 + 3]);
  CHECK_EQ(cells[2 * 7 + 3], ball);
  std::vector<uint8_t> image(49 * 3);
  EncodeView(world.objects, cells.data(), visible.data(), 7, image.data());
  CHECK_EQ(image[(3 * 7 + 2) * 3], static_cast<uint8_t>(Type::kBall));  // image[i][j], i = 3
}

TEST(MiniGridView, TheAgentsCellShowsWhatItCarries) {
  ViewWorld world;
  const ObjectId box = world.objects.Add(Type::kBox, Color::kPurple);
  std::vector<ObjectId> cells(9);
  std::vector<uint8_t> visible(9);
  ComputeView(world.grid, world.objects, {{4, 4}, 0, 3, false, box}, cells.data(), visible.data());
  CHECK_EQ(cells[2 * 3 + 1], box);
}

TEST(MiniGridRender, TilesAreDrawnOnceAndSharedAcrossThreads) {
  const render::TileSet& tiles = render::TilesOf(7);
  CHECK_EQ(&render::TilesOf(7), &tiles);
  const render::TileObject lava{Type::kLava, Color::kRed, 0};
  std::vector<const uint8_t*> got(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] { got[t] = tiles.Get(lava, static_cast<int>(t % 2) - 1, t > 3); });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t t = 0; t < got.size(); ++t) {
    CHECK_EQ(got[t], tiles.Get(lava, static_cast<int>(t % 2) - 1, t > 3));  // one tile per key
  }
  CHECK_NE(got[0], got[1]);  // with the agent or without
  CHECK_NE(got[0], got[4]);  // highlighted or not
  // A fresh drawing of the same tile holds the same pixels.
  std::vector<uint8_t> drawn(7 * 7 * 3);
  render::DrawTile(lava, -1, false, 7, drawn.data());
  CHECK(std::memcmp(drawn.data(), got[0], drawn.size()) == 0);
}

TEST(MiniGridEnv, RelativeCoordsAndAgentSeesFollowTheView) {
  // Empty-8x8 with process_vis: the agent at (1, 1) facing right sees the 7x7 square ahead,
  // itself at view (3, 6); the goal at (6, 6) is outside it.
  Config config = EmptyEnv::DefaultConfig();
  config.Set("see_through_walls", false);
  EmptyEnv env(config, 0);
  env.Reset();
  CHECK(env.agent_pos() == (Pos{1, 1}));
  CHECK(*env.RelativeCoords({1, 1}) == (Pos{3, 6}));
  CHECK(*env.RelativeCoords({2, 1}) == (Pos{3, 5}));  // one ahead: one row up
  CHECK(*env.RelativeCoords({1, 2}) == (Pos{4, 6}));  // to the right (down the grid)
  CHECK(!env.RelativeCoords({0, 1}));                 // behind
  CHECK(env.AgentSees({1, 0}));                       // the wall on its left, visible
  CHECK(env.AgentSees({6, 6}) == env.RelativeCoords({6, 6}).has_value());
  CHECK_THROWS(std::logic_error, env.AgentSees({2, 2}));  // an empty cell
}

// A 3x3 room grid whose generation runs the helpers under test.
class RoomGridProbe final : public RoomGridEnv {
 public:
  static Config Options() { return CommonOptions({}, false); }
  RoomGridProbe(uint64_t seed, bool distractors)
      : RoomGridEnv(Options(), seed, {7, 3, 3}, 100), distractors_(distractors) {}
  std::vector<ObjectId> added_objects;
  size_t doors = 0;

 protected:
  void GenGrid() override {
    RoomGridEnv::GenGrid();
    if (distractors_) {
      AddObject(0, 0, Type::kKey, Color::kRed);
      AddDistractors(std::nullopt, std::nullopt, 12, true);
      added_objects = added();
    }
    PlaceAgentInRoom();
    ConnectAll();
    doors = added().size();
    mission_.Set("probe");
  }

 private:
  bool distractors_;
};

TEST(MiniGridRoomGrid, ConnectAllMakesEveryRoomReachableThroughDoors) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    RoomGridProbe env(seed, false);
    env.Reset();
    CHECK_GE(env.doors, 8u);  // a 3x3 grid of rooms needs 8 doors at least
    std::set<Pos, bool (*)(const Pos&, const Pos&)> door_cells(
        [](const Pos& a, const Pos& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    for (int y = 0; y < env.grid().height(); ++y) {
      for (int x = 0; x < env.grid().width(); ++x) {
        const ObjectId id = env.grid().Get(x, y);
        if (id != kNoObject && env.objects()[id].type == Type::kDoor) {
          CHECK(!env.objects()[id].is_locked);
          door_cells.insert({x, y});
        }
      }
    }
    CHECK_EQ(door_cells.size(), env.doors);
  }
}

TEST(MiniGridRoomGrid, DistractorsAreDistinctFromEachOtherAndTheRoomsObjects) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    RoomGridProbe env(seed, true);
    env.Reset();
    REQUIRE_EQ(env.added_objects.size(), 12u);
    std::set<std::pair<int, int>> kinds = {{int(Type::kKey), int(Color::kRed)}};
    for (ObjectId id : env.added_objects) {
      const WorldObject& object = env.objects()[id];
      CHECK(kinds.insert({int(object.type), int(object.color)}).second);
      CHECK_EQ(env.grid().Get(object.cur_pos), id);
    }
  }
}

}  // namespace
}  // namespace envfleet::minigrid
