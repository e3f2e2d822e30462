// The environment contract. An environment is a class (or, through FunctionEnv later, a set of
// plain function pointers) that the pool drives in three calls:
//
//   Reset()            start a new episode, drawing randomness only from rng()
//   Step(action)       advance one step; set reward() and terminated()
//   Write(out)         write the current observation (and info entries) into an output slot
//
// plus optional hooks: ResetAfterTermination(), for envs whose terminations can leave their
// world running, and Render(), for envs that can draw themselves (see below).
//
// Step and Write are separate so the pool claims an output slot only once the step's
// dynamics are done: in async mode the first envs to finish fill the first slots. Everything
// else (elapsed steps, time limits, autoreset, done flags, env ids) is the pool's business,
// with one exception: an env whose reference truncates its own episodes (MiniGrid's
// step_count >= max_steps, a limit that is an env option and may differ per episode) sets
// kTruncates and truncated_ in Step; the pool then reports truncated when either its time
// limit or the env says so. Envs that leave kTruncates false pay nothing for it.
// See cpp/families/example/counting.h for an annotated example.
//
// An env class registered with MakeEnvType<E> is stepped by the pool's loops compiled for E
// (Pool::Kernels), which call E's Step, Write and Reset directly, not through the vtable.
#ifndef ENVFLEET_CORE_ENV_H_
#define ENVFLEET_CORE_ENV_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "common/numpy/random.h"
#include "core/spec.h"

namespace envfleet {

// One env's row in an output block. Key 0..n-1 are the spec's obs keys followed by its info
// keys, in spec order; each points at that env's element range inside the batch array.
class OutputSlot {
 public:
  OutputSlot(char* const* key_bases, const size_t* key_row_bytes, size_t row)
      : key_bases_(key_bases), key_row_bytes_(key_row_bytes), row_(row) {}

  template <typename T>
  T* Get(size_t key) const {
    return reinterpret_cast<T*>(key_bases_[key] + row_ * key_row_bytes_[key]);
  }

 private:
  char* const* key_bases_;
  const size_t* key_row_bytes_;
  size_t row_;
};

class Env {
 public:
  // Each env owns its random stream, seeded exactly as Gymnasium seeds one env:
  // np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))).
  explicit Env(uint64_t seed) : rng_(seed) {}
  virtual ~Env() = default;
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

  // Starts a new episode: every explicit reset, the first one, and autoresets after a time
  // limit or an env error.
  virtual void Reset() = 0;

  // An autoreset after the env's own terminated() ended the episode (NEXT_STEP or SAME_STEP
  // autoreset; not when the time limit truncated that same step) calls this instead of
  // Reset(). An env whose termination can end the learner's episode while its world goes on
  // (Atari's episodic_life: a lost life) overrides it to carry on that world and returns
  // true; the pool then treats the new episode as a continuation of the old one's clock:
  // elapsed_step goes on from where the ended episode left it (the reset result reports that
  // count, the next step adds one) and max_episode_steps counts across both, as EnvPool does.
  // Returning false means a fresh episode, exactly as Reset(): the default.
  virtual bool ResetAfterTermination() {
    Reset();
    return false;
  }
  // `action` points at one action laid out as the spec's action ArraySpec describes.
  virtual void Step(const void* action) = 0;
  virtual void Write(const OutputSlot& out) const = 0;

  // Re-seeds the env as Gymnasium's reset(seed=...) does. Envs whose engine draws from its own
  // generator too (ALE) override it to re-seed that one as well.
  virtual void Seed(uint64_t seed) { rng_.Seed(seed); }

  // Draws the current state as RGB into `rgb`: height rows of width pixels of 3 bytes, top
  // row first, as Gymnasium's render() returns it. The pool calls it on a worker thread (never
  // the Python thread: a renderer may keep per-thread state, such as a GL context, that ends
  // with the workers) while no step of this env runs. `camera_id` is -1 for the env's default
  // view, else 0 .. spec.render.num_cameras - 1; width and height are the spec's unless
  // spec.render.resizable. Envs whose spec has a render width override it.
  virtual void Render(int camera_id, int width, int height, uint8_t* rgb) {
    (void)camera_id, (void)width, (void)height, (void)rgb;
    throw std::logic_error("this env has no renderer");
  }

  double reward() const { return reward_; }
  bool terminated() const { return terminated_; }
  // Whether the env's own time limit ended the episode this step. Read only for env classes
  // that set kTruncates (and by the vtable loops, which serve any class: false unless set).
  bool truncated() const { return truncated_; }
  NumpyGenerator& rng() { return rng_; }

  // An env class that truncates its own episodes declares
  //   static constexpr bool kTruncates = true;
  // and sets truncated_ in every Step (the pool reads it after each step, never after a
  // reset). The pool's loops compiled for a class that keeps this false never read it.
  static constexpr bool kTruncates = false;

 protected:
  double reward_ = 0.0;
  bool terminated_ = false;
  bool truncated_ = false;

 private:
  NumpyGenerator rng_;
};

}  // namespace envfleet

#endif  // ENVFLEET_CORE_ENV_H_
