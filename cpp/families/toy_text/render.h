// What the toy-text renderers share. Gymnasium 1.4.0 draws each of these envs in
// render_mode="rgb_array" with pygame from PNG sprites in its own package
// (gymnasium/envs/toy_text/img/...): loads, pygame.transform.scale / flip, alpha blits,
// Surface.fill and pygame.draw.rect. Each env's Render repeats its reference's _render_gui /
// draw_table call for call with cpp/common/image (pygame's arithmetic), reading the same
// sprites from the installed gymnasium package: they are not copied into envfleet.
//
// Where the sprites are: the option `assets_dir` (default "", which makes Render fail with a
// clear message), which src/envfleet/families/toy_text.py sets for every id it registers to
// the installed gymnasium's envs/toy_text/img directory. Sprites are decoded once per process
// (image::LoadSprite) the first time an env renders; making or stepping an env reads nothing.
#ifndef ENVFLEET_FAMILIES_TOY_TEXT_RENDER_H_
#define ENVFLEET_FAMILIES_TOY_TEXT_RENDER_H_

#include <stdexcept>
#include <string>

#include "common/files.h"
#include "common/image/sprite_cache.h"
#include "common/image/surface.h"
#include "core/spec.h"

namespace envfleet::toy_text {

// The sprite at `name` (relative to the img directory), scaled/flipped as asked.
inline image::Sprite LoadAsset(const std::string& assets_dir, const std::string& name,
                               const image::SpriteOptions& options = {}) {
  if (assets_dir.empty()) {
    throw std::runtime_error(
        "assets_dir is empty: toy-text frames are drawn from the sprites of the installed "
        "gymnasium package; pass assets_dir=envfleet.families.toy_text.ASSETS_DIR (the ids "
        "envfleet registers set it)");
  }
  return image::LoadSprite(assets_dir + "/" + name, options);
}

// Every toy-text frame has one size (Gymnasium's window) and render_fps 4; no cameras.
inline RenderSpec PixelArtRender(int width, int height) {
  RenderSpec render;
  render.width = width;
  render.height = height;
  render.resizable = false;
  render.fps = 4;
  render.num_cameras = 0;
  return render;
}

inline void CheckFrameSize(const char* env, int width, int height, int expected_width,
                           int expected_height) {
  if (width != expected_width || height != expected_height) {
    throw std::runtime_error(std::string(env) + " frames are " + std::to_string(expected_width) +
                             "x" + std::to_string(expected_height) + ", not " +
                             std::to_string(width) + "x" + std::to_string(height));
  }
}

}  // namespace envfleet::toy_text

#endif  // ENVFLEET_FAMILIES_TOY_TEXT_RENDER_H_
