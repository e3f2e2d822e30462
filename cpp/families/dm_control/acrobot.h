// Acrobot (swingup, swingup_sparse): dm_control 1.0.50's dm_control/suite/acrobot.py
// (Balance) on its acrobot.xml.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_ACROBOT_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_ACROBOT_H_

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class AcrobotEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = 0;
  static Config DefaultConfig() { return DomainDefaults("swingup"); }
  static EnvSpec Spec(const Config& config) {
    Task(config);
    const auto model = LoadSuiteModel(config, "acrobot.xml");
    return TaskSpec(model.get(), {{"orientations", 4}, {"velocity", model->nv}}, kControlTimestep);
  }

  AcrobotEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, "acrobot.xml", kControlTimestep),
        sparse_(Task(config) == 1),
        upper_arm_(Id(mjOBJ_BODY, "upper_arm")),
        lower_arm_(Id(mjOBJ_BODY, "lower_arm")),
        shoulder_(Qpos("shoulder")),
        elbow_(Qpos("elbow")),
        target_(Id(mjOBJ_SITE, "target")),
        tip_(Id(mjOBJ_SITE, "tip")) {}

  void Write(const OutputSlot& out) const override {
    // concatenate((horizontal, vertical)): xmat[[upper_arm, lower_arm], 'xz'], then 'zz'.
    double* orientations = out.Get<double>(0);
    orientations[0] = Xmat(upper_arm_, 0, 2);
    orientations[1] = Xmat(lower_arm_, 0, 2);
    orientations[2] = Xmat(upper_arm_, 2, 2);
    orientations[3] = Xmat(lower_arm_, 2, 2);
    Put(out.Get<double>(1), d()->qvel, m()->nv);
  }

 protected:
  // qpos[['shoulder', 'elbow']] = random.uniform(-pi, pi, 2).
  void InitializeEpisode() override {
    constexpr double kPi = 3.141592653589793;
    d()->qpos[shoulder_] = random().Uniform(-kPi, kPi);
    d()->qpos[elbow_] = random().Uniform(-kPi, kPi);
  }

  // tolerance(to_target, bounds=(0, target_radius), margin=0 if sparse else 1).
  double GetReward() override {
    double tip_to_target[3];
    for (int i = 0; i < 3; ++i) {
      tip_to_target[i] = d()->site_xpos[3 * target_ + i] - d()->site_xpos[3 * tip_ + i];
    }
    return Tolerance(Norm(tip_to_target, 3), 0, m()->site_size[3 * target_], sparse_ ? 0 : 1);
  }

 private:
  static int Task(const Config& config) {
    return TaskIndex(config, "acrobot", {"swingup", "swingup_sparse"});
  }

  bool sparse_;
  int upper_arm_, lower_arm_, shoulder_, elbow_, target_, tip_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_ACROBOT_H_
