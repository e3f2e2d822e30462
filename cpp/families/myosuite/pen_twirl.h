// myosuite 3.0.0's PenTwirlFixedEnvV0 and PenTwirlRandomEnvV0
// (myosuite/envs/myo/tasks/basic/hand/pen.py): turn a pen in the hand to a target pen's
// orientation, keeping it in the grasp zone. The ids myo{,Sarc,Fati,Reaf}HandPenTwirl*-v0
// (EnvPool's names), on the model of the reference's hand_pen recipe (the legacy hand, a free
// pen, its grasp zone `eps_ball` and a static target pen, recipes.py).
//
//   options:  target_orientation ("fixed": the target as the model has it; "random": its
//             orientation drawn at every reset, the Random ids);
//   reset:    mj_resetData, the hand's joints at 0 but the first at -1.5 (palm up), the pen at
//             the model's qpos0; "random": two Euler angles drawn in [-1, 1] (the third 0) and
//             the target's body_quat set from them (euler2quat); mj_forward;
//   obs:      hand_jnt (qpos but the pen's 6), obj_pos (the pen body's position), obj_vel (the
//             pen's 6 velocities * dt), obj_rot and obj_des_rot (each pen's axis: its top site
//             minus its bottom site over the pen's length), obj_err_pos (obj_pos minus the
//             grasp zone's centre), obj_err_rot (obj_rot - obj_des_rot), act;
//   reward:   with p = |obj_err_pos| and c = the cosine of the two axes: pos_align = -p,
//             rot_align = c, act_reg = -|act| / na, drop = -[p > 0.075],
//             bonus = [c > 0.9][p < 0.075] + 5 [c > 0.95][p < 0.075], sparse = c - p, weighted
//             by weighted_reward_keys (default pos_align 1, rot_align 1, act_reg 5, drop 5,
//             bonus 10); solved c > 0.95 and not dropped; done p > 0.075.
//
// The lengths and |obj_err_pos| are np.linalg.norm with no axis (NumPy's dot: NumpyNorm); the
// cosine is calculate_cosine: einsum of the axes (NpEinsumDot) over the product of their
// norms along the last axis (pairwise sums).
#ifndef ENVFLEET_FAMILIES_MYOSUITE_PEN_TWIRL_H_
#define ENVFLEET_FAMILIES_MYOSUITE_PEN_TWIRL_H_

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "families/myosuite/myo_env.h"

namespace envfleet {
namespace myosuite {

class PenTwirlEnv : public MyoEnv {
 public:
  static Config DefaultConfig() {
    Config config;
    AddMyoDefaults(config, "");
    config.Set("target_orientation", std::string("fixed"));
    return config;
  }

  static EnvSpec Spec(const Config& config) {
    const ModelPtr model = LoadMyoModel(config);
    CheckModel(model.get());
    ReadRandomTarget(config);
    const mjModel* m = model.get();
    // hand_jnt: nq - 6; obj_pos 3, obj_vel 6, obj_rot, obj_des_rot, obj_err_pos, obj_err_rot 3.
    return MyoSpec(config, m, m->nq - 6 + 21 + m->na, Terms());
  }

  PenTwirlEnv(const Config& config, uint64_t seed)
      : MyoEnv(config, seed, LoadMyoModel(config), Terms(),
               {{"pos_align", 1.0},
                {"rot_align", 1.0},
                {"act_reg", 5.0},
                {"drop", 5.0},
                {"bonus", 10.0}}),
        random_target_(ReadRandomTarget(config)) {
    CheckModel(model_);
    target_ = robotics::NameId(model_, mjOBJ_BODY, "body", "target");
    pen_ = robotics::NameId(model_, mjOBJ_BODY, "body", "Object");
    eps_ball_ = robotics::SiteId(model_, "eps_ball");
    pen_top_ = robotics::SiteId(model_, "object_top");
    pen_bottom_ = robotics::SiteId(model_, "object_bottom");
    target_top_ = robotics::SiteId(model_, "target_top");
    target_bottom_ = robotics::SiteId(model_, "target_bottom");
    pen_length_ = SiteDistance(model_, pen_top_, pen_bottom_);
    target_length_ = SiteDistance(model_, target_top_, target_bottom_);
    if (random_target_) OwnBodyQuat();
    mj_forward(model_, data_);
    initial_qpos_.assign(data_->qpos, data_->qpos + model_->nq);
    for (int i = 0; i < model_->nq - 6; ++i) initial_qpos_[i] = 0.0;
    initial_qpos_[0] = -1.5;  // palm up
    initial_qvel_.assign(data_->qvel, data_->qvel + model_->nv);
  }

  void Reset() override {
    ResetState();
    if (random_target_) {
      const double x = rng().Uniform(-1.0, 1.0);
      const double y = rng().Uniform(-1.0, 1.0);
      EulerToQuat(x, y, 0.0, own_model()->body_quat + 4 * target_);
    }
    mj_forward(model_, data_);
    Evaluate();
  }

