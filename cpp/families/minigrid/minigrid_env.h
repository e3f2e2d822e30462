// The base of every MiniGrid env: a port of minigrid 3.2.0's MiniGridEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/minigrid_env.py):
// reset, step, the random helpers and placement (_rand_int .. place_agent), the observation
// (gen_obs, through view.h), the reward and the env's own truncation, and the frames
// (get_frame, through render.h). Each env derives from it, generates its grid in GenGrid
// (minigrid's _gen_grid) and, where the reference overrides step, wraps StepAgent.
//
// Randomness: only from rng(), the env's twin of Gymnasium's np_random, drawn in the
// reference's order (each helper below says which NumPy call it is). minigrid's own
// MissionSpace draws from a generator of its own at construction only, never again: nothing
// to reproduce.
//
// Truncation: MiniGrid truncates inside step (step_count >= max_steps), where max_steps is an
// option (each env's default is its class's formula, 4 * size**2 for Empty); the env sets
// truncated_ and kTruncates, and reports the limit as its spec's time_limit, which the pool
// takes as max_episode_steps (cpp/core/env.h).
//
// Options every env has (CommonOptions): max_steps (-1: the class's default),
// see_through_walls (the class's own value; minigrid accepts it as a keyword only in classes
// that do not fix it, envfleet everywhere), agent_view_size, and for frames highlight,
// tile_size and agent_pov (MiniGridEnv.__init__'s); mission_bytes (EnvPool's, 96); and
// obs_wrapper / obs_tile_size: the observation's image as one of minigrid's wrappers gives
// it ("" none, "FullyObsWrapper", "RGBImgObsWrapper", "RGBImgPartialObsWrapper"), the other
// keys unchanged as those wrappers leave them.
#ifndef ENVFLEET_FAMILIES_MINIGRID_MINIGRID_ENV_H_
#define ENVFLEET_FAMILIES_MINIGRID_MINIGRID_ENV_H_

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/spec.h"
#include "families/minigrid/grid.h"
#include "families/minigrid/mission.h"
#include "families/minigrid/render.h"
#include "families/minigrid/view.h"
#include "families/minigrid/world_object.h"

