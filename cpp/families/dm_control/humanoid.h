// Humanoid (stand, walk, run, run_pure_state): dm_control 1.0.50's
// dm_control/suite/humanoid.py on its humanoid.xml, 5 physics steps of 5 ms per control step;
// and HumanoidCMU (stand, walk, run): humanoid_CMU.py, the same task on the CMU skeleton
// (humanoid_CMU.xml, its `thorax` for the torso, uprightness read from the thorax's zy
// entry, 10 physics steps of 2 ms per control step). The observation is dm_control's for the
// task: features, or position and velocity for run_pure_state (EnvPool declares the union of
// both for every Humanoid task).
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_HUMANOID_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_HUMANOID_H_

#include <limits>
#include <vector>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

// kCmu: HumanoidCMU (humanoid_CMU.py) rather than Humanoid (humanoid.py).
template <bool kCmu>
class HumanoidEnvT : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = kCmu ? .02 : .025;
  static Config DefaultConfig() { return DomainDefaults(kCmu ? "stand" : "walk"); }
  static EnvSpec Spec(const Config& config) {
    const auto model = LoadSuiteModel(config, kXml);
    if (Task(config) == 3) {
      return TaskSpec(model.get(), {{"position", model->nq}, {"velocity", model->nv}},
                      kControlTimestep);
    }
    return TaskSpec(model.get(),
                    {{"joint_angles", model->nq - 7},
                     {"head_height", -1},
                     {"extremities", 12},
                     {"torso_vertical", 3},
                     {"com_velocity", 3},
                     {"velocity", model->nv}},
                    kControlTimestep);
  }

  HumanoidEnvT(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, kXml, kControlTimestep),
        // stand, walk (_WALK_SPEED), run and run_pure_state (_RUN_SPEED)
        move_speed_(kMoveSpeeds[Task(config)]),
        pure_state_(Task(config) == 3),
        torso_(Id(mjOBJ_BODY, kCmu ? "thorax" : "torso")),
        head_(Id(mjOBJ_BODY, "head")),
        com_velocity_(Sensor(kCmu ? "thorax_subtreelinvel" : "torso_subtreelinvel")) {
    const char* limbs[2][4] = {{"left_hand", "left_foot", "right_hand", "right_foot"},
                               {"lhand", "lfoot", "rhand", "rfoot"}};
    for (int k = 0; k < 4; ++k) limbs_[k] = Id(mjOBJ_BODY, limbs[kCmu][k]);
    if (m()->nu > kMaxActuators) throw std::invalid_argument("humanoid: too many actuators");
  }

  void Write(const OutputSlot& out) const override {
    const mjData* data = d();
    if (pure_state_) {
      Put(out.Get<double>(0), data->qpos, m()->nq);
      Put(out.Get<double>(1), data->qvel, m()->nv);
      return;
    }
    Put(out.Get<double>(0), data->qpos + 7, m()->nq - 7);
    out.Get<double>(1)[0] = data->xpos[3 * head_ + 2];
    Extremities(out.Get<double>(2));
    Put(out.Get<double>(3), data->xmat + 9 * torso_ + 6, 3);  // xmat['torso', ['zx','zy','zz']]
    Put(out.Get<double>(4), data->sensordata + com_velocity_, 3);
    Put(out.Get<double>(5), data->qvel, m()->nv);
  }

 protected:
  void InitializeEpisode() override {
    bool penetrating = true;
    while (penetrating) {
      RandomizeLimitedAndRotationalJoints();
      AfterReset();
      penetrating = ncon() > 0;
    }
  }

  double GetReward() override {
    constexpr double kStandHeight = 1.4;
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const double standing =
        Tolerance(d()->xpos[3 * head_ + 2], kStandHeight, kInf, kStandHeight / 4);
    // torso_upright: xmat['torso', 'zz']; thorax_upright: xmat['thorax', 'zy'].
    const double upright =
        Tolerance(Xmat(torso_, 2, kCmu ? 1 : 2), 0.9, kInf, 1.9, Sigmoid::kLinear, 0);
    const double stand_reward = standing * upright;
    const int nu = m()->nu;
    double control[kMaxActuators];
    for (int i = 0; i < nu; ++i) {
      control[i] = Tolerance(d()->ctrl[i], 0, 0, 1, Sigmoid::kQuadratic, 0, Input::kArray);
    }
    const double small_control = (4 + Sum(control, nu) / nu) / 5;
    const double* com_velocity = d()->sensordata + com_velocity_;
    if (move_speed_ == 0) {
      // tolerance(com_velocity[[0, 1]], margin=2).mean()
      double dont_move[2];
      for (int i = 0; i < 2; ++i) {
        dont_move[i] = Tolerance(com_velocity[i], 0, 0, 2, Sigmoid::kGaussian,
                                 kDefaultValueAtMargin, Input::kArray);
      }
      return small_control * stand_reward * (Sum(dont_move, 2) / 2);
    }
    double move =
        Tolerance(Norm(com_velocity, 2), move_speed_, kInf, move_speed_, Sigmoid::kLinear, 0);
    move = (5 * move + 1) / 6;
    return small_control * stand_reward * move;
  }

 private:
  static constexpr int kMaxActuators = 64;
  static constexpr double kMoveSpeeds[] = {0, 1, 10, 10};
  static constexpr const char* kXml = kCmu ? "humanoid_CMU.xml" : "humanoid.xml";
  static int Task(const Config& config) {
    if (kCmu) return TaskIndex(config, "humanoid_CMU", {"stand", "walk", "run"});
    return TaskIndex(config, "humanoid", {"stand", "walk", "run", "run_pure_state"});
  }

  // Each of left/right hand/foot: (xpos[limb] - xpos['torso']).dot(torso_frame).
  void Extremities(double* out) const {
    const double* torso = d()->xpos + 3 * torso_;
    for (int k = 0; k < 4; ++k) {
      double torso_to_limb[3];
      for (int i = 0; i < 3; ++i) torso_to_limb[i] = d()->xpos[3 * limbs_[k] + i] - torso[i];
      VectorTimesFrame(torso_to_limb, d()->xmat + 9 * torso_, out + 3 * k);
    }
  }

  double move_speed_;
  bool pure_state_;
  int torso_, head_, com_velocity_;
  int limbs_[4];
};

using HumanoidEnv = HumanoidEnvT<false>;
using HumanoidCmuEnv = HumanoidEnvT<true>;

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_HUMANOID_H_
