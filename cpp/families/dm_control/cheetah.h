// Cheetah (run): dm_control 1.0.50's dm_control/suite/cheetah.py on its cheetah.xml. An
// episode starts from random limited joint angles and 200 physics steps of falling, with the
// clock then set back to 0.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_CHEETAH_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_CHEETAH_H_

#include <limits>
#include <stdexcept>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class CheetahEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = 0;
  static Config DefaultConfig() { return DomainDefaults("run"); }
  static EnvSpec Spec(const Config& config) {
    TaskIndex(config, "cheetah", {"run"});
    const auto model = LoadSuiteModel(config, "cheetah.xml");
    return TaskSpec(model.get(), {{"position", model->nq - 1}, {"velocity", model->nv}},
                    kControlTimestep);
  }

  CheetahEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, "cheetah.xml", kControlTimestep),
        speed_(Sensor("torso_subtreelinvel")) {
    TaskIndex(config, "cheetah", {"run"});
    // Cheetah.initialize_episode asserts it: joint j is qpos[j].
    if (m()->nq != m()->njnt) throw std::invalid_argument("cheetah: nq != njnt");
  }

  void Write(const OutputSlot& out) const override {
    Put(out.Get<double>(0), d()->qpos + 1, m()->nq - 1);
    Put(out.Get<double>(1), d()->qvel, m()->nv);
  }

 protected:
  void InitializeEpisode() override {
    // qpos[is_limited] = random.uniform(lower, upper), the limited joints in order.
    for (int j = 0; j < m()->njnt; ++j) {
      if (m()->jnt_limited[j] == 1) {
        d()->qpos[j] = random().Uniform(m()->jnt_range[2 * j], m()->jnt_range[2 * j + 1]);
      }
    }
    PhysicsStep(200);
    d()->time = 0;
  }

  // tolerance(speed, bounds=(_RUN_SPEED, inf), margin=_RUN_SPEED, value_at_margin=0,
  // sigmoid='linear').
  double GetReward() override {
    constexpr double kRunSpeed = 10;
    return Tolerance(d()->sensordata[speed_], kRunSpeed, std::numeric_limits<double>::infinity(),
                     kRunSpeed, Sigmoid::kLinear, 0);
  }

 private:
  int speed_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_CHEETAH_H_