namespace envfleet::minigrid {

// minigrid raises RecursionError when rejection sampling gives up (place_obj's max_tries,
// connect_all's max_itrs); BabyAI's levels catch it and generate again, and so may ports.
class PlacementError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How an env's image observation is made (obs_wrapper).
enum class ObsWrapper : uint8_t { kNone, kFullyObs, kRgbImg, kRgbImgPartial };

inline ObsWrapper ParseObsWrapper(const std::string& name) {
  if (name.empty()) return ObsWrapper::kNone;
  if (name == "FullyObsWrapper") return ObsWrapper::kFullyObs;
  if (name == "RGBImgObsWrapper") return ObsWrapper::kRgbImg;
  if (name == "RGBImgPartialObsWrapper") return ObsWrapper::kRgbImgPartial;
  throw std::invalid_argument(
      "obs_wrapper must be one of '' (none), 'FullyObsWrapper', "
      "'RGBImgObsWrapper', 'RGBImgPartialObsWrapper'; got '" +
      name + "'");
}

// The options every MiniGrid env has, added to an env's own (see the top of this file).
inline Config CommonOptions(Config own, bool see_through_walls) {
  own.Set("max_steps", int64_t{-1});
  own.Set("see_through_walls", see_through_walls);
  own.Set("agent_view_size", int64_t{7});
  own.Set("highlight", true);
  own.Set("tile_size", int64_t{render::kTilePixels});
  own.Set("agent_pov", false);
  own.Set("mission_bytes", int64_t{96});
  own.Set("obs_wrapper", std::string());
  own.Set("obs_tile_size", int64_t{8});
  return own;
}

// An int option within [low, high], else std::invalid_argument naming it.
inline int64_t IntOption(const Config& config, const std::string& name, int64_t low,
                         int64_t high = std::numeric_limits<int32_t>::max()) {
  const int64_t value = config.Get<int64_t>(name);
  if (value < low || value > high) {
    throw std::invalid_argument(name + " must be in [" + std::to_string(low) + ", " +
                                std::to_string(high) + "], got " + std::to_string(value));
  }
  return value;
}

// A position option (list[float]): [] or EnvPool's (-1, -1) is minigrid's None (nothing
// given); else two ints inside a width x height grid.
inline std::optional<Pos> PosOption(const Config& config, const std::string& name, int width,
                                    int height) {
  const auto& values = config.Get<std::vector<double>>(name);
  if (values.empty() || (values.size() == 2 && values[0] == -1 && values[1] == -1)) {
    return std::nullopt;
  }
  if (values.size() != 2 || values[0] != static_cast<int>(values[0]) ||
      values[1] != static_cast<int>(values[1]) || values[0] < 0 || values[0] >= width ||
      values[1] < 0 || values[1] >= height) {
    throw std::invalid_argument(name + " must be None or two ints (x, y) inside the " +
                                std::to_string(width) + "x" + std::to_string(height) + " grid");
  }
  return Pos{static_cast<int>(values[0]), static_cast<int>(values[1])};
}

// A direction option: 0 (right) .. 3 (up).
inline int DirOption(const Config& config, const std::string& name) {
  return static_cast<int>(IntOption(config, name, 0, 3));
}

// agent_start_pos / agent_start_dir (Empty, DistShift, DynamicObstacles): a fixed start, or
// with the position None a random one (place_agent), the direction then unread.
struct StartPose {
  std::optional<Pos> pos;
  int dir = 0;
};
inline StartPose StartPoseOption(const Config& config, int width, int height) {
  StartPose pose;
  pose.pos = PosOption(config, "agent_start_pos", width, height);
  if (pose.pos) pose.dir = DirOption(config, "agent_start_dir");
  return pose;
}

// An option minigrid names one way and EnvPool another (numObjs / num_objs, minNumRooms /
// min_num_rooms...), both int and -1 when not given: EnvPool's name wins when given, so that
// a caller's value beats the registration's, which uses minigrid's name.
// Returns the value and the name it was given under (for messages).
struct AliasedInt {
  int64_t value;
  std::string name;
};
inline AliasedInt AliasedIntOption(const Config& config, const std::string& minigrid_name,
                                   const std::string& envpool_name, int64_t low) {
  const std::string& name = config.Get<int64_t>(envpool_name) != -1 ? envpool_name : minigrid_name;
  if (config.Get<int64_t>(name) == -1) {
    throw std::invalid_argument("this env needs the option " + minigrid_name + " (or " +
                                envpool_name + ")");
  }
  return {IntOption(config, name, low), name};
}

// obstacle_type (Crossing, LavaGap): minigrid's "lava" or "wall" (any case), for its Lava and
// Wall classes; the error lists them as CrossingEnv's does.
inline Type ObstacleOption(const Config& config) {
  std::string name = config.Get<std::string>("obstacle_type");
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "lava") return Type::kLava;
  if (name == "wall") return Type::kWall;
  throw std::invalid_argument("Unknown obstacle_type '" + config.Get<std::string>("obstacle_type") +
                              "', expected one of ['lava', 'wall']");
}

// The largest grid side (minigrid's ids use at most 25) and frame side (pixels, as the other
// families' renderers) envfleet makes: past them an option is refused, naming it.
inline constexpr int kMaxGridSide = 1024;
inline constexpr int64_t kMaxFrameSide = 16384;

// What an env class tells the base: the world's size, its time limit and its spaces.
struct Layout {
  int width = 0;
  int height = 0;
  int64_t max_steps = 100;  // already resolved from the option and the class's default
  int num_actions = kNumActions;
  double reward_low = 0;  // the env's reward_range
  double reward_high = 1;
};

// max_steps: the option, or (-1) the class's default.
inline int64_t MaxSteps(const Config& config, int64_t class_default) {
  const int64_t max_steps = config.Get<int64_t>("max_steps");
  if (max_steps == -1) return class_default;
  if (max_steps < 1 || max_steps > std::numeric_limits<int32_t>::max()) {
    throw std::invalid_argument(
        "max_steps must be in [1, 2147483647] (or -1 for the env's "
        "default), got " +
        std::to_string(max_steps));
  }
  return max_steps;
}

