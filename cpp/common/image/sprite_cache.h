// Sprites read once per process: LoadSprite(path, options) decodes the PNG at `path` the first
// time any env of the module asks for it (optionally scaled and flipped as pygame does it) and
// hands every later caller the same immutable image. Thread-safe: envs render on the pool's
// worker threads, several at once.
#ifndef ENVFLEET_COMMON_IMAGE_SPRITE_CACHE_H_
#define ENVFLEET_COMMON_IMAGE_SPRITE_CACHE_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "common/image/png.h"
#include "common/image/surface.h"

namespace envfleet::image {

struct SpriteOptions {
  int width = -1;  // pygame.transform.scale to (width, height) first; -1: the file's size
  int height = -1;
  bool flip_x = false;  // then pygame.transform.flip
  bool flip_y = false;
};

using Sprite = std::shared_ptr<const Image>;

namespace sprite_internal {

using Key = std::tuple<std::string, int, int, bool, bool>;

struct Cache {
  std::mutex mutex;
  std::map<Key, Sprite> sprites;
};

inline Cache& GetCache() {
  static Cache cache;
  return cache;
}

// With the cache's mutex held.
inline Sprite Lookup(Cache& cache, const Key& key) {
  auto it = cache.sprites.find(key);
  if (it != cache.sprites.end()) return it->second;
  const auto& [path, width, height, flip_x, flip_y] = key;
  Sprite sprite;
  if (width < 0 && !flip_x && !flip_y) {
    sprite = std::make_shared<const Image>(ReadPng(path));
  } else {  // from the file's own image, itself cached
    const Sprite original = Lookup(cache, Key{path, -1, -1, false, false});
    Image image = width >= 0 ? Scale(*original, width, height) : *original;
    if (flip_x || flip_y) image = Flip(image, flip_x, flip_y);
    sprite = std::make_shared<const Image>(std::move(image));
  }
  cache.sprites.emplace(key, sprite);
  return sprite;
}

}  // namespace sprite_internal

// Throws std::runtime_error naming the file if it cannot be read or decoded (nothing is cached
// then, so a later call tries again).
inline Sprite LoadSprite(const std::string& path, const SpriteOptions& options = {}) {
  sprite_internal::Cache& cache = sprite_internal::GetCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return sprite_internal::Lookup(
      cache, {path, options.width, options.height, options.flip_x, options.flip_y});
}

}  // namespace envfleet::image

#endif  // ENVFLEET_COMMON_IMAGE_SPRITE_CACHE_H_
