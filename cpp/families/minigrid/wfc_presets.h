// The six WFC presets minigrid 3.2.0 registers (WFC_PRESETS in
// https://github.com/Farama-Foundation/Minigrid/blob/v3.2.0/minigrid/envs/wfc/config.py): each
// a pattern image and the WFCConfig arguments it is solved with.
//
// The images are minigrid's PNGs, which its wheel and sdist do not ship (minigrid 3.2.0's
// WFCConfig.wfc_kwargs reads them from minigrid/envs/wfc/patterns/, a folder only its
// repository has:
// https://github.com/Farama-Foundation/Minigrid/tree/e726259e86d555c7055fb48bd5842cf37af78bfd/minigrid/envs/wfc/patterns,
// unchanged since the WFC envs were added). They are a few pixels each (3x3 to 17x17, 8-bit
// RGB), written here as rows of their pixels, one character per pixel:
//   '#' (0, 0, 0)   '.' (255, 255, 255)   ',' (254, 254, 254)
// Fabric.png has two near-white pixels (254, 254, 254): a colour of their own for the solver,
// whose tiles are hashes of the RGB values, though the level makes both whites empty cells.
// tests/families/minigrid/minigrid_reference.py holds the same images (to give the reference
// the files it lacks) with the SHA-256 of the PNG files they were read from.
//
// What every preset shares (WFCConfig's defaults, which none overrides): tile_size 1,
// rotations 8 (all eight symmetries of the image), loc_heuristic "entropy", choice_heuristic
// "weighted", backtracking False. input_periodic changes nothing in minigrid 3.2.0
// (unique_patterns_2d wraps the image either way), so it is not kept.
#ifndef ENVFLEET_FAMILIES_MINIGRID_WFC_PRESETS_H_
#define ENVFLEET_FAMILIES_MINIGRID_WFC_PRESETS_H_

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace envfleet::minigrid {

struct Rgb {
  uint8_t r, g, b;
};

// The colour of a pattern image's pixel character.
inline Rgb WfcPixelColor(char pixel) {
  switch (pixel) {
    case '#':
      return {0, 0, 0};
    case '.':
      return {255, 255, 255};
    case ',':
      return {254, 254, 254};
    default:
      throw std::logic_error(std::string("wfc_presets.h: unknown pixel '") + pixel + "'");
  }
}

struct WfcPreset {
  std::string_view name;                    // the key of WFC_PRESETS, wfc_config's value
  std::span<const std::string_view> image;  // the rows of the pattern image, top first
  int pattern_width;                        // pattern_width: the side of the overlapping patterns
  bool output_periodic;                     // output_periodic: the level wraps at its edges
};

namespace wfc_images {

// SimpleMaze.png
inline constexpr std::array<std::string_view, 4> kSimpleMaze = {
    "....",
    ".###",
    ".#.#",
    ".###",
};

// ScaledMaze.png
inline constexpr std::array<std::string_view, 8> kScaledMaze = {
    "........", "........", "..######", "..######", "..##..##", "..##..##", "..######", "..######",
};

// Fabric.png
inline constexpr std::array<std::string_view, 5> kFabric = {
    "..#..", "..,..", "#####", "..,..", "..#..",
};

// Blackdots.png
inline constexpr std::array<std::string_view, 3> kBlackdots = {
    "...",
    ".#.",
    "...",
};

// Angular.png
inline constexpr std::array<std::string_view, 11> kAngular = {
    "...........", ".....#####.", ".....#####.", ".....#####.", ".....#####.", ".#########.",
    ".#########.", ".#########.", ".#########.", ".#########.", "...........",
};

// Hogs.png
inline constexpr std::array<std::string_view, 17> kHogs = {
    ".................", ".......#....#....", "..#...###..###...", ".###...#....#....",
    "..#..............", ".........#.......", "....#...###...#..", "...###...#...###.",
    "....#.........#..", ".................", ".......#....#....", "..#...###..###...",
    ".###...#....#....", "..#..#...#....#..", "....###.###..###.", ".....#...#....#..",
    ".................",
};

}  // namespace wfc_images

// WFC_PRESETS, in config.py's order.
inline constexpr std::array<WfcPreset, 6> kWfcPresets = {{
    {"MazeSimple", wfc_images::kSimpleMaze, 2, false},
    {"DungeonMazeScaled", wfc_images::kScaledMaze, 2, true},
    {"RoomsFabric", wfc_images::kFabric, 3, false},
    {"ObstaclesBlackdots", wfc_images::kBlackdots, 2, false},
    {"ObstaclesAngular", wfc_images::kAngular, 3, true},
    {"ObstaclesHogs3", wfc_images::kHogs, 3, true},
}};

// The preset named `name` (its index in kWfcPresets), else std::invalid_argument naming the
// option it came from and listing the valid ones.
inline size_t WfcPresetIndex(std::string_view name, const std::string& option) {
  std::string valid;
  for (size_t i = 0; i < kWfcPresets.size(); ++i) {
    if (kWfcPresets[i].name == name) return i;
    valid += std::string(i == 0 ? "" : ", ") + "'" + std::string(kWfcPresets[i].name) + "'";
  }
  throw std::invalid_argument("Unknown " + option + " '" + std::string(name) +
                              "', expected one of [" + valid +
                              "] (minigrid's WFC_PRESETS; its inconsistent and slow presets are "
                              "not ported)");
}

}  // namespace envfleet::minigrid

#endif  // ENVFLEET_FAMILIES_MINIGRID_WFC_PRESETS_H_
