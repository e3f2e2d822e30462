// myosuite 3.0.0's ObjHoldFixedEnvV0 and ObjHoldRandomEnvV0
// (myosuite/envs/myo/tasks/basic/hand/obj_hold.py): hold a free object at a goal. The ids
// myo{,Sarc,Fati,Reaf}HandObjHold*-v0 (EnvPool's names), on the model of the reference's
// hand_hold recipe (the legacy hand, a goal site and a free ellipsoid, recipes.py).
//
//   options:  random_goal_and_size (the Random ids: at every reset the goal is drawn within
//             0.03 of the object's starting position along each axis, and the object's three
//             radii in [0.02, 0.03], the goal site taking the same size);
//   reset:    mj_resetData, the hand's joints at 0 but the first at -1.5 (palm up), the object
//             at the model's qpos0; the goal and the size drawn (random_goal_and_size), the
//             model refreshed for the resized object as refresh_geom_derived_fields does
//             (body_refresh.h, from the recipe's spec that recipes.py saves beside the model);
//             mj_forward;
//   obs:      hand_qpos (qpos but the object's 7), hand_qvel * dt (qvel but its 6), obj_pos
//             (the object's site), obj_err (the goal minus obj_pos), act;
//   reward:   with d = |obj_err|: goal_dist = -d, bonus = [d < 0.02] + [d < 0.01],
//             act_reg = -|act| / na, penalty = -[d > 0.3], sparse = -d, weighted by
//             weighted_reward_keys (default goal_dist 100, bonus 4, penalty 10); solved
//             d < 0.01; done d > 0.3 (dropped).
//
// The norms are np.linalg.norm with no axis (NumPy's dot: NumpyNorm).
#ifndef ENVFLEET_FAMILIES_MYOSUITE_OBJ_HOLD_H_
#define ENVFLEET_FAMILIES_MYOSUITE_OBJ_HOLD_H_

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "families/myosuite/body_refresh.h"
#include "families/myosuite/myo_env.h"

namespace envfleet {
namespace myosuite {

class ObjHoldEnv : public MyoEnv {
 public:
  static Config DefaultConfig() {
    Config config;
    AddMyoDefaults(config, "");
    config.Set("random_goal_and_size", false);
    return config;
  }

  static EnvSpec Spec(const Config& config) {
    const ModelPtr model = LoadMyoModel(config);
    CheckModel(model.get());
    const mjModel* m = model.get();
    // hand_qpos nq - 7, hand_qvel nv - 6, obj_pos and obj_err 3 each.
    return MyoSpec(config, m, m->nq - 7 + m->nv - 6 + 6 + m->na, Terms());
  }

  ObjHoldEnv(const Config& config, uint64_t seed)
      : MyoEnv(config, seed, LoadMyoModel(config), Terms(),
               {{"goal_dist", 100.0}, {"bonus", 4.0}, {"penalty", 10.0}}) {
    CheckModel(model_);
    object_ = robotics::SiteId(model_, "object");
    goal_ = robotics::SiteId(model_, "goal");
    object_geom_ = model_->ngeom - 1;  // the reference's model.geom_size[-1]
    if (config.Get<bool>("random_goal_and_size")) {
      refresh_.emplace(SourcePath(robotics::ModelPath(config)), model_,
                       model_->geom_bodyid[object_geom_], "xml_file");
      OwnWholeModel();  // the resets resize a geom and refresh the model's derived fields
    }
    mj_forward(model_, data_);
    for (int a = 0; a < 3; ++a) object_init_pos_[a] = data_->site_xpos[3 * object_ + a];
    initial_qpos_.assign(data_->qpos, data_->qpos + model_->nq);
    for (int i = 0; i < model_->nq - 7; ++i) initial_qpos_[i] = 0.0;
    initial_qpos_[0] = -1.5;  // palm up
    initial_qvel_.assign(data_->qvel, data_->qvel + model_->nv);
  }

  void Reset() override {
    ResetState();
    if (refresh_) {
      mjModel* m = own_model();
      for (int a = 0; a < 3; ++a) {
        m->site_pos[3 * goal_ + a] = object_init_pos_[a] + rng().Uniform(-0.030, 0.030);
      }
      double size[3];
      for (double& radius : size) radius = rng().Uniform(0.020, 0.030);
      for (int a = 0; a < 3; ++a) m->geom_size[3 * object_geom_ + a] = size[a];
      refresh_->Refresh(m);
      for (int a = 0; a < 3; ++a) m->site_size[3 * goal_ + a] = size[a];
    }
    mj_forward(model_, data_);
    Evaluate();
  }

  void Write(const OutputSlot& out) const override {
    const int nq = model_->nq, nv = model_->nv;
    double* obs = Put(out.Get<double>(0), data_->qpos, nq - 7);
    for (int i = 0; i < nv - 6; ++i) *obs++ = data_->qvel[i] * dt();
    obs = Put(obs, data_->site_xpos + 3 * object_, 3);
    for (int a = 0; a < 3; ++a) {
      *obs++ = data_->site_xpos[3 * goal_ + a] - data_->site_xpos[3 * object_ + a];
    }
    WriteActAndInfo(obs, out);
  }

 private:
  static std::vector<const char*> Terms() {
    return {"goal_dist", "bonus", "act_reg", "penalty", "sparse"};
  }

  // The object is the model's last body, free (its 7 qpos and 6 qvel values the last), with
  // the model's last geom.
  static void CheckModel(const mjModel* m) {
    const int last = m->njnt - 1;
    if (last < 0 || m->jnt_type[last] != mjJNT_FREE || m->jnt_qposadr[last] != m->nq - 7 ||
        m->ngeom < 1 || m->geom_bodyid[m->ngeom - 1] != m->jnt_bodyid[last]) {
      throw std::invalid_argument(
          "xml_file: ObjHold needs a model whose last joint frees the object that has the "
          "last geom (the hand_hold recipe's)");
    }
    robotics::SiteId(m, "object");
    robotics::SiteId(m, "goal");
  }

  // The spec the model was compiled from: the model file itself, or for a recipe's compiled
  // model (.mjb) the recipe's spec saved beside it (<recipe>.xml).
  static std::string SourcePath(const std::string& path) {
    if (!IsCompiledModel(path)) return path;
    return path.substr(0, path.size() - 4) + ".xml";
  }

  // get_reward_dict.
  void Evaluate() override {
    double err[3];
    for (int a = 0; a < 3; ++a) {
      err[a] = data_->site_xpos[3 * goal_ + a] - data_->site_xpos[3 * object_ + a];
    }
    const double dist = numpy_math::NumpyNorm(err, 3);
    const int na = model_->na;
    const double act_mag = na != 0 ? numpy_math::NumpyNorm(data_->act, na) / na : 0.0;
    constexpr double kGoal = 0.010;
    const bool drop = dist > 0.300;
    const double bonus = 1.0 * (dist < 2 * kGoal) + 1.0 * (dist < kGoal);
    SetTerms({-1.0 * dist, bonus, -1.0 * act_mag, -1.0 * drop, -dist}, dist < kGoal, drop);
  }

  int object_ = -1, goal_ = -1, object_geom_ = -1;
  double object_init_pos_[3] = {0, 0, 0};
  std::optional<BodyRefresh> refresh_;
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_OBJ_HOLD_H_