// The spec of an env of `layout` with `config`'s common options: obs direction (int32,
// Discrete(4)), image, mission (uint8 bytes), info agent_pos (int32 [x, y]) and mission_id,
// as EnvPool 1.2.5 lays them out.
inline EnvSpec MiniGridSpec(const Config& config, const Layout& layout) {
  const int64_t view = IntOption(config, "agent_view_size", 3, 255);
  if (view % 2 == 0) {
    throw std::invalid_argument("agent_view_size must be odd, got " + std::to_string(view));
  }
  const int64_t tile_size = IntOption(config, "tile_size", 1, 1024);
  const int64_t obs_tile_size = IntOption(config, "obs_tile_size", 1, 1024);
  const int64_t mission_bytes = IntOption(config, "mission_bytes", 1, 1 << 20);
  if (layout.width < 3 || layout.height < 3) {
    throw std::invalid_argument("the grid must be at least 3x3, got " +
                                std::to_string(layout.width) + "x" + std::to_string(layout.height));
  }
  if (layout.width > kMaxGridSide || layout.height > kMaxGridSide) {
    throw std::invalid_argument("the grid must be at most " + std::to_string(kMaxGridSide) +
                                " cells a side, got " + std::to_string(layout.width) + "x" +
                                std::to_string(layout.height));
  }
  std::vector<int64_t> image;
  switch (ParseObsWrapper(config.Get<std::string>("obs_wrapper"))) {
    case ObsWrapper::kNone:
      image = {view, view, 3};
      break;
    case ObsWrapper::kFullyObs:
      image = {layout.width, layout.height, 3};
      break;
    case ObsWrapper::kRgbImg:
      image = {layout.height * obs_tile_size, layout.width * obs_tile_size, 3};
      break;
    case ObsWrapper::kRgbImgPartial:
      image = {view * obs_tile_size, view * obs_tile_size, 3};
      break;
  }
  for (const int64_t side : {image[0], image[1]}) {
    if (side > kMaxFrameSide) {
      throw std::invalid_argument("obs_tile_size " + std::to_string(obs_tile_size) +
                                  " makes the observation's image " + std::to_string(side) +
                                  " pixels a side, more than " + std::to_string(kMaxFrameSide));
    }
  }
  EnvSpec spec;
  spec.obs = {{"direction", DType::kInt32, {}, {0.0}, {3.0}, /*discrete=*/true},
              Box("image", DType::kUint8, image, {0.0}, {255.0}),
              Box("mission", DType::kUint8, {mission_bytes}, {0.0}, {255.0})};
  spec.info = {Box("agent_pos", DType::kInt32, {2}, {0.0},
                   {double(layout.width - 1), double(layout.height - 1)}),
               Box("mission_id", DType::kInt32, {}, {-1.0}, {1024.0})};
  spec.obs_layout = ObsLayout::kDict;
  spec.action = Discrete("action", layout.num_actions);
  spec.reward_low = layout.reward_low;
  spec.reward_high = layout.reward_high;
  const int64_t frame_cells_x = config.Get<bool>("agent_pov") ? view : layout.width;
  const int64_t frame_cells_y = config.Get<bool>("agent_pov") ? view : layout.height;
  if (std::max(frame_cells_x, frame_cells_y) * tile_size > kMaxFrameSide) {
    throw std::invalid_argument("tile_size " + std::to_string(tile_size) + " makes frames " +
                                std::to_string(std::max(frame_cells_x, frame_cells_y) * tile_size) +
                                " pixels a side, more than " + std::to_string(kMaxFrameSide));
  }
  spec.render.width = static_cast<int>(frame_cells_x * tile_size);
  spec.render.height = static_cast<int>(frame_cells_y * tile_size);
  spec.render.resizable = false;
  spec.render.fps = 10;  // MiniGridEnv.metadata["render_fps"]
  spec.render.num_cameras = 0;
  spec.time_limit = layout.max_steps;
  return spec;
}

class MiniGridEnv : public Env {
 public:
  static constexpr bool kTruncates = true;
  // Objects with an identity an episode makes, reserved up front (walls and the like take
  // none: world_object.h); a level that makes more grows the table once, in a Reset.
  static constexpr size_t kObjectReserve = 256;

