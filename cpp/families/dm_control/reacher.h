// Reacher (easy, hard): dm_control 1.0.50's dm_control/suite/reacher.py on its reacher.xml.
// Each episode moves the target (its geom's size and position in this env's model).
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_REACHER_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_REACHER_H_

#include <cmath>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class ReacherEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = 0;
  static Config DefaultConfig() { return DomainDefaults("easy"); }
  static EnvSpec Spec(const Config& config) {
    Task(config);
    const auto model = LoadSuiteModel(config, "reacher.xml");
    return TaskSpec(model.get(),
                    {{"position", model->nq}, {"to_target", 2}, {"velocity", model->nv}},
                    kControlTimestep);
  }

  ReacherEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, "reacher.xml", kControlTimestep),
        // _BIG_TARGET, _SMALL_TARGET
        target_size_(Task(config) == 0 ? .05 : .015),
        target_(Id(mjOBJ_GEOM, "target")),
        finger_(Id(mjOBJ_GEOM, "finger")) {
    OwnModelField(&mjModel::geom_size, 3 * m()->ngeom);  // the target's, per episode
    OwnModelField(&mjModel::geom_pos, 3 * m()->ngeom);
  }

  void Write(const OutputSlot& out) const override {
    Put(out.Get<double>(0), d()->qpos, m()->nq);
    FingerToTarget(out.Get<double>(1));
    Put(out.Get<double>(2), d()->qvel, m()->nv);
  }

 protected:
  void InitializeEpisode() override {
    constexpr double kPi = 3.141592653589793;
    mjModel* model = mutable_model();
    model->geom_size[3 * target_] = target_size_;
    RandomizeLimitedAndRotationalJoints();
    const double angle = random().Uniform(0, 2 * kPi);
    const double radius = random().Uniform(.05, .20);
    model->geom_pos[3 * target_] = radius * std::sin(angle);
    model->geom_pos[3 * target_ + 1] = radius * std::cos(angle);
  }

  double GetReward() override {
    const double radii = m()->geom_size[3 * target_] + m()->geom_size[3 * finger_];
    double to_target[2];
    FingerToTarget(to_target);
    return Tolerance(Norm(to_target, 2), 0, radii);
  }

 private:
  static int Task(const Config& config) { return TaskIndex(config, "reacher", {"easy", "hard"}); }

  // geom_xpos['target', :2] - geom_xpos['finger', :2].
  void FingerToTarget(double* out) const {
    for (int i = 0; i < 2; ++i)
      out[i] = d()->geom_xpos[3 * target_ + i] - d()->geom_xpos[3 * finger_ + i];
  }

  double target_size_;
  int target_, finger_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_REACHER_H_
