// Pendulum (swingup): dm_control 1.0.50's dm_control/suite/pendulum.py on its pendulum.xml.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_PENDULUM_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_PENDULUM_H_

#include <cmath>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class PendulumEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = 0;
  static Config DefaultConfig() { return DomainDefaults("swingup"); }
  static EnvSpec Spec(const Config& config) {
    TaskIndex(config, "pendulum", {"swingup"});
    return TaskSpec(LoadSuiteModel(config, "pendulum.xml").get(),
                    {{"orientation", 2}, {"velocity", 1}}, kControlTimestep);
  }

  PendulumEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, "pendulum.xml", kControlTimestep),
        pole_(Id(mjOBJ_BODY, "pole")),
        hinge_qpos_(Qpos("hinge")),
        hinge_dof_(Dof("hinge")) {
    TaskIndex(config, "pendulum", {"swingup"});
  }

  void Write(const OutputSlot& out) const override {
    double* orientation = out.Get<double>(0);  // xmat['pole', ['zz', 'xz']]
    orientation[0] = Xmat(pole_, 2, 2);
    orientation[1] = Xmat(pole_, 0, 2);
    out.Get<double>(1)[0] = d()->qvel[hinge_dof_];
  }

 protected:
  void InitializeEpisode() override {
    constexpr double kPi = 3.141592653589793;
    d()->qpos[hinge_qpos_] = random().Uniform(-kPi, kPi);
  }

  // tolerance(pole_vertical, (_COSINE_BOUND, 1)), _COSINE_BOUND = np.cos(np.deg2rad(_ANGLE_BOUND =
  // 8)): deg2rad multiplies by pi / 180, np.cos on float64 is libm's cos.
  double GetReward() override {
    constexpr double kPi = 3.141592653589793;
    static const double cosine_bound = std::cos(8.0 * (kPi / 180.0));
    return Tolerance(Xmat(pole_, 2, 2), cosine_bound, 1);
  }

 private:
  int pole_, hinge_qpos_, hinge_dof_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_PENDULUM_H_
