// Cartpole (balance, balance_sparse, swingup, swingup_sparse, two_poles, three_poles):
// dm_control 1.0.50's dm_control/suite/cartpole.py on its cartpole.xml. The two- and
// three-pole tasks (swing-up, smooth reward) build their model as cartpole._make_model does:
// a chain of poles appended under the first, the floor lowered and the cameras moved back.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_CARTPOLE_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_CARTPOLE_H_

#include <algorithm>
#include <memory>
#include <string>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class CartpoleEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = 0;
  static Config DefaultConfig() { return DomainDefaults("balance"); }
  static EnvSpec Spec(const Config& config) {
    const int poles = NumPoles(Task(config));
    return TaskSpec(Model(config).get(), {{"position", 1 + 2 * poles}, {"velocity", 1 + poles}},
                    kControlTimestep);
  }

  CartpoleEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, Model(config), kControlTimestep) {
    const int task = Task(config);
    swing_up_ = task >= 2;
    sparse_ = task == 1 || task == 3;
    num_poles_ = NumPoles(task);
    first_pole_ = Id(mjOBJ_BODY, "pole_1");  // the poles are the bodies after the cart
    slider_ = Qpos("slider");
    hinge_ = Qpos("hinge_1");
  }

  void Write(const OutputSlot& out) const override {
    // bounded_position: hstack(cart_position, xmat[2:, ['zz', 'xz']].ravel()); velocity: qvel.
    double* position = out.Get<double>(0);
    *position++ = d()->qpos[slider_];
    for (int k = 0; k < num_poles_; ++k) {
      *position++ = Xmat(first_pole_ + k, 2, 2);
      *position++ = Xmat(first_pole_ + k, 0, 2);
    }
    Put(out.Get<double>(1), d()->qvel, m()->nv);
  }

 protected:
  // Balance.initialize_episode.
  void InitializeEpisode() override {
    constexpr double kPi = 3.141592653589793;
    const int nv = m()->nv;
    double* qpos = d()->qpos;
    if (swing_up_) {
      qpos[slider_] = .01 * random().StandardNormal();
      qpos[hinge_] = kPi + .01 * random().StandardNormal();
      for (int i = 2; i < nv; ++i) qpos[i] = .1 * random().StandardNormal();
    } else {
      qpos[slider_] = random().Uniform(-.1, .1);
      for (int i = 1; i < nv; ++i) qpos[i] = random().Uniform(-.034, .034);
    }
    for (int i = 0; i < nv; ++i) d()->qvel[i] = 0.01 * random().StandardNormal();
  }

  // Balance._get_reward. pole_angle_cosine, control and angular_vel are arrays (one entry per
  // pole, actuator, hinge), cart_position a scalar.
  double GetReward() override {
    const double cart_position = d()->qpos[slider_];
    if (sparse_) {
      const double cart_in_bounds = Tolerance(cart_position, -.25, .25);
      double angle_in_bounds = 1.0;  // .prod() over the poles
      for (int k = 0; k < num_poles_; ++k) {
        angle_in_bounds *= Tolerance(Xmat(first_pole_ + k, 2, 2), .995, 1, 0, Sigmoid::kGaussian,
                                     kDefaultValueAtMargin, Input::kArray);
      }
      return cart_in_bounds * angle_in_bounds;
    }
    double upright[kMaxPoles];  // (pole_angle_cosine + 1) / 2
    for (int k = 0; k < num_poles_; ++k) upright[k] = (Xmat(first_pole_ + k, 2, 2) + 1) / 2;
    double centered = Tolerance(cart_position, 0, 0, /*margin=*/2);
    centered = (1 + centered) / 2;
    double small_control =
        Tolerance(d()->ctrl[0], 0, 0, /*margin=*/1, Sigmoid::kQuadratic, 0, Input::kArray);
    small_control = (4 + small_control) / 5;
    double small_velocity = 1.0;  // .min() over the hinges' velocities
    for (int i = 1; i < m()->nv; ++i) {
      small_velocity =
          std::min(small_velocity, Tolerance(d()->qvel[i], 0, 0, /*margin=*/5, Sigmoid::kGaussian,
                                             kDefaultValueAtMargin, Input::kArray));
    }
    small_velocity = (1 + small_velocity) / 2;
    const double upright_mean = Sum(upright, num_poles_) / num_poles_;
    return upright_mean * small_control * small_velocity * centered;
  }

 private:
  static constexpr int kMaxPoles = 3;

  static int Task(const Config& config) {
    return TaskIndex(
        config, "cartpole",
        {"balance", "balance_sparse", "swingup", "swingup_sparse", "two_poles", "three_poles"});
  }
  static int NumPoles(int task) { return task < 4 ? 1 : task - 2; }

  // cartpole._make_model(n_poles).
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const int n = NumPoles(Task(config));
    if (n == 1) return LoadSuiteModel(config, "cartpole.xml");
    return LoadEditedSuiteModel(
        config, "cartpole.xml", std::to_string(n) + "_poles", [n](mjSpec* spec) {
          const mjsDefault* pole_class = mjs_findDefault(spec, "pole");
          mjsBody* parent = mjs_findBody(spec, "pole_1");
          if (pole_class == nullptr || parent == nullptr) {
            throw std::invalid_argument("cartpole.xml has no pole class or pole_1 body");
          }
          for (int index = 2; index <= n; ++index) {
            // <body name="pole_i" pos="0 0 1" childclass="pole"><joint name="hinge_i"/>
            // <geom name="pole_i"/></body>, appended to the previous pole.
            const std::string i = std::to_string(index);
            mjsBody* child = mjs_addBody(parent, pole_class);
            mjs_setName(child->element, ("pole_" + i).c_str());
            child->pos[0] = 0, child->pos[1] = 0, child->pos[2] = 1;
            mjs_setString(child->childclass, "pole");
            mjs_setName(mjs_addJoint(child, pole_class)->element, ("hinge_" + i).c_str());
            mjs_setName(mjs_addGeom(child, pole_class)->element, ("pole_" + i).c_str());
            parent = child;
          }
          // The floor (the first world geom) moves down, the two cameras back.
          mjs_asGeom(SpecElement(spec, mjOBJ_GEOM, "floor"))->pos[2] = 1 - n - .05;
          mjs_asCamera(SpecElement(spec, mjOBJ_CAMERA, "fixed"))->pos[1] = -1 - 2 * n;
          mjs_asCamera(SpecElement(spec, mjOBJ_CAMERA, "lookatcart"))->pos[1] = -2 * n;
        });
  }

  bool swing_up_ = false, sparse_ = false;
  int num_poles_ = 1, first_pole_ = 0, slider_ = 0, hinge_ = 0;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_CARTPOLE_H_
