// Walker (stand, walk, run): dm_control 1.0.50's dm_control/suite/walker.py (PlanarWalker) on
// its walker.xml, 10 physics steps of 2.5 ms per control step.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_WALKER_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_WALKER_H_

#include <limits>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class WalkerEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = .025;
  static Config DefaultConfig() { return DomainDefaults("walk"); }
  static EnvSpec Spec(const Config& config) {
    Task(config);
    const auto model = LoadSuiteModel(config, "walker.xml");
    return TaskSpec(
        model.get(),
        {{"orientations", 2 * (model->nbody - 1)}, {"height", -1}, {"velocity", model->nv}},
        kControlTimestep);
  }

  WalkerEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, "walker.xml", kControlTimestep),
        // _WALK_SPEED, _RUN_SPEED; stand: 0
        move_speed_(kMoveSpeeds[Task(config)]),
        torso_(Id(mjOBJ_BODY, "torso")),
        speed_(Sensor("torso_subtreelinvel")) {}

  void Write(const OutputSlot& out) const override {
    double* orientations = out.Get<double>(0);  // xmat[1:, ['xx', 'xz']].ravel()
    for (int body = 1; body < m()->nbody; ++body) {
      *orientations++ = Xmat(body, 0, 0);
      *orientations++ = Xmat(body, 0, 2);
    }
    out.Get<double>(1)[0] = TorsoHeight();
    Put(out.Get<double>(2), d()->qvel, m()->nv);
  }

 protected:
  void InitializeEpisode() override { RandomizeLimitedAndRotationalJoints(); }

  double GetReward() override {
    constexpr double kStandHeight = 1.2;
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const double standing = Tolerance(TorsoHeight(), kStandHeight, kInf, kStandHeight / 2);
    const double upright = (1 + Xmat(torso_, 2, 2)) / 2;
    const double stand_reward = (3 * standing + upright) / 4;
    if (move_speed_ == 0) return stand_reward;
    const double move_reward = Tolerance(d()->sensordata[speed_], move_speed_, kInf,
                                         move_speed_ / 2, Sigmoid::kLinear, 0.5);
    return stand_reward * (5 * move_reward + 1) / 6;
  }

 private:
  static constexpr double kMoveSpeeds[] = {0, 1, 8};
  static int Task(const Config& config) {
    return TaskIndex(config, "walker", {"stand", "walk", "run"});
  }
  double TorsoHeight() const { return d()->xpos[3 * torso_ + 2]; }

  double move_speed_;
  int torso_, speed_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_WALKER_H_
