// LQR (lqr_2_1, lqr_6_2): dm_control 1.0.50's dm_control/suite/lqr.py (LQRLevel) on a model
// built as lqr._make_model builds it from lqr.xml: a chain of n bodies on slide joints whose
// stiffness (and zero damping) is drawn from the task's RandomState, joined by spatial
// tendons, the first m actuated. The model therefore depends on the seed: the stream that
// built it goes on to draw the episodes, and re-seeding the env rebuilds it, as
// suite.load(..., task_kwargs={"random": seed}) would. The episode terminates (discount 0)
// once the state's norm is below 1e-6; dm_control has no time limit here, EnvPool's 1000
// steps is the registration's.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_LQR_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_LQR_H_

#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class LqrEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = 0;
  static Config DefaultConfig() { return DomainDefaults("lqr_2_1"); }
  static EnvSpec Spec(const Config& config) {
    NumpyRandomState random(0);
    const auto model = Build(config, &random);
    return TaskSpec(model.get(), {{"position", model->nq}, {"velocity", model->nv}},
                    kControlTimestep);
  }

  LqrEnv(const Config& config, uint64_t seed) : LqrEnv(config, seed, Built(config, seed)) {}

  void Seed(uint64_t seed) override {
    DmControlEnv::Seed(seed);
    Built built = Built(config_, seed);
    ReplaceModel(built.model);
    random() = built.random;
  }

  void Write(const OutputSlot& out) const override {
    Put(out.Get<double>(0), d()->qpos, m()->nq);
    Put(out.Get<double>(1), d()->qvel, m()->nv);
  }

 protected:
  // unit = randn(nq); qpos = np.sqrt(2) * unit / np.linalg.norm(unit).
  void InitializeEpisode() override {
    const int nq = m()->nq;
    double unit[kMaxBodies];
    for (int i = 0; i < nq; ++i) unit[i] = random().StandardNormal();
    const double norm = Norm(unit, nq);
    for (int i = 0; i < nq; ++i) d()->qpos[i] = std::sqrt(2.0) * unit[i] / norm;
  }

  // 1 - (state_cost + control_l2_norm * _CONTROL_COST_COEF), each term 0.5 * np.dot(v, v).
  double GetReward() override {
    constexpr double kControlCostCoef = 0.1;
    const double state_cost = 0.5 * Dot(d()->qpos, m()->nq);
    const double control_l2_norm = 0.5 * Dot(d()->ctrl, m()->nu);
    return 1 - (state_cost + control_l2_norm * kControlCostCoef);
  }

  // np.linalg.norm(state) < _TERMINAL_TOL, the state being qpos, qvel and act.
  bool GetTermination() override {
    constexpr double kTerminalTol = 1e-6;
    double state[3 * kMaxBodies];
    double* end = Put(state, d()->qpos, m()->nq);
    end = Put(end, d()->qvel, m()->nv);
    end = Put(end, d()->act, m()->na);
    return Norm(state, static_cast<int>(end - state)) < kTerminalTol;
  }

 private:
  static constexpr int kMaxBodies = 6;

  // The model and the stream after building it.
  struct Built {
    Built(const Config& config, uint64_t seed) : random(CheckedSeed(seed)) {
      model = Build(config, &random);
    }
    NumpyRandomState random;
    std::shared_ptr<const mjModel> model;
  };

  LqrEnv(const Config& config, uint64_t seed, const Built& built)
      : DmControlEnv(config, seed, built.model, kControlTimestep), config_(config) {
    random() = built.random;
  }

  static std::pair<int, int> Sizes(const Config& config) {  // (n_bodies, n_actuators)
    return TaskIndex(config, "lqr", {"lqr_2_1", "lqr_6_2"}) == 0 ? std::pair{2, 1}
                                                                 : std::pair{6, 2};
  }

  // lqr._make_model(n_bodies, n_actuators, random): stiffness_range (15, 25), damping_range
  // (0, 0), drawn body by body.
  static std::shared_ptr<const mjModel> Build(const Config& config, NumpyRandomState* random) {
    const auto [n_bodies, n_actuators] = Sizes(config);
    return OwnModel(CompileEditedSuiteModel(config, "lqr.xml", [&](mjSpec* spec) {
      mjsBody* parent = mjs_findBody(spec, "world");
      const mjsDefault* main = mjs_getSpecDefault(spec);
      for (int body = 0; body < n_bodies; ++body) {
        // <body name="body_i" pos=".25 0 0" (the first: ".25 0 .1")>: joint joint_i with the
        // drawn stiffness and damping, geom geom_i, site site_i.
        const std::string i = std::to_string(body);
        mjsBody* child = mjs_addBody(parent, main);
        mjs_setName(child->element, ("body_" + i).c_str());
        child->pos[0] = .25, child->pos[1] = 0, child->pos[2] = body == 0 ? .1 : 0;
        mjsJoint* joint = mjs_addJoint(child, main);
        mjs_setName(joint->element, ("joint_" + i).c_str());
        joint->stiffness[0] = random->Uniform(15, 25);
        joint->damping[0] = random->Uniform(0, 0);
        mjs_setName(mjs_addGeom(child, main)->element, ("geom_" + i).c_str());
        mjs_setName(mjs_addSite(child, main)->element, ("site_" + i).c_str());
        if (body < n_actuators) {  // <motor name="motor_i" joint="joint_i"/>
          mjsActuator* motor = mjs_addActuator(spec, main);
          mjs_setToMotor(motor);
          mjs_setName(motor->element, ("motor_" + i).c_str());
          motor->trntype = mjTRN_JOINT;
          mjs_setString(motor->target, ("joint_" + i).c_str());
        }
        if (body < n_bodies - 1) {  // <spatial name="tendon_i">: site_i, site_{i+1}
          mjsTendon* tendon = mjs_addTendon(spec, main);
          mjs_setName(tendon->element, ("tendon_" + i).c_str());
          mjs_wrapSite(tendon, ("site_" + i).c_str());
          mjs_wrapSite(tendon, ("site_" + std::to_string(body + 1)).c_str());
        }
        parent = child;
      }
    }));
  }

  // np.dot(v, v) of a short vector: BLAS ddot, left to right.
  static double Dot(const double* v, int n) { return numpy_math::NpDotSelf(v, n); }

  Config config_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_LQR_H_
