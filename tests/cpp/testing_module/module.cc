// _envfleet_testing: envfleet's test-only extension module, built by tests/cpp/CMakeLists.txt
// and never shipped. It holds what the Python tests need beyond the public surface:
//   action_queue_stress, semaphore_stress, parallel_for_check   (core_stress.cc)
//   numpy_generator_draws                                       (numpy_random_draws.cc)
//   numpy_random_state_draws, dm_control_tolerance,             (numpy_random_state_draws.cc)
//   scipy_zoom_cubic
//   render2d_draw                                               (render2d_draw.cc)
//   cpython_set_order, cpython_pair_hash, wfc_pattern_catalog   (minigrid_wfc.cc)
//   ClassicControlEnv                                           (classic_control_env.cc)
//   StagedXlaPool: env.xla()'s GPU staging over a real pool,    (xla_staging.cc)
//     with a fake device
//   env_types, env_spec, Pool, raw_step_rate over its own env types, through the shipped
//   binding template (cpp/bind/env_module.h): AtariResizeCheck (atari_resize_check.h)
// Tests register task ids for these types with Family("testing", module="_envfleet_testing").
#include <nanobind/nanobind.h>

#include "bind/env_module.h"
#include "core/registry.h"
#include "testing_module/atari_resize_check.h"

namespace envfleet {
void BindNumpyRandomTesting(nanobind::module_& m);
void BindNumpyRandomStateTesting(nanobind::module_& m);
void BindCoreTesting(nanobind::module_& m);
void BindRender2dTesting(nanobind::module_& m);
void BindClassicControlTesting(nanobind::module_& m);
void BindXlaStagingTesting(nanobind::module_& m);
void BindMinigridWfcTesting(nanobind::module_& m);
}  // namespace envfleet

namespace {
struct TestingModule {};  // tags this module's Pool type (cpp/bind/env_module.h)
}  // namespace

NB_MODULE(_envfleet_testing, m) {
  m.doc() = "envfleet's test-only hooks and fixture env types (tests/cpp/testing_module).";
  envfleet::BindNumpyRandomTesting(m);
  envfleet::BindNumpyRandomStateTesting(m);
  envfleet::BindCoreTesting(m);
  envfleet::BindRender2dTesting(m);
  envfleet::BindClassicControlTesting(m);
  envfleet::BindXlaStagingTesting(m);
  envfleet::BindMinigridWfcTesting(m);
  static envfleet::EnvTypeMap types = {
      {"AtariResizeCheck", envfleet::MakeEnvType<envfleet::testing::AtariResizeCheckEnv>()}};
  envfleet::bind::BindEnvModule<TestingModule>(m, types);
}
