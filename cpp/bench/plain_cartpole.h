// The bench's independent limit for CartPole: Gymnasium's CartPole-v1 dynamics over many envs
// in a plain C++ loop, written without envfleet's Env or Pool. It is what a hand-written
// vectorised CartPole in C would do per step: read an action, advance the state (the
// reference's float64 arithmetic), write the observation, reward and flags into batch arrays,
// and reset an env whose episode ended (termination or the 500-step limit) in the same step.
// A pool cannot beat it on one thread; how close a pool comes, per CPU second, is the measure
// of what the pool itself costs (benchmarks/README.md).
//
// The state is a struct of arrays; actions come from a pre-drawn table; resets draw from a
// splitmix64 stream (cheaper than Gymnasium's PCG64, which only makes the limit stricter).
#ifndef ENVFLEET_BENCH_PLAIN_CARTPOLE_H_
#define ENVFLEET_BENCH_PLAIN_CARTPOLE_H_

#include <chrono>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace envfleet::bench {

class PlainCartPoleLoop {
 public:
  PlainCartPoleLoop(int num_envs, uint64_t seed)
      : n_(num_envs),
        random_(seed),
        x_(n_),
        x_dot_(n_),
        theta_(n_),
        theta_dot_(n_),
        elapsed_(n_),
        obs_(4 * static_cast<size_t>(n_)),
        reward_(n_),
        terminated_(n_),
        truncated_(n_),
        actions_(kActions) {
    for (auto& a : actions_) a = static_cast<int64_t>(Next() >> 63);
    for (int i = 0; i < n_; ++i) Reset(i);
  }

  // Takes `rounds` batched steps of every env; returns the seconds they took.
  double Run(int64_t rounds) {
    const auto start = std::chrono::steady_clock::now();
    for (int64_t r = 0; r < rounds; ++r) {
      const int64_t first = r * n_;
      for (int i = 0; i < n_; ++i) Step(i, actions_[(first + i) & (kActions - 1)]);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  int num_envs() const { return n_; }
  // Read by the caller after Run, so that no write above is dead code.
  double checksum() const {
    double sum = 0;
    for (int i = 0; i < n_; ++i) sum += obs_[4 * i] + reward_[i] + terminated_[i] + truncated_[i];
    return sum;
  }

 private:
  static constexpr int kActions = 1 << 14;
  static constexpr double kGravity = 9.8, kMassPole = 0.1, kTotalMass = 1.1, kLength = 0.5;
  static constexpr double kPolemassLength = 0.05, kTau = 0.02;
  static constexpr double kForces[2] = {-10.0, 10.0};
  static constexpr double kThetaThreshold = 12 * 2 * M_PI / 360, kXThreshold = 2.4;
  static constexpr int64_t kMaxSteps = 500;

  void Step(int i, int64_t action) {
    const double x = x_[i], x_dot = x_dot_[i], theta = theta_[i], theta_dot = theta_dot_[i];
    const double force = kForces[action == 1];
    const double costheta = std::cos(theta);
    const double sintheta = std::sin(theta);
    const double temp = (force + kPolemassLength * (theta_dot * theta_dot) * sintheta) / kTotalMass;
    const double thetaacc =
        (kGravity * sintheta - costheta * temp) /
        (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
    const double xacc = temp - kPolemassLength * thetaacc * costheta / kTotalMass;
    x_[i] = x + kTau * x_dot;
    x_dot_[i] = x_dot + kTau * xacc;
    theta_[i] = theta + kTau * theta_dot;
    theta_dot_[i] = theta_dot + kTau * thetaacc;
    const bool terminated = x_[i] < -kXThreshold || x_[i] > kXThreshold ||
                            theta_[i] < -kThetaThreshold || theta_[i] > kThetaThreshold;
    const bool truncated = ++elapsed_[i] >= kMaxSteps;
    float* obs = obs_.data() + 4 * static_cast<size_t>(i);
    obs[0] = static_cast<float>(x_[i]);
    obs[1] = static_cast<float>(x_dot_[i]);
    obs[2] = static_cast<float>(theta_[i]);
    obs[3] = static_cast<float>(theta_dot_[i]);
    reward_[i] = 1.0;
    terminated_[i] = terminated;
    truncated_[i] = truncated;
    if (terminated || truncated) Reset(i);
  }

  void Reset(int i) {
    x_[i] = Uniform();
    x_dot_[i] = Uniform();
    theta_[i] = Uniform();
    theta_dot_[i] = Uniform();
    elapsed_[i] = 0;
  }

  uint64_t Next() {  // splitmix64
    uint64_t z = (random_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53 * 0.1 - 0.05; }

  int n_;
  uint64_t random_;
  std::vector<double> x_, x_dot_, theta_, theta_dot_;
  std::vector<int64_t> elapsed_;
  std::vector<float> obs_;
  std::vector<double> reward_;
  std::vector<uint8_t> terminated_, truncated_;
  std::vector<int64_t> actions_;
};

}  // namespace envfleet::bench

#endif  // ENVFLEET_BENCH_PLAIN_CARTPOLE_H_