  void Write(const OutputSlot& out) const override {
    const int nq = model_->nq, nv = model_->nv;
    double* obs = Put(out.Get<double>(0), data_->qpos, nq - 6);
    const double* pen_pos = data_->xpos + 3 * pen_;
    obs = Put(obs, pen_pos, 3);
    for (int i = nv - 6; i < nv; ++i) *obs++ = data_->qvel[i] * dt();
    double rot[3], des_rot[3];
    Axes(rot, des_rot);
    obs = Put(obs, rot, 3);
    obs = Put(obs, des_rot, 3);
    for (int a = 0; a < 3; ++a) *obs++ = pen_pos[a] - data_->site_xpos[3 * eps_ball_ + a];
    for (int a = 0; a < 3; ++a) *obs++ = rot[a] - des_rot[a];
    WriteActAndInfo(obs, out);
  }

 private:
  static std::vector<const char*> Terms() {
    return {"pos_align", "rot_align", "act_reg", "drop", "bonus", "sparse"};
  }

  // The pen is the model's last body with joints: its 6 (three slides, three hinges) are the
  // last qpos and qvel values.
  static void CheckModel(const mjModel* m) {
    const int pen = mj_name2id(m, mjOBJ_BODY, "Object");
    if (pen < 0 || m->body_jntnum[pen] != 6 || m->nq < 6 ||
        m->jnt_qposadr[m->body_jntadr[pen]] != m->nq - 6) {
      throw std::invalid_argument(
          "xml_file: PenTwirl needs a model whose last 6 joints are the pen's (a body "
          "'Object'; the hand_pen recipe's)");
    }
    robotics::NameId(m, mjOBJ_BODY, "body", "target");
    for (const char* site :
         {"eps_ball", "object_top", "object_bottom", "target_top", "target_bottom"}) {
      robotics::SiteId(m, site);
    }
  }

  static bool ReadRandomTarget(const Config& config) {
    const std::string& kind = config.Get<std::string>("target_orientation");
    if (kind != "fixed" && kind != "random") {
      throw std::invalid_argument("target_orientation must be 'fixed' or 'random', got '" + kind +
                                  "'");
    }
    return kind == "random";
  }

  // np.linalg.norm(model.site_pos[a] - model.site_pos[b]).
  static double SiteDistance(const mjModel* m, int a, int b) {
    double d[3];
    for (int k = 0; k < 3; ++k) d[k] = m->site_pos[3 * a + k] - m->site_pos[3 * b + k];
    return numpy_math::NumpyNorm(d, 3);
  }

  // quat_math.euler2quat of (x, y, z): intrinsic X-Y'-Z'' angles (scipy "XYZ"), as the
  // reference computes it.
  static void EulerToQuat(double x, double y, double z, double* quat) {
    const double ai = z / 2, aj = -y / 2, ak = x / 2;
    const double si = std::sin(ai), sj = std::sin(aj), sk = std::sin(ak);
    const double ci = std::cos(ai), cj = std::cos(aj), ck = std::cos(ak);
    const double cc = ci * ck, cs = ci * sk, sc = si * ck, ss = si * sk;
    quat[0] = cj * cc + sj * ss;
    quat[3] = cj * sc - sj * cs;
    quat[2] = -(cj * ss + sj * cc);
    quat[1] = cj * cs - sj * sc;
  }

  // obj_rot and obj_des_rot.
  void Axes(double* rot, double* des_rot) const {
    for (int a = 0; a < 3; ++a) {
      rot[a] = (data_->site_xpos[3 * pen_top_ + a] - data_->site_xpos[3 * pen_bottom_ + a]) /
               pen_length_;
      des_rot[a] =
          (data_->site_xpos[3 * target_top_ + a] - data_->site_xpos[3 * target_bottom_ + a]) /
          target_length_;
    }
  }

  // np.linalg.norm(v, axis=-1) of a 3-vector: sqrt of the squares added in order.
  static double AxisNorm(const double* v) {
    return std::sqrt(numpy_math::PairwiseSum<double>([v](int64_t i) { return v[i] * v[i]; }, 0, 3));
  }

  // get_reward_dict.
  void Evaluate() override {
    double rot[3], des_rot[3], pos_err[3];
    Axes(rot, des_rot);
    for (int a = 0; a < 3; ++a) {
      pos_err[a] = data_->xpos[3 * pen_ + a] - data_->site_xpos[3 * eps_ball_ + a];
    }
    const double pos_align = numpy_math::NumpyNorm(pos_err, 3);
    double norm_product = AxisNorm(rot) * AxisNorm(des_rot);  // calculate_cosine
    if (norm_product == 0) norm_product = 1.0;
    const double rot_align = numpy_math::NpEinsumDot(rot, des_rot, 3) / norm_product;
    const bool dropped = pos_align > 0.075;
    const int na = model_->na;
    const double act_mag = na != 0 ? numpy_math::NumpyNorm(data_->act, na) / na : 0.0;
    const double held = 1.0 * (pos_align < 0.075);
    const double bonus = 1.0 * (rot_align > 0.9) * held + 5.0 * (rot_align > 0.95) * held;
    SetTerms({-1.0 * pos_align, rot_align, -1.0 * act_mag, -1.0 * dropped, bonus,
              -1.0 * pos_align + rot_align},
             rot_align > 0.95 && !dropped, dropped);
  }

  bool random_target_;
  int target_ = -1, pen_ = -1, eps_ball_ = -1;
  int pen_top_ = -1, pen_bottom_ = -1, target_top_ = -1, target_bottom_ = -1;
  double pen_length_ = 1, target_length_ = 1;
};

}  // namespace myosuite
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_MYOSUITE_PEN_TWIRL_H_
