// An environment defined at run time by three plain C functions, so that code compiled
// elsewhere (Numba @cfunc functions, or any C ABI) runs inside the pool's worker threads
// with no GIL and no Python objects, writing into the same output rows as C++ envs.
//
//   int reset(void* state, void* rng, const void* options)
//   int step(void* state, const void* action, void* rng, const void* options,
//            double* reward, uint8_t* terminated)
//   int observe(const void* state, void* const* outputs)   // one pointer per obs/info key
//
// and, optionally, reset, step and observe many envs in one call each (the pool's sweeps call
// them for a group of envs: one call instead of one per env, whose wrapper and indirect call
// otherwise cost about as much as a tiny env's step):
//
//   int64_t reset_many(void* const* states, void* const* rngs, const void* const* options,
//                      int64_t count)
//   int64_t step_many(void* const* states, const void* const* actions, void* const* rngs,
//                     const void* const* options, const uint8_t* skip, double* rewards,
//                     uint8_t* terminated, int64_t count)
//   int64_t observe_many(const void* const* states, char* const* key_bases,
//                        const int64_t* key_row_bytes, int64_t first_row, int64_t count)
//                        // env i's key k at key_bases[k] + (first_row + i) * key_row_bytes[k]
//
// which do for env i = 0, 1, ... what reset, step (writing rewards[i] and terminated[i]; an
// env with skip[i] != 0 is left alone, its slots untouched) and observe do, and return count,
// or the index of the first env whose call raised (code 1; the envs after it are left as they
// were). A definition has step_many and observe_many
// both or neither; reset_many is optional on its own.
//
// `state` is this env's zero-initialised block of state_bytes; `options` is the env's options
// packed in the order they were declared (bool: uint8, int: int64, float: float64, each
// aligned to its size); `rng` is this env's NumpyGenerator, used through the C functions in
// FunctionEnvRng below. A non-zero return code becomes a C++ exception, which the pool
// raises in Python as EnvError naming the env; code 1 means the function raised an exception
// (the convention of the Numba wrappers), other codes are the function's own.
#ifndef ENVFLEET_CORE_FUNCTION_ENV_H_
#define ENVFLEET_CORE_FUNCTION_ENV_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/spec.h"

namespace envfleet {

using FunctionEnvReset = int (*)(void* state, void* rng, const void* options);
using FunctionEnvStep = int (*)(void* state, const void* action, void* rng, const void* options,
                                double* reward, uint8_t* terminated);
using FunctionEnvObserve = int (*)(const void* state, void* const* outputs);
using FunctionEnvResetMany = int64_t (*)(void* const* states, void* const* rngs,
                                         const void* const* options, int64_t count);
using FunctionEnvStepMany = int64_t (*)(void* const* states, const void* const* actions,
                                        void* const* rngs, const void* const* options,
                                        const uint8_t* skip, double* rewards, uint8_t* terminated,
                                        int64_t count);
using FunctionEnvObserveMany = int64_t (*)(const void* const* states, char* const* key_bases,
                                           const int64_t* key_row_bytes, int64_t first_row,
                                           int64_t count);

struct FunctionEnvDef {
  std::string name;
  EnvSpec spec;
  Config defaults;
  std::vector<std::string> option_order;  // the packing order of `options`
  size_t state_bytes = 0;
  FunctionEnvReset reset = nullptr;
  FunctionEnvStep step = nullptr;
  FunctionEnvObserve observe = nullptr;
  FunctionEnvResetMany reset_many = nullptr;  // optional
  FunctionEnvStepMany step_many = nullptr;    // optional, with observe_many
  FunctionEnvObserveMany observe_many = nullptr;
};

// Packs options as the functions read them: in declaration order, each value aligned to its
// own size (the layout of a NumPy structured dtype made with align=True).
inline std::vector<char> PackOptions(const Config& config, const std::vector<std::string>& order) {
  std::vector<char> bytes;
  auto put = [&bytes](const void* value, size_t size) {
    bytes.resize((bytes.size() + size - 1) / size * size);
    const size_t at = bytes.size();
    bytes.resize(at + size);
    std::memcpy(bytes.data() + at, value, size);
  };
  for (const std::string& name : order) {
    const ConfigValue& value = config.values().at(name);
    if (const bool* b = std::get_if<bool>(&value)) {
      const uint8_t v = *b ? 1 : 0;
      put(&v, 1);
    } else if (const int64_t* i = std::get_if<int64_t>(&value)) {
      put(i, 8);
    } else if (const double* d = std::get_if<double>(&value)) {
      put(d, 8);
    } else {
      throw std::invalid_argument("option '" + name + "': function envs take bool, int or float");
    }
  }
  bytes.resize((bytes.size() + 7) / 8 * 8 + 8);  // never empty, 8-byte multiple
  return bytes;
}

class FunctionEnv final : public Env {
 public:
  FunctionEnv(std::shared_ptr<const FunctionEnvDef> def, const Config& config, uint64_t seed)
      : Env(seed),
        def_(std::move(def)),
        options_(PackOptions(config, def_->option_order)),
        state_((def_->state_bytes + 7) / 8 + 1, 0) {
    num_keys_ = def_->spec.obs.size() + def_->spec.info.size();
    if (num_keys_ > kMaxKeys) throw std::invalid_argument("function env: too many obs/info keys");
  }

