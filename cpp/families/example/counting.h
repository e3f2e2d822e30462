// Counting-v0: the annotated example of the environment contract (cpp/core/env.h), and the
// env our tests use to pin down pool behaviour (autoreset, ordering, error propagation).
//
// Observation: int64 [steps taken in this episode, episodes started so far].
// Action: Discrete(10); the reward is the action, so a test can see which action reached
// which env. The episode terminates after `episode_length` steps. With `continue_episodes`,
// the autoreset after a termination continues the ended episode's clock (see 7).
// Injected faults, for the tests of error handling: `fail_at_step` n makes the n-th step of
// every episode throw, `fail_at_reset` n makes the n-th call of Reset throw (once),
// `fail_render` makes Render throw.
// Frames (render_mode="rgb_array"; see 9): every pixel is (steps, episodes, camera_id + 1),
// so tests can see which env and which camera a frame came from.
#ifndef ENVFLEET_FAMILIES_EXAMPLE_COUNTING_H_
#define ENVFLEET_FAMILIES_EXAMPLE_COUNTING_H_

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/env.h"
#include "core/spec.h"

namespace envfleet::example {

class CountingEnv : public Env {
 public:
  // 1. Options and their defaults. make("Counting-v0", episode_length=3) overrides one;
  //    an unknown name is rejected in Python with this list.
  static Config DefaultConfig() {
    return {{"episode_length", int64_t{5}},
            {"fail_at_step", int64_t{-1}},
            {"fail_at_reset", int64_t{-1}},
            {"continue_episodes", false},
            {"fail_render", false}};
  }

  // 2. What the env reads and writes, for the given options. The pool sizes its buffers from
  //    this and Python turns it into Gymnasium spaces and dm_env specs.
  static EnvSpec Spec(const Config& config) {
    // Options are checked here: make_spec asks for the spec before any env or thread exists.
    const int64_t length = config.Get<int64_t>("episode_length");
    if (length < 1) throw std::invalid_argument("episode_length must be >= 1");
    EnvSpec spec;
    spec.obs = {Box("obs", DType::kInt64, {2}, {0.0}, {static_cast<double>(length), 1e9})};
    spec.action = Discrete("action", 10);
    spec.reward_low = 0;
    spec.reward_high = 9;
    // Only envs that can draw themselves (9) fill this: 16x8 frames by default, any size on
    // request, 50 frames/s, one camera besides the default view.
    spec.render = {16, 8, /*resizable=*/true, /*fps=*/50.0, /*num_cameras=*/1};
    return spec;
  }

  // 3. Construction gets the options and this env's seed (seed + env index). Everything an
  //    env allocates, it allocates here: Reset/Step/Write run on the hot path.
  CountingEnv(const Config& config, uint64_t seed)
      : Env(seed),
        episode_length_(config.Get<int64_t>("episode_length")),
        fail_at_step_(config.Get<int64_t>("fail_at_step")),
        fail_at_reset_(config.Get<int64_t>("fail_at_reset")),
        continue_episodes_(config.Get<bool>("continue_episodes")),
        fail_render_(config.Get<bool>("fail_render")) {}

  // 4. Reset starts an episode. The pool calls it for the first step, for reset(), and for
  //    the step after an episode ended (NEXT_STEP autoreset; after a termination, through
  //    ResetAfterTermination, 7). A C++ exception thrown here reaches Python as one thrown
  //    by Step does (5); the env stays as it was, and its next step tries the reset again.
  void Reset() override {
    if (++reset_calls_ == fail_at_reset_) {
      throw std::runtime_error("failing at reset " + std::to_string(reset_calls_));
    }
    steps_ = 0;
    ++episodes_;
  }

  // 5. Step reads the action (laid out as spec.action says: one int64 here), advances the
  //    state and sets reward_ and terminated_. Time limits are the pool's job. A C++
  //    exception thrown here reaches Python from recv()/step() naming this env.
  void Step(const void* action) override {
    const int64_t a = *static_cast<const int64_t*>(action);
    ++steps_;
    if (steps_ == fail_at_step_)
      throw std::runtime_error("failing at step " + std::to_string(steps_));
    reward_ = static_cast<double>(a);
    terminated_ = steps_ >= episode_length_;
  }

  // 6. Write puts the observation into this env's row of the output batch: key 0 is the
  //    first obs key of the spec, then the other obs keys, then the info keys.
  void Write(const OutputSlot& out) const override {
    int64_t* obs = out.Get<int64_t>(0);
    obs[0] = steps_;
    obs[1] = episodes_;
  }

  // 7. Optional. An autoreset after this env's own termination (not a time limit, not an
  //    explicit reset) calls ResetAfterTermination, whose default is Reset() and false. An
  //    env returns true to say the new episode continues the ended one's clock: the pool then
  //    keeps counting elapsed_step and the time limit across them, as Atari's episodic_life
  //    does across lives. continue_episodes shows it here.
  bool ResetAfterTermination() override {
    Reset();
    return continue_episodes_;
  }

  // 8. Optional. reset(seed=s) calls Seed(s) before Reset. Gymnasium's contract is that the
  //    same seed gives the same episode, so state that outlives episodes (the episode count
  //    here) starts over too; the default only re-seeds rng().
  void Seed(uint64_t seed) override {
    Env::Seed(seed);
    episodes_ = 0;
  }

  // 9. Optional. Render draws the current state into height x width RGB pixels, top row
  //    first, on a worker thread; it must not change the state. camera_id is -1 (the
  //    default view) or one of spec.render.num_cameras cameras.
  void Render(int camera_id, int width, int height, uint8_t* rgb) override {
    if (fail_render_) throw std::runtime_error("failing to render");
    for (int i = 0; i < width * height; ++i, rgb += 3) {
      rgb[0] = static_cast<uint8_t>(steps_);
      rgb[1] = static_cast<uint8_t>(episodes_);
      rgb[2] = static_cast<uint8_t>(camera_id + 1);
    }
  }

 private:
  int64_t episode_length_;
  int64_t fail_at_step_;
  int64_t fail_at_reset_;
  bool continue_episodes_;
  bool fail_render_;
  int64_t steps_ = 0;
  int64_t episodes_ = 0;
  int64_t reset_calls_ = 0;  // every call of Reset, failed ones included; never re-seeded
};

}  // namespace envfleet::example

#endif  // ENVFLEET_FAMILIES_EXAMPLE_COUNTING_H_