  MiniGridEnv(const Config& config, uint64_t seed, const Layout& layout)
      : Env(seed),
        width_(layout.width),
        height_(layout.height),
        max_steps_(layout.max_steps),
        num_actions_(layout.num_actions),
        see_through_walls_(config.Get<bool>("see_through_walls")),
        agent_view_size_(static_cast<int>(config.Get<int64_t>("agent_view_size"))),
        highlight_(config.Get<bool>("highlight")),
        agent_pov_(config.Get<bool>("agent_pov")),
        obs_wrapper_(ParseObsWrapper(config.Get<std::string>("obs_wrapper"))),
        mission_bytes_(static_cast<size_t>(config.Get<int64_t>("mission_bytes"))),
        objects_(kObjectReserve),
        frame_tiles_(&render::TilesOf(static_cast<int>(config.Get<int64_t>("tile_size")))),
        obs_tiles_(&render::TilesOf(static_cast<int>(config.Get<int64_t>("obs_tile_size")))) {
    MiniGridSpec(config, layout);  // checks the common options
    grid_.Reserve(width_, height_);
    grid_.Reset(width_, height_);
    const size_t view_cells = static_cast<size_t>(agent_view_size_) * agent_view_size_;
    view_cells_.resize(view_cells);
    view_visible_.resize(view_cells);
    highlight_mask_.resize(static_cast<size_t>(width_) * height_);
  }

  // MiniGridEnv.reset: a new grid, nothing carried, the clock at 0.
  void Reset() override {
    agent_pos_ = {-1, -1};
    agent_dir_ = -1;
    objects_.Clear();
    grid_.Reset(width_, height_);
    mission_.Clear();
    mission_id_ = 0;
    GenGrid();
    if (!grid_.Contains(agent_pos_.x, agent_pos_.y) || agent_dir_ < 0 || agent_dir_ > 3) {
      throw std::logic_error("minigrid: _gen_grid left the agent unplaced");
    }
    const ObjectId start = grid_.Get(agent_pos_);
    if (start != kNoObject && !objects_[start].CanOverlap()) {
      throw std::logic_error("minigrid: the agent starts on an object it cannot overlap");
    }
    carrying_ = kNoObject;
    step_count_ = 0;
  }

  void Step(const void* action) override { StepAgent(*static_cast<const int64_t*>(action)); }

  // gen_obs (through the observation wrapper, if any) and EnvPool's info.
  void Write(const OutputSlot& out) const override {
    *out.Get<int32_t>(0) = agent_dir_;
    uint8_t* image = out.Get<uint8_t>(1);
    switch (obs_wrapper_) {
      case ObsWrapper::kNone:
        ComputeView(grid_, objects_, ViewOfAgent(), view_cells_.data(), view_visible_.data());
        EncodeView(objects_, view_cells_.data(), view_visible_.data(), agent_view_size_, image);
        break;
      case ObsWrapper::kFullyObs:
        EncodeFullGrid(grid_, objects_, agent_pos_, agent_dir_, image);
        break;
      case ObsWrapper::kRgbImg:
        RenderFull(*obs_tiles_, highlight_, image);
        break;
      case ObsWrapper::kRgbImgPartial:
        RenderPov(*obs_tiles_, image);
        break;
    }
    mission_.Write(out.Get<uint8_t>(2), mission_bytes_);
    int32_t* pos = out.Get<int32_t>(3);
    pos[0] = agent_pos_.x;
    pos[1] = agent_pos_.y;
    *out.Get<int32_t>(4) = mission_id_;
  }

  // render() in rgb_array mode: get_frame(highlight, tile_size, agent_pov).
  void Render(int camera_id, int width, int height, uint8_t* rgb) override {
    (void)camera_id, (void)width, (void)height;  // the pool asks for the spec's frame only
    if (agent_pov_) {
      RenderPov(*frame_tiles_, rgb);
    } else {
      RenderFull(*frame_tiles_, highlight_, rgb);
    }
  }

  // get_view_coords / relative_coords(x, y): where world cell `pos` lies in the agent's view
  // (the observation's [i][j]), or nothing outside it. in_view(x, y) is whether it has one.
  std::optional<Pos> RelativeCoords(Pos pos) const {
    const Pos d = DirVec();
    const Pos r = {-d.y, d.x};  // right_vec
    const int size = agent_view_size_, half = agent_view_size_ / 2;
    const int tx = agent_pos_.x + d.x * (size - 1) - r.x * half;
    const int ty = agent_pos_.y + d.y * (size - 1) - r.y * half;
    const int lx = pos.x - tx, ly = pos.y - ty;
    const Pos view = {r.x * lx + r.y * ly, -(d.x * lx + d.y * ly)};
    if (view.x < 0 || view.y < 0 || view.x >= size || view.y >= size) return std::nullopt;
    return view;
  }

