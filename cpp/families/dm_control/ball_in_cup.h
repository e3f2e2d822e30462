// Ball in cup (catch): dm_control 1.0.50's dm_control/suite/ball_in_cup.py on its
// ball_in_cup.xml, 10 physics steps of 2 ms per control step.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_BALL_IN_CUP_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_BALL_IN_CUP_H_

#include <cmath>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class BallInCupEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = .02;
  static Config DefaultConfig() { return DomainDefaults("catch"); }
  static EnvSpec Spec(const Config& config) {
    TaskIndex(config, "ball_in_cup", {"catch"});
    const auto model = LoadSuiteModel(config, "ball_in_cup.xml");
    return TaskSpec(model.get(), {{"position", model->nq}, {"velocity", model->nv}},
                    kControlTimestep);
  }

  BallInCupEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, "ball_in_cup.xml", kControlTimestep),
        ball_x_(Qpos("ball_x")),
        ball_z_(Qpos("ball_z")),
        target_(Id(mjOBJ_SITE, "target")),
        ball_body_(Id(mjOBJ_BODY, "ball")),
        ball_geom_(Id(mjOBJ_GEOM, "ball")) {
    TaskIndex(config, "ball_in_cup", {"catch"});
  }

  void Write(const OutputSlot& out) const override {
    Put(out.Get<double>(0), d()->qpos, m()->nq);
    Put(out.Get<double>(1), d()->qvel, m()->nv);
  }

 protected:
  // Places the ball anywhere it does not touch the cup.
  void InitializeEpisode() override {
    bool penetrating = true;
    while (penetrating) {
      d()->qpos[ball_x_] = random().Uniform(-.2, .2);
      d()->qpos[ball_z_] = random().Uniform(.2, .5);
      AfterReset();
      penetrating = ncon() > 0;
    }
  }

  // in_target: float(all(abs(ball_to_target) < target_size - ball_size)) over x and z.
  double GetReward() override {
    const double ball_size = m()->geom_size[3 * ball_geom_];
    for (int axis : {0, 2}) {
      const double ball_to_target =
          d()->site_xpos[3 * target_ + axis] - d()->xpos[3 * ball_body_ + axis];
      if (!(std::fabs(ball_to_target) < m()->site_size[3 * target_ + axis] - ball_size)) return 0.0;
    }
    return 1.0;
  }

 private:
  int ball_x_, ball_z_, target_, ball_body_, ball_geom_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_BALL_IN_CUP_H_
