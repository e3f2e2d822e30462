// Bit-exact C++ twin of the random stream Gymnasium gives an env:
//   gymnasium.utils.seeding.np_random(seed)
//     == np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
// Only the draws Gymnasium envs make are mirrored. Every method names the numpy function it
// reproduces; the ground truth is the installed numpy, checked by
// tests/core/test_numpy_random.py.
#ifndef ENVFLEET_COMMON_NUMPY_RANDOM_H_
#define ENVFLEET_COMMON_NUMPY_RANDOM_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

#include "common/numpy/math.h"
#include "common/numpy/ziggurat_constants.h"

namespace envfleet {

namespace numpy_random_internal {

// __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit integer.
__extension__ typedef unsigned __int128 uint128;

// numpy/random/bit_generator.pyx: SeedSequence hashing constants (pool_size = 4).
constexpr uint32_t kInitA = 0x43b0d7e5u;
constexpr uint32_t kMultA = 0x931e8875u;
constexpr uint32_t kInitB = 0x8b51f9ddu;
constexpr uint32_t kMultB = 0x58f38dedu;
constexpr uint32_t kMixMultL = 0xca01f9ddu;
constexpr uint32_t kMixMultR = 0x4973f715u;
constexpr int kXShift = 16;  // uint32 bits / 2
constexpr int kPoolSize = 4;

// numpy/random/src/pcg64/pcg64.h: PCG_DEFAULT_MULTIPLIER_128.
constexpr uint128 kPcgMultiplier =
    (static_cast<uint128>(2549297995355413924ULL) << 64) + 4865540595714422341ULL;

// SeedSequence's hashmix(): mutates the running hash constant.
inline uint32_t HashMix(uint32_t value, uint32_t* hash_const) {
  value ^= *hash_const;
  *hash_const *= kMultA;
  value *= *hash_const;
  value ^= value >> kXShift;
  return value;
}

// SeedSequence's mix().
inline uint32_t Mix(uint32_t x, uint32_t y) {
  uint32_t result = kMixMultL * x - kMixMultR * y;
  result ^= result >> kXShift;
  return result;
}

// numpy/random/_common.pyx: kahan_sum, the compensated sum Generator.choice checks p with.
inline double KahanSum(const double* values, size_t n) {
  if (n == 0) return 0.0;
  double sum = values[0];
  double c = 0.0;
  for (size_t i = 1; i < n; ++i) {
    const double y = values[i] - c;
    const double t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum;
}

// Generator.choice's tolerance on sum(p) - 1: np.sqrt(np.finfo(np.float64).eps), 2**-26.
constexpr double kProbabilityTolerance = 1.4901161193847656e-08;

// numpy's random_uniform() evaluates `lower + range * u` with two roundings. Keep the product
// opaque so the compiler cannot fuse it into an FMA when FMA is enabled (-march=native, -mfma).
inline double MulAddUnfused(double lower, double range, double u) {
  return lower + numpy_math::Opaque(range * u);
}

}  // namespace numpy_random_internal

// np.random.SeedSequence(seed).generate_state(n) as n uint32 words, for an integer seed of at
// most 64 bits: the seed is split into little-endian uint32 words (0 -> [0]) and mixed into a
// 4-word pool (mix_entropy), from which the words are hashed out. PCG64(SeedSequence(seed))
// takes 8 words; ale-py's seed_game takes 2.
inline void SeedSequenceGenerateState(uint64_t seed, uint32_t* out, int n) {
  using namespace numpy_random_internal;
  const uint32_t entropy[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  const int entropy_len = entropy[1] != 0 ? 2 : 1;  // never exceeds kPoolSize: no extra mix pass

  // SeedSequence.mix_entropy().
  uint32_t pool[kPoolSize];
  uint32_t hash_const = kInitA;
  for (int i = 0; i < kPoolSize; ++i) {
    pool[i] = HashMix(i < entropy_len ? entropy[i] : 0u, &hash_const);
  }
  for (int src = 0; src < kPoolSize; ++src) {
    for (int dst = 0; dst < kPoolSize; ++dst) {
      if (src != dst) pool[dst] = Mix(pool[dst], HashMix(pool[src], &hash_const));
    }
  }

  // SeedSequence.generate_state(n, np.uint32).
  uint32_t hash_b = kInitB;
  for (int i = 0; i < n; ++i) {
    uint32_t value = pool[i % kPoolSize];
    value ^= hash_b;
    hash_b *= kMultB;
    value *= hash_b;
    value ^= value >> kXShift;
    out[i] = value;
  }
}

// Bit-exact twin of numpy's Generator(PCG64(SeedSequence(seed))) for the draws Gymnasium envs
// make. Not thread-safe; one instance per env. No allocation, no exceptions.
class NumpyGenerator {
 public:
  explicit NumpyGenerator(uint64_t seed = 0) { Seed(seed); }

  // PCG64(SeedSequence(seed)): generate_state(4, uint64), i.e. 8 uint32 words viewed as 4
  // little-endian uint64, feeds pcg64_set_seed(s[0:2], s[2:4]).
  void Seed(uint64_t seed) {
    using namespace numpy_random_internal;
    uint32_t words[8];
    SeedSequenceGenerateState(seed, words, 8);
    uint64_t state64[4];
    for (int i = 0; i < 4; ++i) {
      state64[i] =
          static_cast<uint64_t>(words[2 * i]) | (static_cast<uint64_t>(words[2 * i + 1]) << 32);
    }

    // pcg64_set_seed(): word 0 is the high half of each 128-bit value.
    const uint128 init_state = (static_cast<uint128>(state64[0]) << 64) | state64[1];
    const uint128 init_seq = (static_cast<uint128>(state64[2]) << 64) | state64[3];
    // pcg_setseq_128_srandom_r().
    state_ = 0;
    inc_ = (init_seq << 1) | 1u;
    Step();
    state_ += init_state;
    Step();
    // BitGenerator._reset_state_variables(): drop the buffered uint32.
    has_uint32_ = false;
    uinteger_ = 0;
  }

  // pcg64_next64(): pcg_setseq_128_xsl_rr_64_random_r (step, then XSL-RR output).
  uint64_t NextUint64() {
    Step();
    const uint64_t xored = static_cast<uint64_t>(state_ >> 64) ^ static_cast<uint64_t>(state_);
    const unsigned rot = static_cast<unsigned>(state_ >> 122);
    return (xored >> rot) | (xored << ((64u - rot) & 63u));
  }

  // pcg64_next32(): returns the low half of a fresh 64-bit draw and keeps the high half for the
  // next call. The buffer lives in the bit generator, so it survives across Generator methods;
  // 64-bit draws (Random, Uniform, large Integers) neither use nor clear it.
  uint32_t NextUint32() {
    if (has_uint32_) {
      has_uint32_ = false;
      return uinteger_;
    }
    const uint64_t next = NextUint64();
    has_uint32_ = true;
    uinteger_ = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next);
  }

  // Generator.random(): random_standard_uniform -> next_double.
  double Random() { return static_cast<double>(NextUint64() >> 11) * (1.0 / 9007199254740992.0); }

  // Generator.uniform(low, high): random_uniform(low, high - low). For array bounds numpy also
  // computes range = high - low elementwise first, so call this once per element, in order.
  double Uniform(double low, double high) {
    return numpy_random_internal::MulAddUnfused(low, high - low, Random());
  }

  // Generator.standard_normal(): random_standard_normal, numpy's 256-row ziggurat
  // (numpy/random/src/distributions/distributions.c). Each try takes one 64-bit draw: the low
  // 8 bits pick the row, the next bit is the sign and the 52 above it the magnitude. About 1%
  // of tries fall outside the row's rectangle and take one more next_double (wedge test
  // against exp) or, in the base row, two per tail try (log1p), exactly as numpy draws them.
  // Generator.standard_normal(n) is n calls in order (random_standard_normal_fill).
  double StandardNormal() {
    using namespace numpy_random_internal;
    for (;;) {
      const uint64_t draw = NextUint64();
      const int idx = static_cast<int>(draw & 0xff);
      const uint64_t r = draw >> 8;
      const bool negative = (r & 0x1) != 0;
      const uint64_t rabs = (r >> 1) & 0x000fffffffffffffull;
      double x = static_cast<double>(rabs) * kZigguratWi[idx];
      if (negative) x = -x;
      if (rabs < kZigguratKi[idx]) return x;  // the rectangle: 99.3% of draws
      if (idx == 0) {
        // The tail beyond r, Marsaglia's method; 1 - U avoids log(0) (numpy GH 13361).
        for (;;) {
          const double xx = -kZigguratNorInvR * std::log1p(-Random());
          const double yy = -std::log1p(-Random());
          if (yy + yy > xx * xx) {
            return ((rabs >> 8) & 0x1) != 0 ? -(kZigguratNorR + xx) : kZigguratNorR + xx;
          }
        }
      }
      // The wedge: accept if a uniform point under the row's top lies under the density.
      const double fy =
          MulAddUnfused(kZigguratFi[idx], kZigguratFi[idx - 1] - kZigguratFi[idx], Random());
      if (fy < std::exp(-0.5 * x * x)) return x;
    }
  }

  // Generator.integers(low, high) with dtype=int64, endpoint=False: random_bounded_uint64_fill
  // with off = low, rng = high - 1 - low. Precondition low < high (numpy raises; we return low).
  int64_t Integers(int64_t low, int64_t high) {
    if (low >= high) return low;
    const uint64_t rng = static_cast<uint64_t>(high) - 1u - static_cast<uint64_t>(low);
    return static_cast<int64_t>(static_cast<uint64_t>(low) + BoundedUint64(rng));
  }

  // Generator.choice(a) for a 1-D sequence of length n (replace=True, p=None, size=None):
  // numpy draws integers(0, n, size=(), dtype=int64). Precondition n > 0 (numpy raises).
  int64_t ChoiceIndex(int64_t n) { return Integers(0, n); }

  // Generator.choice(n, p=p) (replace=True, size=None), numpy/random/_generator.pyx: first
  // numpy's checks on p (its ValueErrors, raised as std::invalid_argument with numpy's words:
  // kahan_sum(p) not NaN, no p[i] < 0, |kahan_sum(p) - 1| <= sqrt(float64 eps)), then
  // cdf = p.cumsum() (left to right), cdf /= cdf[-1], one random() u, and the index
  // cdf.searchsorted(u, side='right'): the first i with cdf[i] / cdf[-1] > u. The cumulative
  // sums are recomputed in a second pass instead of stored (the same additions in the same
  // order give the same values), so nothing is allocated. Precondition n > 0.
  int64_t ChoiceIndex(const double* p, size_t n) {
    const double p_sum = numpy_random_internal::KahanSum(p, n);
    if (std::isnan(p_sum)) throw std::invalid_argument("Probabilities contain NaN");
    double last = 0.0;  // cdf[-1]
    for (size_t i = 0; i < n; ++i) {
      if (p[i] < 0) throw std::invalid_argument("Probabilities are not non-negative");
      last = i == 0 ? p[0] : last + p[i];
    }
    if (std::abs(p_sum - 1.0) > numpy_random_internal::kProbabilityTolerance) {
      throw std::invalid_argument(
          "Probabilities do not sum to 1. See Notes section of docstring for more "
          "information.");
    }
    const double u = Random();
    double cdf = 0.0;
    for (size_t i = 0; i < n; ++i) {
      cdf = i == 0 ? p[0] : cdf + p[i];
      if (cdf / last > u) return static_cast<int64_t>(i);
    }
    return static_cast<int64_t>(n);  // numpy's searchsorted past the end (u >= every cdf)
  }

  // Generator.permutation(n) for an int n: np.arange(n), then shuffle (Fisher-Yates, one
  // random_interval per swap, as Shuffle). Writes the n values to `out`.
  void Permutation(int64_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<int64_t>(i);
    Shuffle(out, n);
  }

  // random_interval(bitgen, max): a value in [0, max] by rejection of masked draws: the
  // smallest all-ones mask covering max, next_uint32 while max fits 32 bits, else next_uint64.
  // Generator.shuffle draws one per swap.
  uint64_t Interval(uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max;
    for (int shift = 1; shift <= 32; shift *= 2) mask |= mask >> shift;
    uint64_t value;
    if (max <= 0xFFFFFFFFull) {
      while ((value = (NextUint32() & mask)) > max) {
      }
    } else {
      while ((value = (NextUint64() & mask)) > max) {
      }
    }
    return value;
  }

  // Generator.shuffle(x) of a list (or a 1-D array) of n items: for i = n - 1 down to 1, x[i]
  // swaps with x[Interval(i)] (Fisher-Yates), in place.
  template <typename T>
  void Shuffle(T* items, size_t n) {
    for (size_t i = n; i-- > 1;) {
      const size_t j = static_cast<size_t>(Interval(i));
      std::swap(items[i], items[j]);
    }
  }

 private:
  // pcg_setseq_128_step_r().
  void Step() { state_ = state_ * numpy_random_internal::kPcgMultiplier + inc_; }

  // random_bounded_uint64_fill() for one value in [0, rng] (no masking; Generator uses Lemire).
  uint64_t BoundedUint64(uint64_t rng) {
    if (rng == 0) return 0;  // no draw at all
    if (rng <= 0xFFFFFFFFull) {
      // 32-bit path: buffered_uint32 is plain next_uint32 for 32-bit outputs.
      if (rng == 0xFFFFFFFFull) return NextUint32();
      return BoundedLemire<uint32_t, uint64_t>(static_cast<uint32_t>(rng),
                                               [this] { return NextUint32(); });
    }
    if (rng == 0xFFFFFFFFFFFFFFFFull) return NextUint64();
    return BoundedLemire<uint64_t, numpy_random_internal::uint128>(rng,
                                                                   [this] { return NextUint64(); });
  }

  // buffered_bounded_lemire_uint32() (on next_uint32, a 64-bit product) and
  // bounded_lemire_uint64() (on next_uint64, a 128-bit product): Lemire's nearly-divisionless
  // method for one value in [0, rng], rng below U's maximum. Wide is twice as wide as U.
  template <typename U, typename Wide, typename Next>
  static U BoundedLemire(U rng, const Next& next) {
    const U rng_excl = rng + 1u;
    Wide m = static_cast<Wide>(next()) * rng_excl;
    U leftover = static_cast<U>(m);
    if (leftover < rng_excl) {
      const U threshold = (std::numeric_limits<U>::max() - rng) % rng_excl;
      while (leftover < threshold) {
        m = static_cast<Wide>(next()) * rng_excl;
        leftover = static_cast<U>(m);
      }
    }
    return static_cast<U>(m >> (8 * sizeof(U)));
  }

  numpy_random_internal::uint128 state_ = 0;
  numpy_random_internal::uint128 inc_ = 0;
  bool has_uint32_ = false;
  uint32_t uinteger_ = 0;
};

}  // namespace envfleet

#endif  // ENVFLEET_COMMON_NUMPY_RANDOM_H_
