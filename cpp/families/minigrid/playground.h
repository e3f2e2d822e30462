// MiniGrid-Playground-v0: a port of minigrid 3.2.0's PlaygroundEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/playground.py).
// A 19x19 grid of 3x3 rooms joined by closed doors of random colours, with 12 random keys,
// balls and boxes; no mission (the empty string) and no goal.
//
// Options: max_steps 100 (PlaygroundEnv's fixed default). mission_id 0.
#ifndef ENVFLEET_FAMILIES_MINIGRID_PLAYGROUND_H_
#define ENVFLEET_FAMILIES_MINIGRID_PLAYGROUND_H_

#include "families/minigrid/go_to_object.h"
#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class PlaygroundEnv final : public MiniGridEnv {
 public:
  static constexpr int kSize = 19;

  static Config DefaultConfig() { return CommonOptions({}, /*see_through_walls=*/false); }
  static Layout LayoutOf(const Config& config) { return {kSize, kSize, MaxSteps(config, 100)}; }
  static EnvSpec Spec(const Config& config) { return MiniGridSpec(config, LayoutOf(config)); }

  PlaygroundEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)) {}

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());  // minigrid's four horz_/vert_wall calls
    const int room_w = width_ / 3, room_h = height_ / 3;
    for (int j = 0; j < 3; ++j) {
      for (int i = 0; i < 3; ++i) {
        const int x_left = i * room_w, y_top = j * room_h;
        const int x_right = x_left + room_w, y_bottom = y_top + room_h;
        if (i + 1 < 3) {
          grid_.VertWall(x_right, y_top, room_h, Wall());
          const Pos pos = {x_right, RandInt(y_top + 1, y_bottom - 1)};
          grid_.Set(pos, NewDoor(RandColor()));
        }
        if (j + 1 < 3) {
          grid_.HorzWall(x_left, y_bottom, room_w, Wall());
          const Pos pos = {RandInt(x_left + 1, x_right - 1), y_bottom};
          grid_.Set(pos, NewDoor(RandColor()));
        }
      }
    }
    PlaceAgent();
    for (int k = 0; k < 12; ++k) {
      const Type type = RandElem(kObjectKinds);
      PlaceObj(NewObject(type, RandColor()));
    }
    mission_.Clear();
  }
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_PLAYGROUND_H_
