// MiniGrid-WFC-*: a port of minigrid 3.2.0's WFCEnv
// (https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/wfc/wfcenv.py).
// Every reset generates a level with Wave Function Collapse: the preset's pattern image
// (wfc_presets.h) is cut into overlapping patterns (wfc_patterns.h), a (size - 2)^2 image is
// solved from them (wfc_solver.h, up to 1000 attempts), its black pixels become walls, the
// largest connected navigable area is kept (ensure_connected) and the start and the goal are
// drawn among its cells (wfc_level.h); a wall border pads it to size x size, and the agent
// faces a random direction. Reaching the goal gives 1 - 0.9 * step_count / max_steps.
//
// Draws, in minigrid's order: the solver's (preferences, then one per observation), the
// permutation of the level's nodes, then _rand_int(0, 4) for the direction.
//
// The level is decoded as Grid.decode decodes minigrid's array: the array's first axis, the
// image's rows, is x. So image cell (row, col) is grid cell (row + 1, col + 1), and the levels
// are the transposes of the images minigrid's solver returns, as in minigrid.
//
// Options: wfc_config "MazeSimple" (minigrid's name: a preset of WFC_PRESETS, by name) or
// EnvPool's wfc_preset (which wins when given), size 25 (at least 3), ensure_connected True;
// max_steps defaults to size * 20; see_through_walls False. mission_id -1 (EnvPool's).
// minigrid raises RuntimeError when the attempts run out and IndexError when the level has no
// two connected navigable cells; here both are std::runtime_error (envfleet.EnvError).
#ifndef ENVFLEET_FAMILIES_MINIGRID_WFC_H_
#define ENVFLEET_FAMILIES_MINIGRID_WFC_H_

#include <stdexcept>
#include <string>

#include "families/minigrid/minigrid_env.h"
#include "families/minigrid/wfc_level.h"
#include "families/minigrid/wfc_patterns.h"
#include "families/minigrid/wfc_presets.h"
#include "families/minigrid/wfc_solver.h"

namespace envfleet::minigrid {

class WfcEnv final : public MiniGridEnv {
 public:
  static constexpr int kPadding = 1;         // WFCEnv.padding
  static constexpr int kMaxAttempts = 1000;  // WFCEnv.max_attempts

  static Config DefaultConfig() {
    return CommonOptions({{"wfc_config", std::string("MazeSimple")},
                          {"wfc_preset", std::string()},
                          {"size", int64_t{25}},
                          {"ensure_connected", true}},
                         /*see_through_walls=*/false);
  }
  static Layout LayoutOf(const Config& config) {
    const int size = static_cast<int>(IntOption(config, "size", 3, kMaxGridSide));
    return {size, size, MaxSteps(config, int64_t{size} * 20)};
  }
  // The preset chosen: EnvPool's wfc_preset when given, else minigrid's wfc_config.
  static size_t PresetOption(const Config& config) {
    const std::string& envpool_name = config.Get<std::string>("wfc_preset");
    if (!envpool_name.empty()) return WfcPresetIndex(envpool_name, "wfc_preset");
    return WfcPresetIndex(config.Get<std::string>("wfc_config"), "wfc_config");
  }
  static EnvSpec Spec(const Config& config) {
    PresetOption(config);
    return MiniGridSpec(config, LayoutOf(config));
  }

  WfcEnv(const Config& config, uint64_t seed)
      : MiniGridEnv(config, seed, LayoutOf(config)),
        preset_(PresetOption(config)),
        ensure_connected_(config.Get<bool>("ensure_connected")),
        solver_(PatternCatalogOf(preset_), width_ - 2 * kPadding, height_ - 2 * kPadding,
                kWfcPresets[preset_].output_periodic),
        level_(width_ - 2 * kPadding, height_ - 2 * kPadding) {}

 protected:
  void GenGrid() override {
    const int rows = width_ - 2 * kPadding, cols = height_ - 2 * kPadding;
    if (!solver_.Solve(rng(), kMaxAttempts)) {
      throw std::runtime_error("Could not generate a valid pattern within " +
                               std::to_string(kMaxAttempts) + " attempts");
    }
    const WfcPatternCatalog& catalog = PatternCatalogOf(preset_);
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c)
        level_.SetNavigable(r, c, !catalog.is_wall[solver_.PatternAt(r, c)]);
    }
    level_.Pick(ensure_connected_, rng());
    grid_.WallRect(0, 0, width_, height_, Wall());
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        if (!level_.Kept(r, c)) grid_.Set(r + kPadding, c + kPadding, Wall());
      }
    }
    grid_.Set(level_.goal() / cols + kPadding, level_.goal() % cols + kPadding, Goal());
    agent_dir_ = RandInt(0, 4);
    agent_pos_ = {level_.start() / cols + kPadding, level_.start() % cols + kPadding};
    mission_.Set("traverse the maze to get to the goal");
    mission_id_ = -1;
  }

 private:
  const size_t preset_;
  const bool ensure_connected_;
  WfcSolver solver_;
  WfcLevelGraph level_;
};

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_WFC_H_
