// Hopper (stand, hop): dm_control 1.0.50's dm_control/suite/hopper.py on its hopper.xml, 4
// physics steps of 5 ms per control step.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_HOPPER_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_HOPPER_H_

#include <cmath>
#include <limits>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class HopperEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = .02;
  static Config DefaultConfig() { return DomainDefaults("hop"); }
  static EnvSpec Spec(const Config& config) {
    Task(config);
    const auto model = LoadSuiteModel(config, "hopper.xml");
    return TaskSpec(model.get(),
                    {{"position", model->nq - 1}, {"velocity", model->nv}, {"touch", 2}},
                    kControlTimestep);
  }

  HopperEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, "hopper.xml", kControlTimestep),
        hopping_(Task(config) == 1),
        torso_(Id(mjOBJ_BODY, "torso")),
        foot_(Id(mjOBJ_BODY, "foot")),
        speed_(Sensor("torso_subtreelinvel")),
        touch_toe_(Sensor("touch_toe")),
        touch_heel_(Sensor("touch_heel")) {}

  void Write(const OutputSlot& out) const override {
    Put(out.Get<double>(0), d()->qpos + 1, m()->nq - 1);
    Put(out.Get<double>(1), d()->qvel, m()->nv);
    double* touch = out.Get<double>(2);  // np.log1p(sensordata[['touch_toe', 'touch_heel']])
    touch[0] = std::log1p(d()->sensordata[touch_toe_]);
    touch[1] = std::log1p(d()->sensordata[touch_heel_]);
  }

 protected:
  void InitializeEpisode() override { RandomizeLimitedAndRotationalJoints(); }

  double GetReward() override {
    constexpr double kStandHeight = 0.6, kHopSpeed = 2;
    const double height = d()->xipos[3 * torso_ + 2] - d()->xipos[3 * foot_ + 2];
    const double standing = Tolerance(height, kStandHeight, 2);
    if (hopping_) {
      const double hopping =
          Tolerance(d()->sensordata[speed_], kHopSpeed, std::numeric_limits<double>::infinity(),
                    kHopSpeed / 2, Sigmoid::kLinear, 0.5);
      return standing * hopping;
    }
    double control[8];  // tolerance(control, margin=1, value_at_margin=0, 'quadratic')
    const int nu = m()->nu;
    for (int i = 0; i < nu; ++i) {
      control[i] = Tolerance(d()->ctrl[i], 0, 0, 1, Sigmoid::kQuadratic, 0, Input::kArray);
    }
    const double small_control = (Sum(control, nu) / nu + 4) / 5;  // (.mean() + 4) / 5
    return standing * small_control;
  }

 private:
  static int Task(const Config& config) { return TaskIndex(config, "hopper", {"stand", "hop"}); }

  bool hopping_;
  int torso_, foot_, speed_, touch_toe_, touch_heel_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_HOPPER_H_
