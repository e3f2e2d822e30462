// Shared pieces of the toy-text ports. Gymnasium's tabular envs (FrozenLake, CliffWalking,
// Taxi) keep a table P[state][action] of (prob, next_state, reward, terminated) transitions
// and draw from it, and from their start distribution, with
// gymnasium/envs/toy_text/utils.py's categorical_sample:
//   argmax(cumsum(prob_n) > np_random.random())
// i.e. one random() draw, a left-to-right cumsum (np.cumsum is add.accumulate), and the first
// index whose partial sum exceeds the draw, or index 0 when none does (argmax of all-False;
// possible when rounding leaves the total just under 1, e.g. 300 * (1/300) for Taxi).
#ifndef ENVFLEET_FAMILIES_TOY_TEXT_DISCRETE_H_
#define ENVFLEET_FAMILIES_TOY_TEXT_DISCRETE_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/numpy/random.h"
#include "core/env.h"
#include "core/spec.h"

namespace envfleet {
namespace toy_text {

struct Transition {
  double prob;
  int64_t next_state;
  double reward;
  bool terminated;
};

// categorical_sample over one P[state][action] list; returns the chosen list index.
inline size_t SampleTransition(const std::vector<Transition>& transitions, NumpyGenerator& rng) {
  const double u = rng.Random();
  double cumsum = 0.0;
  for (size_t i = 0; i < transitions.size(); ++i) {
    cumsum += transitions[i].prob;
    if (cumsum > u) return i;
  }
  return 0;
}

// categorical_sample over `counts / counts.sum()` (initial_state_distrib). The envs build the
// counts from 0/1 entries, so the sum is exact in any order. Only states with a nonzero
// probability are kept: adding zeros to the cumsum changes nothing and a zero entry can never
// be the first to exceed the draw. When nothing exceeds it (or there is no start state, where
// numpy divides 0 by 0 and every comparison with NaN is False) numpy's argmax gives state 0.
class InitialStateDistribution {
 public:
  InitialStateDistribution() = default;
  explicit InitialStateDistribution(const std::vector<double>& counts) {
    double total = 0.0;
    for (double c : counts) total += c;
    for (size_t s = 0; s < counts.size(); ++s) {
      if (counts[s] != 0.0) {
        states_.push_back(static_cast<int64_t>(s));
        probs_.push_back(counts[s] / total);
      }
    }
  }

  int64_t Sample(NumpyGenerator& rng) const {
    const double u = rng.Random();
    double cumsum = 0.0;
    for (size_t k = 0; k < probs_.size(); ++k) {
      cumsum += probs_[k];
      if (cumsum > u) return states_[k];
    }
    return 0;
  }

 private:
  std::vector<int64_t> states_;
  std::vector<double> probs_;
};

// FrozenLake, CliffWalking and Taxi: an Env over P[state][action] (filled by the derived
// constructor through Transitions()) and initial_state_distrib, with their shared reset, step
// and output. Obs: the state, Discrete(num_states); info "prob": the probability of the
// transition taken, 1 at reset.
class TabularEnv : public Env {
 public:
  // s = categorical_sample(initial_state_distrib).
  void Reset() override {
    state_ = initial_state_.Sample(rng());
    prob_ = 1.0;
  }

  // categorical_sample(P[s][a]) gives (prob, next_state, reward, terminated).
  void Step(const void* action) override {
    const int64_t a = *static_cast<const int64_t*>(action);
    if (a < 0 || a >= num_actions_) {
      throw std::out_of_range(std::string(name_) + ": action must be in [0, " +
                              std::to_string(num_actions_) + ")");
    }
    const std::vector<Transition>& transitions = Transitions(state_, static_cast<int>(a));
    const Transition& t = transitions[SampleTransition(transitions, rng())];
    state_ = t.next_state;
    prob_ = t.prob;
    reward_ = t.reward;
    terminated_ = t.terminated;
  }

  void Write(const OutputSlot& out) const override {
    *out.Get<int64_t>(0) = state_;
    *out.Get<double>(1) = prob_;
  }

 protected:
  // `name` prefixes the error of an action out of range.
  TabularEnv(uint64_t seed, const char* name, int64_t num_states, int num_actions)
      : Env(seed),
        name_(name),
        num_actions_(num_actions),
        table_(static_cast<size_t>(num_states) * num_actions) {}

  // The obs, the "prob" info and the action; an env with more info appends it.
  static EnvSpec TabularSpec(int64_t num_states, int64_t num_actions) {
    EnvSpec spec;
    spec.obs = {Discrete("obs", num_states)};
    spec.info = {Box("prob", DType::kFloat64, {}, {0.0}, {1.0})};
    spec.action = Discrete("action", num_actions);
    return spec;
  }

  // P[state][action].
  std::vector<Transition>& Transitions(int64_t state, int action) {
    return table_[static_cast<size_t>(state) * num_actions_ + action];
  }
  const std::vector<Transition>& Transitions(int64_t state, int action) const {
    return table_[static_cast<size_t>(state) * num_actions_ + action];
  }

  InitialStateDistribution initial_state_;
  int64_t state_ = 0;
  double prob_ = 1.0;

 private:
  const char* name_;
  int num_actions_;
  std::vector<std::vector<Transition>> table_;  // P[s][a] at s * num_actions + a
};

}  // namespace toy_text
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_TOY_TEXT_DISCRETE_H_
