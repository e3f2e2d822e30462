// Swimmer (swimmer6, swimmer15): dm_control 1.0.50's dm_control/suite/swimmer.py on its
// swimmer.xml, 15 physics steps of 2 ms per control step. The model is built as
// swimmer._make_model(n_bodies) builds it: a chain of n - 1 segments under the head, each
// with its joint, site, motor, velocimeter and gyro, and the tracking cameras moved back.
#ifndef ENVFLEET_FAMILIES_DM_CONTROL_SWIMMER_H_
#define ENVFLEET_FAMILIES_DM_CONTROL_SWIMMER_H_

#include <memory>
#include <string>

#include "families/dm_control/dm_control_env.h"

namespace envfleet {
namespace dm_control {

class SwimmerEnv : public DmControlEnv {
 public:
  // The control timestep in seconds (0: one physics step per control step).
  static constexpr double kControlTimestep = .03;
  static Config DefaultConfig() { return DomainDefaults("swimmer6"); }
  static EnvSpec Spec(const Config& config) {
    const int n = NumBodies(config);
    const auto model = Model(config);
    return TaskSpec(model.get(),
                    {{"joints", model->nq - 3}, {"to_target", 2}, {"body_velocities", 3 * n}},
                    kControlTimestep);
  }

  SwimmerEnv(const Config& config, uint64_t seed)
      : DmControlEnv(config, seed, Model(config), kControlTimestep),
        num_bodies_(NumBodies(config)),
        target_(Id(mjOBJ_GEOM, "target")),
        nose_(Id(mjOBJ_GEOM, "nose")),
        head_(Id(mjOBJ_BODY, "head")),
        target_light_(Id(mjOBJ_LIGHT, "target_light")) {
    OwnModelField(&mjModel::geom_pos, 3 * m()->ngeom);  // the target's, per episode
    OwnModelField(&mjModel::light_pos, 3 * m()->nlight);
  }

  void Write(const OutputSlot& out) const override {
    Put(out.Get<double>(0), d()->qpos + 3, m()->nq - 3);
    NoseToTarget(out.Get<double>(1));
    // sensordata[12:].reshape((-1, 6))[:, [0, 1, 5]].ravel(): each body's velocimeter x, y
    // and gyro z.
    double* velocities = out.Get<double>(2);
    const double* s = d()->sensordata + 12;
    for (int body = 0; body < num_bodies_; ++body, s += 6) {
      *velocities++ = s[0];
      *velocities++ = s[1];
      *velocities++ = s[5];
    }
  }

 protected:
  void InitializeEpisode() override {
    RandomizeLimitedAndRotationalJoints();
    const bool close_target = random().RandomSample() < .2;
    const double target_box = close_target ? .3 : 2;
    const double xpos = random().Uniform(-target_box, target_box);
    const double ypos = random().Uniform(-target_box, target_box);
    mjModel* model = mutable_model();
    model->geom_pos[3 * target_] = xpos;
    model->geom_pos[3 * target_ + 1] = ypos;
    model->light_pos[3 * target_light_] = xpos;
    model->light_pos[3 * target_light_ + 1] = ypos;
  }

  double GetReward() override {
    const double target_size = m()->geom_size[3 * target_];
    double to_target[2];
    NoseToTarget(to_target);
    return Tolerance(Norm(to_target, 2), 0, target_size, 5 * target_size, Sigmoid::kLongTail);
  }

 private:
  static int NumBodies(const Config& config) {
    return TaskIndex(config, "swimmer", {"swimmer6", "swimmer15"}) == 0 ? 6 : 15;
  }

  // (geom_xpos['target'] - geom_xpos['nose']).dot(xmat['head'].reshape(3, 3))[:2].
  void NoseToTarget(double* out) const {
    double global[3];
    for (int i = 0; i < 3; ++i) {
      global[i] = d()->geom_xpos[3 * target_ + i] - d()->geom_xpos[3 * nose_ + i];
    }
    VectorTimesFrame(global, d()->xmat + 9 * head_, out, 2);
  }

  // swimmer._make_model(n_bodies).
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const int n = NumBodies(config);
    return LoadEditedSuiteModel(
        config, "swimmer.xml", std::to_string(n) + "_bodies", [n](mjSpec* spec) {
          const mjsDefault* swimmer = mjs_findDefault(spec, "swimmer");
          const mjsDefault* visual = mjs_findDefault(spec, "visual");
          const mjsDefault* inertial = mjs_findDefault(spec, "inertial");
          mjsBody* parent = mjs_findBody(spec, "head");
          if (swimmer == nullptr || visual == nullptr || inertial == nullptr || parent == nullptr) {
            throw std::invalid_argument("swimmer.xml lacks its classes or its head body");
          }
          const mjsDefault* main = mjs_getSpecDefault(spec);
          const double joint_limit = 360.0 / n;
          for (int index = 0; index < n - 1; ++index) {
            // <body name="segment_i" pos="0 .1 0">: geoms visual_i (class visual) and
            // inertial_i (class inertial), site site_i, joint joint_i with range +-360/n (the
            // head's childclass, swimmer, for the site and the joint).
            const std::string i = std::to_string(index);
            mjsBody* child = mjs_addBody(parent, swimmer);
            mjs_setName(child->element, ("segment_" + i).c_str());
            child->pos[0] = 0, child->pos[1] = .1, child->pos[2] = 0;
            mjs_setName(mjs_addGeom(child, visual)->element, ("visual_" + i).c_str());
            mjs_setName(mjs_addGeom(child, inertial)->element, ("inertial_" + i).c_str());
            mjs_setName(mjs_addSite(child, swimmer)->element, ("site_" + i).c_str());
            mjsJoint* joint = mjs_addJoint(child, swimmer);
            mjs_setName(joint->element, ("joint_" + i).c_str());
            joint->range[0] = -joint_limit, joint->range[1] = joint_limit;
            // <motor name="motor_i" joint="joint_i"/> (the main class's motor defaults).
            mjsActuator* motor = mjs_addActuator(spec, main);
            mjs_setToMotor(motor);
            mjs_setName(motor->element, ("motor_" + i).c_str());
            motor->trntype = mjTRN_JOINT;
            mjs_setString(motor->target, ("joint_" + i).c_str());
            // <velocimeter name="velocimeter_i" site="site_i"/>, <gyro name="gyro_i" .../>.
            for (const auto& [type, name] :
                 {std::pair{mjSENS_VELOCIMETER, "velocimeter_"}, std::pair{mjSENS_GYRO, "gyro_"}}) {
              mjsSensor* sensor = mjs_addSensor(spec);
              mjs_setName(sensor->element, (name + i).c_str());
              sensor->type = type;
              sensor->objtype = mjOBJ_SITE;
              mjs_setString(sensor->objname, ("site_" + i).c_str());
            }
            parent = child;
          }
          // The head's tracking cameras move away in proportion to the length.
          for (const char* name : {"tracking1", "tracking2"}) {
            mjsCamera* camera = mjs_asCamera(SpecElement(spec, mjOBJ_CAMERA, name));
            if (camera->mode != mjCAMLIGHT_TRACKCOM) continue;
            for (double& p : camera->pos) p = p * (n / 6.0);
          }
        });
  }

  int num_bodies_;
  int target_, nose_, head_, target_light_;
};

}  // namespace dm_control
}  // namespace envfleet

#endif  // ENVFLEET_FAMILIES_DM_CONTROL_SWIMMER_H_
