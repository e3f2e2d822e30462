// Point mass (easy, hard): dm_control 1.0.50's dm_control/suite/point_mass.py on its
// point_mass.xml. `hard` randomizes the actuators' gains: each control drives a random unit
// combination of the two joints (the tendons' wrap_prm, set per episode in this env's model).
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_POINT_MASS_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_POINT_MASS_H_

#include <cmath>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class PointMassEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = 0;
  static Config DefaultConfig() { return DomainDefaults("easy"); }
  static EnvSpec Spec(const Config& config) {
    Task(config);
    const auto model = LoadSuiteModel(config, "point_mass.xml");
    return TaskSpec(model.get(), {{"position", model->nq}, {"velocity", model->nv}},
                    kControlTimestep);
  }

  PointMassEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, "point_mass.xml", kControlTimestep),
        randomize_gains_(Task(config) == 1),
        target_(Id(mjOBJ_GEOM, "target")),
        pointmass_(Id(mjOBJ_GEOM, "pointmass")) {
    if (randomize_gains_) OwnModelField(&mjModel::wrap_prm, m()->nwrap);  // per episode
  }

  void Write(const OutputSlot& out) const override {
    Put(out.Get<double>(0), d()->qpos, m()->nq);
    Put(out.Get<double>(1), d()->qvel, m()->nv);
  }

 protected:
  void InitializeEpisode() override {
    RandomizeLimitedAndRotationalJoints();
    if (!randomize_gains_) return;
    double dir1[2], dir2[2];
    RandomDirection(dir1);
    bool parallel = true;
    while (parallel) {
      RandomDirection(dir2);
      // abs(np.dot(dir1, dir2)) > 0.9; BLAS ddot of two short vectors, left to right.
      double dot = 0.0;
      for (int i = 0; i < 2; ++i) dot += dir1[i] * dir2[i];
      parallel = std::fabs(dot) > 0.9;
    }
    double* wrap_prm = mutable_model()->wrap_prm;
    wrap_prm[0] = dir1[0];
    wrap_prm[1] = dir1[1];
    wrap_prm[2] = dir2[0];
    wrap_prm[3] = dir2[1];
  }

  double GetReward() override {
    const double target_size = m()->geom_size[3 * target_];
    double to_target[3];
    for (int i = 0; i < 3; ++i) {
      to_target[i] = d()->geom_xpos[3 * target_ + i] - d()->geom_xpos[3 * pointmass_ + i];
    }
    const double near_target =
        Tolerance(Norm(to_target, 3), 0, target_size, /*margin=*/target_size);
    double control[2];  // tolerance(control, margin=1, value_at_margin=0, 'quadratic')
    for (int i = 0; i < m()->nu; ++i) {
      control[i] = Tolerance(d()->ctrl[i], 0, 0, 1, Sigmoid::kQuadratic, 0, Input::kArray);
    }
    const double control_reward = Sum(control, m()->nu) / m()->nu;  // .mean()
    const double small_control = (control_reward + 4) / 5;
    return near_target * small_control;
  }

 private:
  static int Task(const Config& config) {
    return TaskIndex(config, "point_mass", {"easy", "hard"});
  }

  // dir = random.randn(2); dir /= np.linalg.norm(dir).
  void RandomDirection(double* dir) {
    for (int i = 0; i < 2; ++i) dir[i] = random().StandardNormal();
    const double norm = Norm(dir, 2);
    for (int i = 0; i < 2; ++i) dir[i] /= norm;
  }

  bool randomize_gains_;
  int target_, pointmass_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_POINT_MASS_H_
