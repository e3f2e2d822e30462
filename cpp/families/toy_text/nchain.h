// NChain-v0 (EnvPool's id), a port of gym 0.20.0's gym/envs/toy_text/nchain.py (NChainEnv,
// removed from later gym releases), the chain of Strens (2000), "A Bayesian Framework for
// Reinforcement Learning", section 6.1: n states in a row, the agent starts at state 0. Action
// 0 moves one state forward (reward 0), or at the last state stays there and pays `large`;
// action 1 goes back to state 0 and pays `small`. With probability `slip` the other action is
// taken: each step draws one np_random.rand() and slips when it is below `slip`. Here the draw
// is Gymnasium's np_random.random() (this env's rng()), as in every other toy-text env; gym
// 0.20 drew from a RandomState. The episode never ends by itself: EnvPool and gym register a
// time limit of 1000 steps.
//
// Options (NChainEnv.__init__'s): n (5), slip (0.2), small (2), large (10). Observation:
// Discrete(n). Action: Discrete(2). No info, no renderer (gym's NChain had none).
#ifndef ENVFLEET_FAMILIES_TOY_TEXT_NCHAIN_H_
#define ENVFLEET_FAMILIES_TOY_TEXT_NCHAIN_H_

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/env.h"
#include "core/spec.h"

namespace envfleet::toy_text {

class NChainEnv : public Env {
 public:
  static Config DefaultConfig() {
    return {{"n", int64_t{5}}, {"slip", 0.2}, {"small", 2.0}, {"large", 10.0}};
  }

  static EnvSpec Spec(const Config& config) {
    EnvSpec spec;
    spec.obs = {Discrete("obs", CheckedLength(config))};
    spec.action = Discrete("action", 2);
    CheckedSlip(config);
    return spec;
  }

  NChainEnv(const Config& config, uint64_t seed)
      : Env(seed),
        n_(CheckedLength(config)),
        slip_(CheckedSlip(config)),
        small_(config.Get<double>("small")),
        large_(config.Get<double>("large")) {}

  void Reset() override { state_ = 0; }

  void Step(const void* action) override {
    int64_t a = *static_cast<const int64_t*>(action);
    if (a < 0 || a > 1) throw std::out_of_range("NChain: action must be 0 or 1");
    if (rng().Random() < slip_) a = 1 - a;  // the agent slipped: the other action is taken
    if (a == 1) {                           // backwards: back to the start, the small payout
      reward_ = small_;
      state_ = 0;
    } else if (state_ < n_ - 1) {  // forwards along the chain
      reward_ = 0.0;
      ++state_;
    } else {  // forwards at the end of the chain: stay, the large payout
      reward_ = large_;
    }
    terminated_ = false;
  }

  void Write(const OutputSlot& out) const override { *out.Get<int64_t>(0) = state_; }

 private:
  static int64_t CheckedLength(const Config& config) {
    const int64_t n = config.Get<int64_t>("n");
    if (n < 1) throw std::invalid_argument("NChain: n must be >= 1, got " + std::to_string(n));
    return n;
  }
  static double CheckedSlip(const Config& config) {
    const double slip = config.Get<double>("slip");
    if (!(slip >= 0.0 && slip <= 1.0)) {
      throw std::invalid_argument("NChain: slip must be a probability in [0, 1], got " +
                                  std::to_string(slip));
    }
    return slip;
  }

  int64_t n_;
  double slip_, small_, large_;
  int64_t state_ = 0;
};

}  // namespace envfleet::toy_text

#endif  // ENVFLEET_FAMILIES_TOY_TEXT_NCHAIN_H_
