// MiniGrid-Fetch-*: a port of minigrid 3.2.0's FetchEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/fetch.py).
// Keys and balls of random colours lie in the room; the mission names one kind and colour.
// Picking up any object ends the episode, rewarded if it is of the kind and colour named.
//
// Options: size 8, numObjs 3 (EnvPool's num_objs also); max_steps defaults to 5 * size**2;
// see_through_walls True. mission_id: EnvPool's syntax * 12 + colour * 2 + (ball ? 1 : 0)
// (COLOR_TO_IDX order).
#ifndef ENVFLEET_FAMILIES_MINIGRID_FETCH_H_
#define ENVFLEET_FAMILIES_MINIGRID_FETCH_H_

#include <array>
#include <string_view>
#include <vector>

#include "families/minigrid/minigrid_env.h"

namespace envfleet::minigrid {

class FetchEnv final : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return CommonOptions({{"size", int64_t{8}}, {"numObjs", int64_t{3}}, {"num_objs", int64_t{-1}}},
                         /*see_through_walls=*/true);
  }
  static Layout LayoutOf(const Config& config) {
    const int size = static_cast<int>(IntOption(config, "size", 3, kMaxGridSide));
    return {size, size, MaxSteps(config, 5 * int64_t{size} * size)};
  }
  static EnvSpec Spec(const Config& config) {
    NumObjs(config, LayoutOf(config));
    return MiniGridSpec(config, LayoutOf(config));
  }

  FetchEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)), num_objs_(NumObjs(config, LayoutOf(config))) {
    objs_.reserve(num_objs_);
  }

  void Step(const void* action) override {
    StepAgent(*static_cast<const int64_t*>(action));
    if (carrying_ != kNoObject) {
      const WorldObject& carried = objects_[carrying_];
      if (carried.color == target_color_ && carried.type == target_type_) {
        reward_ = SuccessReward();
      } else {
        reward_ = 0;
      }
      terminated_ = true;
    }
  }

 protected:
  void GenGrid() override {
    grid_.WallRect(0, 0, width_, height_, Wall());  // minigrid's four horz_/vert_wall calls
    objs_.clear();
    constexpr std::array<Type, 2> kTypes = {Type::kKey, Type::kBall};  // self.obj_types
    while (objs_.size() < num_objs_) {
      const Type type = RandElem(kTypes);
      const Color color = RandElem(kColorNames);
      const ObjectId obj = NewObject(type, color);
      PlaceObj(obj);
      objs_.push_back(obj);
    }
    PlaceAgent();
    const WorldObject& target = objects_[objs_[static_cast<size_t>(RandIndex(objs_.size()))]];
    target_type_ = target.type;
    target_color_ = target.color;
    constexpr std::array<std::string_view, 5> kSyntax = {"get a", "go get a", "fetch a",
                                                         "go fetch a", "you must fetch a"};
    const int syntax = RandInt(0, 5);
    mission_.Clear();
    mission_ << kSyntax[static_cast<size_t>(syntax)] << " " << target_color_ << " " << target_type_;
    mission_id_ =
        syntax * 12 + static_cast<int>(target_color_) * 2 + (target_type_ == Type::kBall ? 1 : 0);
  }

 private:
  static size_t NumObjs(const Config& config, const Layout& layout) {
    // At least one: the target is drawn from them (_rand_elem of an empty list raises).
    const auto [n, name] = AliasedIntOption(config, "numObjs", "num_objs", 1);
    // Objects go on empty cells, one each, with one cell left for the agent (minigrid would
    // draw forever).
    if (n > int64_t{layout.width - 2} * (layout.height - 2) - 1) {
      throw std::invalid_argument(name + " (" + std::to_string(n) + ") leaves no room in a " +
                                  std::to_string(layout.width) + "x" +
                                  std::to_string(layout.height) + " grid");
    }
    return static_cast<size_t>(n);
  }

  const size_t num_objs_;
  std::vector<ObjectId> objs_;
  Type target_type_ = Type::kKey;
  Color target_color_ = Color::kRed;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_FETCH_H_
