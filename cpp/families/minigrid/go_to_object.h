// MiniGrid-GoToObject-*: a port of minigrid 3.2.0's GoToObjectEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/gotoobject.py).
// numObjs distinct (kind, colour) keys, balls and boxes; the agent must stand next to the one
// the mission names, where it was placed (target_pos is never updated: an object picked up
// and dropped elsewhere still counts at its first cell), and take `done`. Toggling ends the
// episode; picking up does not.
//
// Options: size 6, numObjs 2 (EnvPool's num_objs also); max_steps defaults to 5 * size**2;
// see_through_walls True. mission_id: EnvPool's colour * 3 + kind (key 0, ball 1, box 2).
#ifndef ENVFLEET_FAMILIES_MINIGRID_GO_TO_OBJECT_H_
#define ENVFLEET_FAMILIES_MINIGRID_GO_TO_OBJECT_H_

#include <algorithm>
#include <array>
#include <vector>

#include "families/minigrid/go_to_door.h"
#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

// The object kinds of GoToObject, PutNear and Playground (["key", "ball", "box"]).
inline constexpr std::array<Type, 3> kObjectKinds = {Type::kKey, Type::kBall, Type::kBox};

// (kind, colour) of an object, as the envs that keep them in lists compare them.
struct KindAndColor {
  Type type;
  Color color;
  friend bool operator==(const KindAndColor&, const KindAndColor&) = default;
};

// numObjs / num_objs (GoToObject, PutNear): at most the 18 distinct (kind, colour) pairs the
// envs draw until they have as many, else they would draw forever; at least one, the target
// being drawn from them (minigrid's _rand_elem of an empty list raises).
inline size_t DistinctObjectsOption(const Config& config, int64_t max) {
  const auto [n, name] = AliasedIntOption(config, "numObjs", "num_objs", 1);
  if (n > max) {
    throw std::invalid_argument(name + " must be at most " + std::to_string(max) +
                                " here (distinct objects, each on its own cell), got " +
                                std::to_string(n));
  }
  return static_cast<size_t>(n);
}

class GoToObjectEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{6}}, {"numObjs", int64_t{2}}, {"num_objs", int64_t{-1}}},
                         /*see_through_walls=*/true);
  }
  static Layout LayoutOf(const Config& config) {
    const int size = static_cast<int>(IntOption(config, "size", 3, kMaxGridSide));
    return {size, size, MaxSteps(config, 5 * int64_t{size} * size)};
  }
  static int64_t MaxObjects(const Layout& layout) {
    return std::min<int64_t>(18, int64_t{layout.width - 2} * (layout.height - 2) - 1);
  }
  static EnvSpec Spec(const Config& config) {
    const Layout layout = LayoutOf(config);
    DistinctObjectsOption(config, MaxObjects(layout));
    return MiniGridSpec(config, layout);
  }

  GoToObjectEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)),
        num_objs_(DistinctObjectsOption(config, MaxObjects(LayoutOf(config)))) {
    objs_.reserve(num_objs_);
    obj_pos_.reserve(num_objs_);
  }

  void Step(const void* action_ptr) override {
    const int64_t action = *static_cast<const int64_t*>(action_ptr);
    StepAgent(action);
    if (action == kToggle) terminated_ = true;
    if (action == kDone) {
      if (GoToDoorEnv::NextTo(agent_pos_, target_pos_)) reward_ = SuccessReward();
      terminated_ = true;
    }
  }

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());
    objs_.clear();
    obj_pos_.clear();
    while (objs_.size() < num_objs_) {
      const KindAndColor obj{RandElem(kObjectKinds), RandElem(kColorNames)};
      if (std::find(objs_.begin(), objs_.end(), obj) != objs_.end()) continue;
      obj_pos_.push_back(PlaceObj(NewObject(obj.type, obj.color)));
      objs_.push_back(obj);
    }
    PlaceAgent();
    const size_t target = static_cast<size_t>(RandIndex(objs_.size()));
    target_pos_ = obj_pos_[target];
    const KindAndColor& t = objs_[target];
    mission_.Clear();
    mission_ << "go to the " << t.color << " " << t.type;
    mission_id_ = static_cast<int>(t.color) * 3 + MissionObjectIndex(t.type);
  }

 private:
  const size_t num_objs_;
  std::vector<KindAndColor> objs_;
  std::vector<Pos> obj_pos_;
  Pos target_pos_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_GO_TO_OBJECT_H_