  // agent_sees(x, y): the world cell `pos` (which must hold an object) is in view, and the
  // observation, decoded, shows there an object of its type. So an unseen cell is not seen,
  // and the agent's own cell shows what it carries (Grid.decode of gen_obs's image).
  bool AgentSees(Pos pos) const {
    const std::optional<Pos> view = RelativeCoords(pos);
    if (!view) return false;
    const ObjectId world = grid_.Get(pos);
    if (world == kNoObject) throw std::logic_error("agent_sees: an empty cell");
    ComputeView(grid_, objects_, ViewOfAgent(), view_cells_.data(), view_visible_.data());
    const size_t k = static_cast<size_t>(view->y) * agent_view_size_ + view->x;
    const ObjectId seen = view_cells_[k];
    return view_visible_[k] && seen != kNoObject && objects_[seen].type == objects_[world].type;
  }

  // The state, for tests and ports built on this class.
  const Grid& grid() const { return grid_; }
  const ObjectTable& objects() const { return objects_; }
  Pos agent_pos() const { return agent_pos_; }
  int agent_dir() const { return agent_dir_; }
  ObjectId carrying() const { return carrying_; }
  int64_t step_count() const { return step_count_; }
  int64_t max_steps() const { return max_steps_; }
  std::string_view mission() const { return mission_.view(); }

 protected:
  // _gen_grid: build grid_ (already an empty width_ x height_ grid), place the agent
  // (agent_pos_, agent_dir_) and set mission_ (and mission_id_).
  virtual void GenGrid() = 0;

  // ---- random helpers: each is the MiniGridEnv method it names, drawing as it draws -------

  // _rand_int(low, high): np_random.integers(low, high).
  int RandInt(int64_t low, int64_t high) { return static_cast<int>(rng().Integers(low, high)); }
  // _rand_bool(): np_random.integers(0, 2) == 0.
  bool RandBool() { return rng().Integers(0, 2) == 0; }
  // _rand_elem(sequence): the index it draws, integers(0, len(sequence)).
  int RandIndex(size_t size) { return RandInt(0, static_cast<int64_t>(size)); }
  template <typename T, size_t N>
  T RandElem(const std::array<T, N>& items) {
    return items[static_cast<size_t>(RandIndex(N))];
  }
  // _rand_color(): _rand_elem(COLOR_NAMES).
  Color RandColor() { return RandElem(kColorNames); }
  // _rand_pos(x_low, x_high, y_low, y_high): x first.
  Pos RandPos(int x_low, int x_high, int y_low, int y_high) {
    const int x = RandInt(x_low, x_high);
    return {x, RandInt(y_low, y_high)};
  }
  // Removes items[k] of the first `size`, keeping the order (list.remove of that element;
  // list.pop(k)). Returns it.
  template <typename T, size_t N>
  static T Pop(std::array<T, N>& items, size_t& size, size_t k) {
    const T item = items[k];
    for (size_t i = k + 1; i < size; ++i) items[i - 1] = items[i];
    --size;
    return item;
  }
  // _rand_subset(items, n): _rand_elem then list.remove, n times; the first n of the result.
  template <typename T, size_t N>
  std::array<T, N> RandSubset(std::array<T, N> items, size_t n) {
    std::array<T, N> out{};
    size_t left = N;
    for (size_t i = 0; i < n; ++i) out[i] = Pop(items, left, static_cast<size_t>(RandIndex(left)));
    return out;
  }

  // ---- placement ----------------------------------------------------------------------------

  static constexpr Pos kWholeGrid = {-1, -1};  // place_obj's size=None
  static constexpr int64_t kNoTryLimit = -1;   // max_tries=math.inf
  static constexpr auto kAcceptAll = [](Pos) { return false; };

  // place_obj(obj, top, size, reject_fn, max_tries): draws (x, y) in the rectangle until the
  // cell is empty, is not the agent's and reject(pos) is false; puts `obj` there (nothing for
  // kNoObject) and sets its init_pos and cur_pos. Throws PlacementError after max_tries
  // failures, as minigrid raises RecursionError.
  template <typename Reject = decltype(kAcceptAll)>
  Pos PlaceObj(ObjectId obj, Pos top = {0, 0}, Pos size = kWholeGrid,
               const Reject& reject = kAcceptAll, int64_t max_tries = kNoTryLimit) {
    top = {std::max(top.x, 0), std::max(top.y, 0)};
    if (size == kWholeGrid) size = {grid_.width(), grid_.height()};
    int64_t tries = 0;
    Pos pos;
    while (true) {
      if (max_tries >= 0 && tries > max_tries) {
        throw PlacementError("rejection sampling failed in place_obj");
      }
      ++tries;
      pos.x = RandInt(top.x, std::min(top.x + size.x, grid_.width()));
      pos.y = RandInt(top.y, std::min(top.y + size.y, grid_.height()));
      if (grid_.Get(pos) != kNoObject) continue;
      if (pos == agent_pos_) continue;
      if (reject(pos)) continue;
      break;
    }
    grid_.Set(pos, obj);
    if (obj != kNoObject) {
      objects_[obj].init_pos = pos;
      objects_[obj].cur_pos = pos;
    }
    return pos;
  }