  void Reset() override { Check(reset_(state_.data(), &rng(), options_.data()), "reset"); }

  void Step(const void* action) override {
    double reward = 0.0;
    uint8_t terminated = 0;
    Check(step_(state_.data(), action, &rng(), options_.data(), &reward, &terminated), "step");
    reward_ = reward;
    terminated_ = terminated != 0;
  }

  // The pool's batched calls (Pool::StepRun) take each env's state, rng and options as
  // pointers (gathered once per pool: PointersOf) and call the definition's functions, which
  // every env of a pool shares (BatchOf), for a stretch of envs at a time.
  struct Pointers {
    void* state;
    void* rng;
    const void* options;
  };
  static Pointers PointersOf(FunctionEnv& env) {
    return {env.state_.data(), &env.rng(), env.options_.data()};
  }
  struct Batch {
    const FunctionEnvDef* def;
    size_t num_keys;
  };
  Batch BatchOf() const { return {def_.get(), num_keys_}; }

  // Resets envs i = 0 .. count): one call of the definition's reset_many when it has one,
  // else its reset per env. Returns count, or sets *error (the message Reset() would throw)
  // and returns the index of the env whose reset failed; the envs after it are not reset.
  static int64_t ResetMany(const Batch& batch, void* const* states, void* const* rngs,
                           const void* const* options, int64_t count, std::string* error) {
    const FunctionEnvDef& def = *batch.def;
    if (def.reset_many != nullptr) {
      const int64_t done = def.reset_many(states, rngs, options, count);
      if (done < count) *error = ErrorMessage(def, 1, "reset");
      return done;
    }
    for (int64_t i = 0; i < count; ++i) {
      const int code = def.reset(states[i], rngs[i], options[i]);
      if (code != 0) {
        *error = ErrorMessage(def, code, "reset");
        return i;
      }
    }
    return count;
  }

  // Steps envs i = 0 .. count) with actions[i], but those with skip[i] != 0: one call of the
  // definition's step_many when it has one, else its step per env; writes rewards[i] and
  // terminated[i] (any non-zero byte: terminated). Returns count, or sets *error (the message
  // Step() would throw) and returns the index of the env whose step failed; the envs after it
  // have not stepped.
  static int64_t StepMany(const Batch& batch, void* const* states, const void* const* actions,
                          void* const* rngs, const void* const* options, const uint8_t* skip,
                          double* rewards, uint8_t* terminated, int64_t count, std::string* error) {
    const FunctionEnvDef& def = *batch.def;
    if (def.step_many != nullptr) {
      const int64_t done =
          def.step_many(states, actions, rngs, options, skip, rewards, terminated, count);
      if (done < count) *error = ErrorMessage(def, 1, "step");
      return done;
    }
    for (int64_t i = 0; i < count; ++i) {
      if (skip[i]) continue;
      const int code =
          def.step(states[i], actions[i], rngs[i], options[i], &rewards[i], &terminated[i]);
      if (code != 0) {
        *error = ErrorMessage(def, code, "step");
        return i;
      }
    }
    return count;
  }

