// _envfleet_testing's ClassicControlEnv: one classic control env (the C++ class of
// cpp/families/classic_control/, constructed directly, without a pool) that Python resets,
// steps and renders, so tests/families/classic_control/test_classic_control_render.py can
// compare each frame of Env::Render() with Gymnasium's render() in the same state, before the
// pool's render() and beside it. Each frame is drawn twice and must come out the same.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/spec.h"
#include "families/classic_control/acrobot.h"
#include "families/classic_control/cartpole.h"
#include "families/classic_control/continuous_mountain_car.h"
#include "families/classic_control/mountain_car.h"
#include "families/classic_control/pendulum.h"

namespace nb = nanobind;

namespace envfleet {
namespace {

// The type's defaults with `options` over them (str, bool, int or float values).
template <typename E>
std::pair<std::unique_ptr<Env>, EnvSpec> Make(uint64_t seed, const nb::dict& options) {
  Config config = E::DefaultConfig();
  for (auto [key, value] : options) {
    const std::string name = nb::cast<std::string>(key);
    if (nb::isinstance<nb::str>(value)) {
      config.Set(name, nb::cast<std::string>(value));
    } else if (nb::isinstance<nb::bool_>(value)) {
      config.Set(name, nb::cast<bool>(value));
    } else if (nb::isinstance<nb::int_>(value)) {
      config.Set(name, nb::cast<int64_t>(value));
    } else {
      config.Set(name, nb::cast<double>(value));
    }
  }
  return {std::make_unique<E>(config, seed), E::Spec(config)};
}

std::pair<std::unique_ptr<Env>, EnvSpec> MakeByName(const std::string& type, uint64_t seed,
                                                    const nb::dict& options) {
  if (type == "CartPole") return Make<classic_control::CartPoleEnv>(seed, options);
  if (type == "MountainCar") return Make<classic_control::MountainCarEnv>(seed, options);
  if (type == "MountainCarContinuous") {
    return Make<classic_control::MountainCarContinuousEnv>(seed, options);
  }
  if (type == "Pendulum") return Make<classic_control::PendulumEnv>(seed, options);
  if (type == "Acrobot") return Make<classic_control::AcrobotEnv>(seed, options);
  throw nb::value_error(("unknown classic control type: " + type).c_str());
}

// One env driven from Python: reset, step, render.
class ClassicControlEnv {
 public:
  ClassicControlEnv(const std::string& type, uint64_t seed, const nb::dict& options) {
    auto made = MakeByName(type, seed, options);
    env_ = std::move(made.first);
    spec_ = std::move(made.second);
  }

  void Reset() { env_->Reset(); }

  void Step(nb::handle a) {
    if (spec_.action.discrete) {
      const int64_t action = nb::cast<int64_t>(a);
      env_->Step(&action);
    } else {
      const float action = nb::cast<float>(a);
      env_->Step(&action);
    }
  }

  // The frame, drawn twice: both must be the same (drawing changes nothing it reads).
  nb::bytes Render() {
    const RenderSpec& r = spec_.render;
    const size_t bytes = static_cast<size_t>(r.width) * r.height * 3;
    frame_.assign(bytes, '\x55');
    again_.assign(bytes, '\xaa');
    env_->Render(-1, r.width, r.height, reinterpret_cast<uint8_t*>(frame_.data()));
    env_->Render(-1, r.width, r.height, reinterpret_cast<uint8_t*>(again_.data()));
    if (frame_ != again_) throw std::runtime_error("drawing the same state twice differed");
    return nb::bytes(frame_.data(), frame_.size());
  }

  nb::tuple RenderSpecTuple() const {
    const RenderSpec& r = spec_.render;
    return nb::make_tuple(r.width, r.height, r.resizable, r.fps, r.num_cameras);
  }

 private:
  std::unique_ptr<Env> env_;
  EnvSpec spec_;
  std::string frame_, again_;
};

}  // namespace

void BindClassicControlTesting(nanobind::module_& m) {
  nb::class_<ClassicControlEnv>(m, "ClassicControlEnv",
                                "A classic control env (cpp/families/classic_control/) without a "
                                "pool: its type's\ndefault options, `options` over them.")
      .def(nb::init<const std::string&, uint64_t, const nb::dict&>(), nb::arg("type"),
           nb::arg("seed"), nb::arg("options") = nb::dict(),
           nb::sig("def __init__(self, type: str, seed: int, options: dict[str, object] = {}) "
                   "-> None"))
      .def("reset", &ClassicControlEnv::Reset)
      .def("step", &ClassicControlEnv::Step, nb::arg("action"),
           nb::sig("def step(self, action: int | float) -> None"),
           "An int for a Discrete action, a float for a one-element Box.")
      .def("render", &ClassicControlEnv::Render,
           "Env::Render()'s frame, spec.render height x width x 3 bytes, rows top first.")
      .def_prop_ro("render_spec", &ClassicControlEnv::RenderSpecTuple,
                   nb::sig("def render_spec(self) -> tuple[int, int, bool, float, int]"),
                   "spec.render: (width, height, resizable, fps, num_cameras).");
}

}  // namespace envfleet