  // put_obj(obj, x, y)
  void PutObj(ObjectId obj, int x, int y) {
    grid_.Set(x, y, obj);
    objects_[obj].init_pos = {x, y};
    objects_[obj].cur_pos = {x, y};
  }

  // place_agent(top, size, rand_dir, max_tries)
  Pos PlaceAgent(Pos top = {0, 0}, Pos size = kWholeGrid, bool rand_dir = true,
                 int64_t max_tries = kNoTryLimit) {
    agent_pos_ = {-1, -1};
    const Pos pos = PlaceObj(kNoObject, top, size, kAcceptAll, max_tries);
    agent_pos_ = pos;
    if (rand_dir) agent_dir_ = RandInt(0, 4);
    return pos;
  }

  // New objects (with an identity) and the stateless ones (world_object.h).
  ObjectId NewObject(Type type, Color color) { return objects_.Add(type, color); }
  ObjectId NewDoor(Color color, bool is_locked = false) {
    return objects_.AddDoor(color, /*is_open=*/false, is_locked);
  }
  ObjectId Wall(Color color = Color::kGrey) { return objects_.Static(Type::kWall, color); }
  ObjectId Goal() { return objects_.Static(Type::kGoal, Color::kGreen); }
  ObjectId Lava() { return objects_.Static(Type::kLava, Color::kRed); }

  // ---- the agent ----------------------------------------------------------------------------

  Pos DirVec() const { return kDirToVec[static_cast<size_t>(agent_dir_)]; }
  Pos FrontPos() const { return {agent_pos_.x + DirVec().x, agent_pos_.y + DirVec().y}; }

  // _reward(): 1 - 0.9 * (step_count / max_steps).
  double SuccessReward() const {
    return 1 - 0.9 * (static_cast<double>(step_count_) / static_cast<double>(max_steps_));
  }

  // MiniGridEnv.step(action), less the observation: sets reward_, terminated_, truncated_.
  void StepAgent(int64_t action) {
    ++step_count_;
    reward_ = 0;
    terminated_ = false;
    const Pos fwd = FrontPos();
    const ObjectId fwd_cell = grid_.Get(fwd);
    switch (action) {
      case kLeft:
        agent_dir_ = agent_dir_ == 0 ? 3 : agent_dir_ - 1;
        break;
      case kRight:
        agent_dir_ = (agent_dir_ + 1) % 4;
        break;
      case kForward:
        if (fwd_cell == kNoObject || objects_[fwd_cell].CanOverlap()) agent_pos_ = fwd;
        if (fwd_cell != kNoObject && objects_[fwd_cell].type == Type::kGoal) {
          terminated_ = true;
          reward_ = SuccessReward();
        }
        if (fwd_cell != kNoObject && objects_[fwd_cell].type == Type::kLava) terminated_ = true;
        break;
      case kPickup:
        if (fwd_cell != kNoObject && objects_[fwd_cell].CanPickup() && carrying_ == kNoObject) {
          carrying_ = fwd_cell;
          objects_[carrying_].cur_pos = {-1, -1};
          grid_.Set(fwd, kNoObject);
        }
        break;
      case kDrop:
        if (fwd_cell == kNoObject && carrying_ != kNoObject) {
          grid_.Set(fwd, carrying_);
          objects_[carrying_].cur_pos = fwd;
          carrying_ = kNoObject;
        }
        break;
      case kToggle:
        if (fwd_cell != kNoObject) Toggle(fwd_cell, fwd);
        break;
      case kDone:
        break;
      default:
        throw std::invalid_argument("minigrid: unknown action " + std::to_string(action));
    }
    truncated_ = step_count_ >= max_steps_;
  }