  // Writes envs i = 0 .. count) into rows first_row + i of the output keys at key_bases (a
  // block's env keys). Returns count, or sets *error and returns the index of the env that
  // failed; the envs after it are not written.
  static int64_t WriteMany(const Batch& batch, const void* const* states, char* const* key_bases,
                           const size_t* key_row_bytes, int64_t first_row, int64_t count,
                           std::string* error) {
    const FunctionEnvDef& def = *batch.def;
    if (def.observe_many != nullptr) {
      // size_t and int64_t are one type on the platforms this builds for (a byte count).
      static_assert(sizeof(size_t) == sizeof(int64_t));
      const int64_t done = def.observe_many(
          states, key_bases, reinterpret_cast<const int64_t*>(key_row_bytes), first_row, count);
      if (done < count) *error = ErrorMessage(def, 1, "observe");
      return done;
    }
    void* outputs[kMaxKeys];
    for (int64_t i = 0; i < count; ++i) {
      for (size_t k = 0; k < batch.num_keys; ++k) {
        outputs[k] = key_bases[k] + static_cast<size_t>(first_row + i) * key_row_bytes[k];
      }
      const int code = def.observe(states[i], outputs);
      if (code != 0) {
        *error = ErrorMessage(def, code, "observe");
        return i;
      }
    }
    return count;
  }

  void Write(const OutputSlot& out) const override {
    void* outputs[kMaxKeys];
    for (size_t k = 0; k < num_keys_; ++k) outputs[k] = out.Get<char>(k);
    Check(observe_(state_.data(), outputs), "observe");
  }

 private:
  static constexpr size_t kMaxKeys = 32;

  // Inline and branch-only on success: it runs twice per step of a tiny env.
  void Check(int code, const char* what) const {
    if (code != 0) [[unlikely]]
      Raise(code, what);
  }
  [[noreturn]] __attribute__((noinline)) void Raise(int code, const char* what) const {
    throw std::runtime_error(ErrorMessage(*def_, code, what));
  }
  static std::string ErrorMessage(const FunctionEnvDef& def, int code, const char* what) {
    if (code == 1) {
      return def.name + " " + what +
             " raised an exception (error code 1; replay it uncompiled with "
             "envfleet.python_env.as_gymnasium_env for the traceback)";
    }
    return def.name + " " + what + " returned error code " + std::to_string(code);
  }

  std::shared_ptr<const FunctionEnvDef> def_;
  // The definition's functions, copied here: one pointer load less per call.
  FunctionEnvReset reset_ = def_->reset;
  FunctionEnvStep step_ = def_->step;
  FunctionEnvObserve observe_ = def_->observe;
  std::vector<char> options_;
  std::vector<uint64_t> state_;  // 8-byte aligned
  size_t num_keys_ = 0;
};

// The random-number functions a function env calls with its `rng` pointer (C ABI, so Numba
// can call them from nopython code). They draw from the env's own NumpyGenerator, so a
// Python-authored env makes exactly the draws a Gymnasium env would make.
extern "C" {
inline double envfleet_rng_random(void* rng) { return static_cast<NumpyGenerator*>(rng)->Random(); }
inline double envfleet_rng_uniform(void* rng, double low, double high) {
  return static_cast<NumpyGenerator*>(rng)->Uniform(low, high);
}
inline int64_t envfleet_rng_integers(void* rng, int64_t low, int64_t high) {
  return static_cast<NumpyGenerator*>(rng)->Integers(low, high);
}
inline double envfleet_rng_standard_normal(void* rng) {
  return static_cast<NumpyGenerator*>(rng)->StandardNormal();
}
// Generator.normal(loc, scale) is loc + scale * standard_normal(), one rounding per operation.
inline double envfleet_rng_normal(void* rng, double loc, double scale) {
  return numpy_random_internal::MulAddUnfused(loc, scale,
                                              static_cast<NumpyGenerator*>(rng)->StandardNormal());
}
}

}  // namespace envfleet

#endif  // ENVFLEET_CORE_FUNCTION_ENV_H_
