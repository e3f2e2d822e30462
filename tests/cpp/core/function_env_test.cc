// cpp/core/function_env.h: options packed as an aligned struct, the three C functions driven
// as an Env, error codes turned into exceptions, and the C rng functions drawing from the
// env's own NumpyGenerator.
#include "core/function_env.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "common/numpy/math.h"

namespace envfleet {
namespace {

template <typename T>
T At(const std::vector<char>& bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

TEST(FunctionEnv, OptionsArePackedInOrderEachAlignedToItsSize) {
  const Config config = {{"flag", true}, {"n", int64_t{-7}}, {"x", 2.5}, {"on", false}};
  const std::vector<char> bytes = PackOptions(config, {"flag", "n", "x", "on"});
  // flag @0, padding to 8, n @8, x @16, on @24; then rounded up to 8 plus 8 spare bytes.
  CHECK_EQ(bytes.size(), 40u);
  CHECK_EQ(At<uint8_t>(bytes, 0), 1);
  CHECK_EQ(At<int64_t>(bytes, 8), -7);
  CHECK_EQ(At<double>(bytes, 16), 2.5);
  CHECK_EQ(At<uint8_t>(bytes, 24), 0);
  // Another order: two bools share the first bytes.
  const std::vector<char> other = PackOptions(config, {"on", "flag", "x"});
  CHECK_EQ(At<uint8_t>(other, 0), 0);
  CHECK_EQ(At<uint8_t>(other, 1), 1);
  CHECK_EQ(At<double>(other, 8), 2.5);
  CHECK_EQ(other.size(), 24u);
}

TEST(FunctionEnv, PackingNoOptionsGivesANonEmptyBuffer) {
  const std::vector<char> bytes = PackOptions(Config{}, {});
  CHECK_EQ(bytes.size(), 8u);  // never empty: data() is always a valid pointer
}

TEST(FunctionEnv, PackingRejectsOptionsOfOtherKinds) {
  const Config config = {{"name", std::string("x")}, {"w", std::vector<double>{1.0}}};
  CHECK_THROWS_WITH(std::invalid_argument, "'name'", PackOptions(config, {"name"}));
  CHECK_THROWS_WITH(std::invalid_argument, "'w'", PackOptions(config, {"w"}));
}

// state: [int64 steps, double last draw]; options: [int64 limit]; obs float64[2].
int CountReset(void* state, void* rng, const void*) {
  auto* s = static_cast<int64_t*>(state);
  s[0] = 0;
  const double u = envfleet_rng_random(rng);
  std::memcpy(&s[1], &u, sizeof(u));
  return 0;
}
int CountStep(void* state, const void* action, void* rng, const void* options, double* reward,
              uint8_t* terminated) {
  auto* s = static_cast<int64_t*>(state);
  const int64_t a = *static_cast<const int64_t*>(action);
  if (a == 7) return 7;  // the function's own error code
  if (a == 1) return 1;  // "raised an exception" (the Numba convention)
  ++s[0];
  const double u = envfleet_rng_uniform(rng, -1.0, 1.0);
  std::memcpy(&s[1], &u, sizeof(u));
  *reward = static_cast<double>(a);
  *terminated = s[0] >= *static_cast<const int64_t*>(options);
  return 0;
}
int CountObserve(const void* state, void* const* outputs) {
  const auto* s = static_cast<const int64_t*>(state);
  auto* obs = static_cast<double*>(outputs[0]);
  obs[0] = static_cast<double>(s[0]);
  std::memcpy(&obs[1], &s[1], sizeof(double));
  return 0;
}

std::shared_ptr<FunctionEnvDef> CountDef() {
  auto def = std::make_shared<FunctionEnvDef>();
  def->name = "Count";
  def->spec.obs = {Box("obs", DType::kFloat64, {2}, {}, {})};
  def->spec.action = Discrete("action", 10);
  def->defaults = {{"limit", int64_t{2}}};
  def->option_order = {"limit"};
  def->state_bytes = 16;
  def->reset = CountReset;
  def->step = CountStep;
  def->observe = CountObserve;
  return def;
}

TEST(FunctionEnv, RunsTheFunctionsAsAnEnvWithItsOwnStream) {
  auto def = CountDef();
  FunctionEnv env(def, def->defaults, 42);
  NumpyGenerator reference(42);
  double obs[2] = {-1, -1};
  char* bases[] = {reinterpret_cast<char*>(obs)};
  const size_t row_bytes[] = {sizeof(obs)};
  const OutputSlot slot(bases, row_bytes, 0);
  env.Reset();
  env.Write(slot);
  CHECK_EQ(obs[0], 0.0);
  CHECK_EQ(obs[1], reference.Random());
  const int64_t action = 3;
  env.Step(&action);
  env.Write(slot);
  CHECK_EQ(env.reward(), 3.0);
  CHECK(!env.terminated());
  CHECK_EQ(obs[0], 1.0);
  CHECK_EQ(obs[1], reference.Uniform(-1.0, 1.0));
  env.Step(&action);
  CHECK(env.terminated());  // limit 2, read from the packed options
}

// The optional batched functions, over CountStep/CountObserve's env layout.
int64_t CountStepMany(void* const* states, const void* const* actions, void* const* rngs,
                      const void* const* options, const uint8_t* skip, double* rewards,
                      uint8_t* terminated, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (skip[i]) continue;
    if (CountStep(states[i], actions[i], rngs[i], options[i], &rewards[i], &terminated[i]) != 0) {
      return i;
    }
  }
  return count;
}
int64_t CountObserveMany(const void* const* states, char* const* key_bases,
                         const int64_t* key_row_bytes, int64_t first_row, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    void* output = key_bases[0] + (first_row + i) * key_row_bytes[0];  // its one key
    if (CountObserve(states[i], &output) != 0) return i;
  }
  return count;
}

int64_t CountResetMany(void* const* states, void* const* rngs, const void* const* options,
                       int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (CountReset(states[i], rngs[i], options[i]) != 0) return i;
  }
  return count;
}

