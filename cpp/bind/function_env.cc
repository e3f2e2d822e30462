// Registration of function envs (cpp/core/function_env.h) from Python: the Numba layer
// compiles an env's reset/step/observe to C functions and hands their addresses here.
#include "core/function_env.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bind/function_env.h"
#include "core/registry.h"

namespace nb = nanobind;

namespace envfleet {
namespace {

ArraySpec ParseArraySpec(const nb::dict& d) {
  ArraySpec spec;
  spec.name = nb::cast<std::string>(d["name"]);
  spec.dtype = DTypeFromName(nb::cast<std::string>(d["dtype"]));
  spec.shape = nb::cast<std::vector<int64_t>>(d["shape"]);
  spec.low = nb::cast<std::vector<double>>(d["low"]);
  spec.high = nb::cast<std::vector<double>>(d["high"]);
  spec.discrete = nb::cast<bool>(d["discrete"]);
  return spec;
}

EnvSpec ParseEnvSpec(const nb::dict& d) {
  EnvSpec spec;
  for (nb::handle key : nb::cast<nb::list>(d["obs"]))
    spec.obs.push_back(ParseArraySpec(nb::cast<nb::dict>(key)));
  for (nb::handle key : nb::cast<nb::list>(d["info"]))
    spec.info.push_back(ParseArraySpec(nb::cast<nb::dict>(key)));
  spec.action = ParseArraySpec(nb::cast<nb::dict>(d["action"]));
  const std::string layout = nb::cast<std::string>(d["obs_layout"]);
  spec.obs_layout = layout == "tuple"  ? ObsLayout::kTuple
                    : layout == "dict" ? ObsLayout::kDict
                                       : ObsLayout::kSingle;
  return spec;
}

void RegisterFunctionEnv(EnvTypeMap& types, const std::string& name, const nb::dict& spec,
                         const nb::dict& options, const std::vector<std::string>& option_order,
                         size_t state_bytes, uintptr_t reset, uintptr_t step, uintptr_t observe,
                         uintptr_t step_many, uintptr_t observe_many, uintptr_t reset_many) {
  if (reset == 0 || step == 0 || observe == 0) throw nb::value_error("null function address");
  if ((step_many == 0) != (observe_many == 0)) {
    throw nb::value_error("step_many and observe_many come together (or neither)");
  }
  auto def = std::make_shared<FunctionEnvDef>();
  def->name = name;
  def->spec = ParseEnvSpec(spec);
  for (const std::string& option : option_order) {
    nb::handle value = options[option.c_str()];
    if (nb::isinstance<bool>(value)) {
      def->defaults.Set(option, nb::cast<bool>(value));
    } else if (nb::isinstance<nb::int_>(value)) {
      def->defaults.Set(option, nb::cast<int64_t>(value));
    } else if (nb::isinstance<nb::float_>(value)) {
      def->defaults.Set(option, nb::cast<double>(value));
    } else {
      throw nb::type_error(
          ("option '" + option + "': function envs take bool, int or float").c_str());
    }
  }
  def->option_order = option_order;
  def->state_bytes = state_bytes;
  def->reset = reinterpret_cast<FunctionEnvReset>(reset);
  def->step = reinterpret_cast<FunctionEnvStep>(step);
  def->observe = reinterpret_cast<FunctionEnvObserve>(observe);
  def->reset_many = reinterpret_cast<FunctionEnvResetMany>(reset_many);  // 0: none
  def->step_many = reinterpret_cast<FunctionEnvStepMany>(step_many);
  def->observe_many = reinterpret_cast<FunctionEnvObserveMany>(observe_many);
  std::shared_ptr<const FunctionEnvDef> shared = def;
  EnvType type = MakeCheckedType(
      def->defaults, [shared](const Config&) { return shared->spec; },
      [shared](const Config& config, uint64_t seed) -> std::unique_ptr<Env> {
        return std::make_unique<FunctionEnv>(shared, config, seed);
      });
  type.kernels = Pool::Kernels::Of<FunctionEnv>();  // the factory builds only FunctionEnvs
  types[name] = std::move(type);
}

}  // namespace

void BindFunctionEnv(nb::module_& m, EnvTypeMap& types) {
  m.def(
      "register_function_env",
      [&types](const std::string& name, const nb::dict& spec, const nb::dict& options,
               const std::vector<std::string>& option_order, size_t state_bytes, uintptr_t reset,
               uintptr_t step, uintptr_t observe, uintptr_t step_many, uintptr_t observe_many,
               uintptr_t reset_many) {
        RegisterFunctionEnv(types, name, spec, options, option_order, state_bytes, reset, step,
                            observe, step_many, observe_many, reset_many);
      },
      nb::arg("name"), nb::arg("spec"), nb::arg("options"), nb::arg("option_order"),
      nb::arg("state_bytes"), nb::arg("reset"), nb::arg("step"), nb::arg("observe"),
      nb::arg("step_many") = 0, nb::arg("observe_many") = 0, nb::arg("reset_many") = 0,
      "Registers an env type whose reset/step/observe (and optionally step_many with\n"
      "observe_many, and reset_many; 0 for none) are C functions at these addresses (see\n"
      "cpp/core/function_env.h for their signatures).");
  m.def(
      "rng_function_addresses",
      [] {
        nb::dict out;
        out["random"] = reinterpret_cast<uintptr_t>(&envfleet_rng_random);
        out["uniform"] = reinterpret_cast<uintptr_t>(&envfleet_rng_uniform);
        out["integers"] = reinterpret_cast<uintptr_t>(&envfleet_rng_integers);
        out["standard_normal"] = reinterpret_cast<uintptr_t>(&envfleet_rng_standard_normal);
        out["normal"] = reinterpret_cast<uintptr_t>(&envfleet_rng_normal);
        return out;
      },
      "Addresses of the C functions a function env draws random numbers with.");
}

}  // namespace envfleet
