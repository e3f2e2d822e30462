// MiniGrid-PutNear-*: a port of minigrid 3.2.0's PutNearEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/putnear.py).
// numObjs distinct objects, none next to another; the mission names one to move and one to
// put it near. Picking up any other object ends the episode; any drop while carrying ends it,
// rewarded when the object carried lies (by identity) on the cell in front, within one cell
// of the target's first position.
//
// Options: size 6, numObjs 2 (EnvPool's num_objs also); max_steps defaults to 5 * size;
// see_through_walls True. mission_id: EnvPool's (move colour * 3 + move kind) * 18 + target
// colour * 3 + target kind (key 0, ball 1, box 2).
#ifndef ENVFLEET_FAMILIES_MINIGRID_PUT_NEAR_H_
#define ENVFLEET_FAMILIES_MINIGRID_PUT_NEAR_H_

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "families/minigrid/go_to_object.h"
#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class PutNearEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{6}}, {"numObjs", int64_t{2}}, {"num_objs", int64_t{-1}}},
                         /*see_through_walls=*/true);
  }
  static Layout LayoutOf(const Config& config) {
    const int size = static_cast<int>(IntOption(config, "size", 3, kMaxGridSide));
    return {size, size, MaxSteps(config, 5 * int64_t{size})};
  }
  // Objects keep a cell between them: at most one per 2x2 block of the inside, and two to
  // pick a mover and a target from.
  static int64_t MaxObjects(const Layout& layout) {
    const int64_t blocks = int64_t{(layout.width - 1) / 2} * ((layout.height - 1) / 2);
    return std::min<int64_t>(18, blocks - 1);
  }
  static EnvSpec Spec(const Config& config) {
    const Layout layout = LayoutOf(config);
    if (DistinctObjectsOption(config, MaxObjects(layout)) < 2) {
      throw std::invalid_argument(
          "numObjs must be at least 2 (an object to move, one to "
          "put it near)");
    }
    return MiniGridSpec(config, layout);
  }

  PutNearEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)),
        num_objs_(DistinctObjectsOption(config, MaxObjects(LayoutOf(config)))) {
    objs_.reserve(num_objs_);
    obj_pos_.reserve(num_objs_);
  }

  void Step(const void* action_ptr) override {
    const int64_t action = *static_cast<const int64_t*>(action_ptr);
    const ObjectId pre_carrying = carrying_;
    StepAgent(action);
    const Pos front = FrontPos();
    if (action == kPickup && carrying_ != kNoObject) {
      const WorldObject& carried = objects_[carrying_];
      if (carried.type != move_.type || carried.color != move_.color) terminated_ = true;
    }
    if (action == kDrop && pre_carrying != kNoObject) {
      if (grid_.Get(front) == pre_carrying) {
        if (std::abs(front.x - target_pos_.x) <= 1 && std::abs(front.y - target_pos_.y) <= 1) {
          reward_ = SuccessReward();
        }
      }
      terminated_ = true;
    }
  }

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());  // minigrid's four horz_/vert_wall calls
    objs_.clear();
    obj_pos_.clear();
    const auto near_obj = [this](Pos p1) {
      for (const Pos& p2 : obj_pos_) {
        if (std::abs(p1.x - p2.x) <= 1 && std::abs(p1.y - p2.y) <= 1) return true;
      }
      return false;
    };
    while (objs_.size() < num_objs_) {
      const KindAndColor obj{RandElem(kObjectKinds), RandElem(kColorNames)};
      if (std::find(objs_.begin(), objs_.end(), obj) != objs_.end()) continue;
      // No limit in minigrid; a million tries here, so that objects the free cells can no
      // longer keep apart end in a PlacementError rather than an endless loop.
      obj_pos_.push_back(
          PlaceObj(NewObject(obj.type, obj.color), {0, 0}, kWholeGrid, near_obj, 1000000));
      objs_.push_back(obj);
    }
    PlaceAgent();
    const size_t move = static_cast<size_t>(RandIndex(objs_.size()));
    move_ = objs_[move];
    size_t target;
    do {
      target = static_cast<size_t>(RandIndex(objs_.size()));
    } while (target == move);
    const KindAndColor t = objs_[target];
    target_pos_ = obj_pos_[target];
    mission_.Clear();
    mission_ << "put the " << move_.color << " " << move_.type << " near the " << t.color << " "
             << t.type;
    mission_id_ = (static_cast<int>(move_.color) * 3 + MissionObjectIndex(move_.type)) * 18 +
                  static_cast<int>(t.color) * 3 + MissionObjectIndex(t.type);
  }

 private:
  const size_t num_objs_;
  std::vector<KindAndColor> objs_;
  std::vector<Pos> obj_pos_;
  KindAndColor move_{Type::kKey, Color::kRed};
  Pos target_pos_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_PUT_NEAR_H_
