// envfleet._myosuite: the MyoSuite family (myosuite 3.0.0's musculoskeletal tasks on myo-sim's
// models), linked with libmujoco from the mujoco-core wheel. One env type per task class of
// the reference; ids and their options are in src/envfleet/families/myosuite.py.
#include <mujoco/mujoco.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bind/env_module.h"
#include "bind/error_text.h"
#include "bind/ufunc_loops.h"
#include "common/mujoco/handlers.h"
#include "core/registry.h"
#include "families/myosuite/carried_weight.h"
#include "families/myosuite/key_turn.h"
#include "families/myosuite/leg_reach.h"
#include "families/myosuite/obj_hold.h"
#include "families/myosuite/pen_twirl.h"
#include "families/myosuite/pose.h"
#include "families/myosuite/reach.h"
#include "families/myosuite/torso.h"

namespace envfleet {
namespace {

EnvTypeMap MyoSuiteTypes() {
  EnvTypeMap types;
  types["KeyTurn"] =
      robotics::MakeRobotType<myosuite::KeyTurnEnv>(myosuite::KeyTurnEnv::DefaultConfig());
  types["LegReach"] =
      robotics::MakeRobotType<myosuite::LegReachEnv>(myosuite::LegReachEnv::DefaultConfig());
  types["ObjHold"] =
      robotics::MakeRobotType<myosuite::ObjHoldEnv>(myosuite::ObjHoldEnv::DefaultConfig());
  types["PenTwirl"] =
      robotics::MakeRobotType<myosuite::PenTwirlEnv>(myosuite::PenTwirlEnv::DefaultConfig());
  types["Pose"] = robotics::MakeRobotType<myosuite::PoseEnv>(myosuite::PoseEnv::DefaultConfig());
  types["Torso"] = robotics::MakeRobotType<myosuite::TorsoEnv>(myosuite::TorsoEnv::DefaultConfig());
  types["Reach"] = robotics::MakeRobotType<myosuite::ReachEnv>(myosuite::ReachEnv::DefaultConfig());
  return types;
}

struct MyoSuiteModule {};  // tags this module's Pool type (cpp/bind/env_module.h)

// For the tests: a reset's carried-weight edit (carried_weight.h, mass `weight`) of a compiled
// model given and returned as MJB bytes, which tests/families/myosuite compare, array for
// array, with the reference's model after its reset. (The ExoRandom episodes cannot show the
// refresh: the elbow file bounds the weight's inertia, and the constants mj_setConst
// recomputes are not read after make.)
nanobind::bytes WithCarriedWeight(nanobind::bytes model, const std::string& xml_path,
                                  const std::string& body, double weight) {
  std::unique_ptr<mjModel, void (*)(mjModel*)> m(mj_loadModelBuffer(model.c_str(), model.size()),
                                                 mj_deleteModel);
  if (!m) throw std::invalid_argument("model: not a compiled MuJoCo model (MJB bytes)");
  myosuite::CarriedWeight carried(xml_path, m.get(), body, weight, weight);
  carried.Apply(m.get(), weight);
  std::string out(static_cast<size_t>(mj_sizeModel(m.get())), '\0');
  mj_saveModel(m.get(), nullptr, out.data(), static_cast<int>(out.size()));
  return nanobind::bytes(out.data(), out.size());
}

// For the tests: np.linalg.norm of a float64 vector as the tasks compute it (NumpyNorm).
double NumpyNorm(const std::vector<double>& v) {
  return numpy_math::NumpyNorm(v.data(), static_cast<int64_t>(v.size()));
}

// For the tests: np.exp of a float64 vector as the leg tasks' sigmoid computes it (NpExp).
std::vector<double> NumpyExp(std::vector<double> v) {
  numpy_math::NpExp(v.data(), v.data(), static_cast<int64_t>(v.size()));
  return v;
}

}  // namespace
}  // namespace envfleet

NB_MODULE(_myosuite, m) {
  m.doc() = "envfleet's MyoSuite family: myosuite's musculoskeletal tasks on myo-sim's models.";
  envfleet::InstallMujocoHandlers();
  // NumPy's float32 exp (the muscles' sigmoid) and float64 dot (KeyTurn's norms).
  envfleet::bind::BindUfuncLoops();
  static envfleet::EnvTypeMap types = envfleet::MyoSuiteTypes();
  envfleet::bind::BindEnvModule<envfleet::MyoSuiteModule>(m, types);
  envfleet::bind::RegisterErrorTextTranslator();
  m.def("_with_carried_weight", &envfleet::WithCarriedWeight, nanobind::arg("model"),
        nanobind::arg("xml_path"), nanobind::arg("body"), nanobind::arg("weight"),
        "A reset's carried-weight edit of an MJB model (for the tests).");
  m.def("_numpy_exp", &envfleet::NumpyExp, nanobind::arg("v"),
        "np.exp(v) of a float64 vector as the tasks compute it (for the tests).");
  m.def("_numpy_norm", &envfleet::NumpyNorm, nanobind::arg("v"),
        "np.linalg.norm(v) of a float64 vector as the tasks compute it (for the tests).");
}