  // WorldObj.toggle(env, pos) of the object at `pos`: a locked door opens for the key of its
  // colour, any other door opens or closes, a box is replaced by its contents.
  void Toggle(ObjectId id, Pos pos) {
    WorldObject& object = objects_[id];
    if (object.type == Type::kDoor) {
      if (object.is_locked) {
        if (carrying_ != kNoObject && objects_[carrying_].type == Type::kKey &&
            objects_[carrying_].color == object.color) {
          object.is_locked = false;
          object.is_open = true;
        }
        return;
      }
      object.is_open = !object.is_open;
    } else if (object.type == Type::kBox) {
      grid_.Set(pos, object.contains);
    }
  }

  // ---- what the agent sees ------------------------------------------------------------------

  AgentView ViewOfAgent() const {
    return {agent_pos_, agent_dir_, agent_view_size_, see_through_walls_, carrying_};
  }

  // get_full_render(highlight, tile_size): the world, the agent's triangle, and the cells it
  // sees highlighted.
  void RenderFull(const render::TileSet& tiles, bool highlight, uint8_t* rgb) const {
    std::fill(highlight_mask_.begin(), highlight_mask_.end(), 0);
    if (highlight) {
      ComputeView(grid_, objects_, ViewOfAgent(), view_cells_.data(), view_visible_.data());
      const int n = agent_view_size_;
      const Pos f = DirVec();
      const Pos r = {-f.y, f.x};  // right_vec
      const Pos top_left = {agent_pos_.x + f.x * (n - 1) - r.x * (n / 2),
                            agent_pos_.y + f.y * (n - 1) - r.y * (n / 2)};
      for (int vis_j = 0; vis_j < n; ++vis_j) {
        for (int vis_i = 0; vis_i < n; ++vis_i) {
          if (!view_visible_[static_cast<size_t>(vis_j) * n + vis_i]) continue;
          const int abs_i = top_left.x - f.x * vis_j + r.x * vis_i;
          const int abs_j = top_left.y - f.y * vis_j + r.y * vis_i;
          if (abs_i < 0 || abs_i >= width_ || abs_j < 0 || abs_j >= height_) continue;
          highlight_mask_[static_cast<size_t>(abs_j) * width_ + abs_i] = 1;
        }
      }
    }
    for (int j = 0; j < height_; ++j) {
      for (int i = 0; i < width_; ++i) {
        const bool agent_here = agent_pos_ == Pos{i, j};
        const uint8_t* tile =
            tiles.Get(render::TileObjectOf(objects_, grid_.Get(i, j)), agent_here ? agent_dir_ : -1,
                      highlight_mask_[static_cast<size_t>(j) * width_ + i] != 0);
        render::PutTile(tile, tiles.tile_size(), i, j, width_, rgb);
      }
    }
  }

  // get_pov_render(tile_size): the agent's view as it sees it, facing up.
  void RenderPov(const render::TileSet& tiles, uint8_t* rgb) const {
    ComputeView(grid_, objects_, ViewOfAgent(), view_cells_.data(), view_visible_.data());
    const int n = agent_view_size_;
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        const size_t k = static_cast<size_t>(j) * n + i;
        const bool agent_here = i == n / 2 && j == n - 1;
        const uint8_t* tile = tiles.Get(render::TileObjectOf(objects_, view_cells_[k]),
                                        agent_here ? 3 : -1, view_visible_[k] != 0);
        render::PutTile(tile, tiles.tile_size(), i, j, n, rgb);
      }
    }
  }

  const int width_;
  const int height_;
  int64_t max_steps_;  // BabyAI's levels set theirs per episode, in GenGrid
  const int num_actions_;
  bool see_through_walls_;
  const int agent_view_size_;
  const bool highlight_;
  const bool agent_pov_;
  const ObsWrapper obs_wrapper_;
  const size_t mission_bytes_;

  Grid grid_;
  ObjectTable objects_;
  Pos agent_pos_ = {-1, -1};
  int agent_dir_ = -1;
  ObjectId carrying_ = kNoObject;
  int64_t step_count_ = 0;
  MissionText mission_;
  int32_t mission_id_ = 0;

 private:
  const render::TileSet* frame_tiles_;
  const render::TileSet* obs_tiles_;
  // Scratch of Write and Render (one env is never written and rendered at once).
  mutable std::vector<ObjectId> view_cells_;
  mutable std::vector<uint8_t> view_visible_;
  mutable std::vector<uint8_t> highlight_mask_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_MINIGRID_ENV_H_