TEST(FunctionEnv, BatchedCallsStepResetAndObserveUntilTheFirstFailure) {
  // With and without the definition's reset_many/step_many/observe_many: the same results; a
  // skipped env is left alone, and an env that raises stops the call there, the envs before
  // it stepped, the ones after not.
  for (bool batched : {false, true}) {
    auto def = CountDef();
    def->defaults = {{"limit", int64_t{100}}};
    if (batched) {
      def->reset_many = CountResetMany;
      def->step_many = CountStepMany;
      def->observe_many = CountObserveMany;
    }
    std::vector<std::unique_ptr<FunctionEnv>> owned;
    void* states[4];
    void* rngs[4];
    const void* options[4];
    for (uint64_t seed = 0; seed < 4; ++seed) {
      owned.push_back(std::make_unique<FunctionEnv>(def, def->defaults, seed));
      owned.back()->Reset();
      const FunctionEnv::Pointers pointers = FunctionEnv::PointersOf(*owned.back());
      states[seed] = pointers.state;
      rngs[seed] = pointers.rng;
      options[seed] = pointers.options;
    }
    const FunctionEnv::Batch calls = owned[0]->BatchOf();
    const int64_t action_values[4] = {3, 4, 1, 5};  // 1: "raised an exception"
    const void* actions[4];
    for (int i = 0; i < 4; ++i) actions[i] = &action_values[i];
    const uint8_t skip[4] = {0, 1, 0, 0};
    double rewards[4] = {0, 0, 0, 0};
    uint8_t terminated[4] = {7, 7, 7, 7};
    std::string error;
    CHECK_EQ(FunctionEnv::StepMany(calls, states, actions, rngs, options, skip, rewards, terminated,
                                   4, &error),
             2);
    CHECK(check::Contains(error, "Count step raised an exception"));
    CHECK_EQ(rewards[0], 3.0);
    CHECK_EQ(terminated[0], 0);
    CHECK_EQ(rewards[1], 0.0);  // skipped: untouched
    CHECK_EQ(terminated[1], 7);
    CHECK_EQ(rewards[2], 0.0);  // the failed env's, and after it: untouched
    CHECK_EQ(terminated[3], 7);
    error.clear();
    CHECK_EQ(FunctionEnv::StepMany(calls, states + 3, actions + 3, rngs + 3, options + 3, skip + 3,
                                   rewards + 3, terminated + 3, 1, &error),
             1);
    CHECK_EQ(rewards[3], 5.0);
    CHECK(error.empty());

    double obs[4][2];
    char* bases[] = {reinterpret_cast<char*>(obs)};
    const size_t row_bytes[] = {sizeof(obs[0])};
    CHECK_EQ(FunctionEnv::WriteMany(calls, states, bases, row_bytes, 0, 2, &error), 2);
    CHECK_EQ(FunctionEnv::WriteMany(calls, states + 3, bases, row_bytes, 3, 1, &error), 1);
    CHECK(error.empty());
    CHECK_EQ(obs[0][0], 1.0);
    CHECK_EQ(obs[1][0], 0.0);  // skipped
    CHECK_EQ(obs[3][0], 1.0);
    NumpyGenerator reference(3);
    reference.Random();  // its reset
    CHECK_EQ(obs[3][1], reference.Uniform(-1.0, 1.0));

    // Envs 0 and 3 start new episodes: their counts go back to 0, with a fresh draw each.
    void* const resetting_states[] = {states[0], states[3]};
    void* const resetting_rngs[] = {rngs[0], rngs[3]};
    const void* const resetting_options[] = {options[0], options[3]};
    CHECK_EQ(FunctionEnv::ResetMany(calls, resetting_states, resetting_rngs, resetting_options, 2,
                                    &error),
             2);
    CHECK_EQ(FunctionEnv::WriteMany(calls, resetting_states, bases, row_bytes, 0, 2, &error), 2);
    CHECK_EQ(obs[0][0], 0.0);
    CHECK_EQ(obs[1][0], 0.0);
    CHECK_EQ(obs[1][1], reference.Random());  // env 3's draw after its step's
  }
}

TEST(FunctionEnv, NonZeroReturnCodesBecomeExceptionsNamingTheEnv) {
  auto def = CountDef();
  FunctionEnv env(def, def->defaults, 0);
  env.Reset();
  const int64_t own = 7, raised = 1;
  CHECK_THROWS_WITH(std::runtime_error, "Count step returned error code 7", env.Step(&own));
  CHECK_THROWS_WITH(std::runtime_error, "Count step raised an exception", env.Step(&raised));
}

TEST(FunctionEnv, TooManyKeysAreRejected) {
  auto def = CountDef();
  for (int i = 0; i < 40; ++i) def->spec.info.push_back(Box("i", DType::kFloat64, {}, {}, {}));
  CHECK_THROWS(std::invalid_argument, FunctionEnv(def, def->defaults, 0));
}

TEST(FunctionEnv, TheCRngFunctionsDrawLikeTheGenerator) {
  NumpyGenerator a(9), b(9);
  CHECK_EQ(envfleet_rng_random(&a), b.Random());
  CHECK_EQ(envfleet_rng_uniform(&a, 2.0, 5.0), b.Uniform(2.0, 5.0));
  CHECK_EQ(envfleet_rng_integers(&a, -3, 40), b.Integers(-3, 40));
  CHECK_EQ(envfleet_rng_standard_normal(&a), b.StandardNormal());
  // normal(loc, scale): loc + scale * z, rounded twice (never one fused multiply-add).
  const double z = b.StandardNormal();
  const double expected = 0.1 + numpy_math::Opaque(0.3 * z);
  CHECK_EQ(envfleet_rng_normal(&a, 0.1, 0.3), expected);
  CHECK_EQ(a.NextUint64(), b.NextUint64());  // both streams are at the same place
}

}  // namespace
}  // namespace envfleet
