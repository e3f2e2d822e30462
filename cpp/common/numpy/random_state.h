// Bit-exact C++ twin of NumPy's legacy generator np.random.RandomState(seed) (MT19937 with the
// legacy distributions), the stream dm_control's suite tasks draw their initial states from
// (`Task(random=seed)` makes np.random.RandomState(seed)). Only what tasks draw is mirrored.
// Every method names the NumPy 2.x function it reproduces (numpy/random/mtrand.pyx,
// _mt19937.pyx, src/mt19937/mt19937.{h,c}, src/legacy/legacy-distributions.c,
// src/distributions/distributions.c); the ground truth is the installed NumPy, checked by
// tests/core/test_numpy_random_state.py.
#ifndef ENVFLEET_COMMON_NUMPY_RANDOM_STATE_H_
#define ENVFLEET_COMMON_NUMPY_RANDOM_STATE_H_

#include <cmath>
#include <cstdint>

#include "common/numpy/math.h"

namespace envfleet {

// Not thread-safe; one instance per env. No allocation, no exceptions.
class NumpyRandomState {
 public:
  static constexpr int kStateLen = 624;  // RK_STATE_LEN
  static constexpr uint64_t kMaxSeed = 0xFFFFFFFFull;

  explicit NumpyRandomState(uint32_t seed = 0) { Seed(seed); }

  // RandomState(seed) / .seed(seed) for an integer seed in [0, 2**32 - 1] (NumPy raises
  // beyond): MT19937._legacy_seeding calls mt19937_seed, Knuth's linear initialisation
  // (init_genrand). Array seeds (init_by_array) are not mirrored. Seeding also drops the
  // cached Gaussian (RandomState._reset_gauss).
  void Seed(uint32_t seed) {
    uint32_t s = seed;
    for (int pos = 0; pos < kStateLen; ++pos) {
      key_[pos] = s;
      s = 1812433253u * (s ^ (s >> 30)) + static_cast<uint32_t>(pos) + 1u;
    }
    pos_ = kStateLen;
    has_gauss_ = false;
    gauss_ = 0.0;
  }

  // mt19937_next: the next tempered 32-bit word (next_uint32 of the bit generator).
  uint32_t NextUint32() {
    if (pos_ == kStateLen) Generate();
    uint32_t y = key_[pos_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

  // mt19937_next64: two words, the first one high.
  uint64_t NextUint64() {
    const uint64_t high = NextUint32();
    return (high << 32) | NextUint32();
  }

  // mt19937_next_double (next_double): 53 bits from two words, 27 + 26.
  double NextDouble() {
    const int32_t a = static_cast<int32_t>(NextUint32() >> 5);
    const int32_t b = static_cast<int32_t>(NextUint32() >> 6);
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }

  // RandomState.random_sample() / rand(): random_standard_uniform -> next_double. rand(n)
  // and random_sample(n) are n calls in order.
  double RandomSample() { return NextDouble(); }

  // RandomState.uniform(low, high) for scalar bounds: random_uniform(low, high - low), i.e.
  // low + (high - low) * next_double. For array bounds NumPy broadcasts and computes
  // high - low per element: call this once per element, in order. The product is kept from
  // being fused into an FMA (math.h: Opaque).
  double Uniform(double low, double high) {
    return low + numpy_math::Opaque((high - low) * NextDouble());
  }

  // RandomState.standard_normal() / randn(): legacy_gauss, Marsaglia's polar method. Each
  // accepted pair yields two values: f * x2 now, f * x1 cached for the next call (the cache
  // survives across other draws until the next Seed). randn(n) is n calls in order.
  double StandardNormal() {
    if (has_gauss_) {
      has_gauss_ = false;
      const double cached = gauss_;
      gauss_ = 0.0;
      return cached;
    }
    double x1, x2, r2;
    do {
      x1 = 2.0 * NextDouble() - 1.0;
      x2 = 2.0 * NextDouble() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    gauss_ = f * x1;
    has_gauss_ = true;
    return f * x2;
  }

  // RandomState.normal(loc, scale) for scalars: legacy_normal = loc + scale * legacy_gauss.
  double Normal(double loc, double scale) {
    return loc + numpy_math::Opaque(scale * StandardNormal());
  }

  // RandomState.randint(low, high) with the default dtype (int64), high exclusive: RandomState
  // always takes the masked rejection path of random_bounded_uint64_fill (never Lemire's):
  // the smallest all-ones mask covering high - 1 - low, 32-bit draws while that span fits in
  // 32 bits, 64-bit draws beyond. Precondition low < high (NumPy raises; we return low).
  int64_t RandInt(int64_t low, int64_t high) {
    if (low >= high) return low;
    return RandIntInclusive(low, high - 1);
  }

  // RandomState.randint(low, high + 1, dtype=np.int64): the same with an inclusive bound, so
  // that high may be INT64_MAX (randint(1 - 2**63, 2**63, dtype=np.int64), the draw of
  // hash_downto in minigrid's WFC, has high = 2**63). Precondition low <= high.
  int64_t RandIntInclusive(int64_t low, int64_t high) {
    const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    return static_cast<int64_t>(static_cast<uint64_t>(low) + BoundedMasked(span));
  }

  // RandomState.choice(n) or choice(a) with len(a) == n (replace=True, p=None, size=None):
  // NumPy draws randint(0, n). Precondition n > 0 (NumPy raises).
  int64_t ChoiceIndex(int64_t n) { return RandInt(0, n); }

  // RandomState.choice(a, p=p) with len(a) == n (replace=True, size=None): cdf = p.cumsum()
  // (left to right), cdf /= cdf[-1], one random_sample u, and the index
  // cdf.searchsorted(u, side='right'), the number of cdf entries <= u. NumPy first checks that
  // p is a distribution (non-negative, summing to 1 within sqrt(eps)); we assume it.
  // Precondition 0 < n <= kMaxChoices.
  static constexpr int kMaxChoices = 64;
  int64_t ChoiceIndex(const double* p, int n) {
    double cdf[kMaxChoices];
    double sum = 0.0;
    for (int i = 0; i < n; ++i) cdf[i] = sum += p[i];
    const double last = cdf[n - 1];
    const double u = RandomSample();
    int64_t index = 0;
    while (index < n && cdf[index] / last <= u) ++index;
    return index;
  }

 private:
  // mt19937_gen: the standard MT19937 twist of all 624 words.
  void Generate() {
    constexpr int kN = kStateLen, kM = 397;
    constexpr uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;
    int i = 0;
    for (; i < kN - kM; ++i) {
      const uint32_t y = (key_[i] & kUpper) | (key_[i + 1] & kLower);
      key_[i] = key_[i + kM] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
    }
    for (; i < kN - 1; ++i) {
      const uint32_t y = (key_[i] & kUpper) | (key_[i + 1] & kLower);
      key_[i] = key_[i + (kM - kN)] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
    }
    const uint32_t y = (key_[kN - 1] & kUpper) | (key_[0] & kLower);
    key_[kN - 1] = key_[kM - 1] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
    pos_ = 0;
  }

  // random_bounded_uint64_fill(..., use_masked=true) for one value in [0, span].
  uint64_t BoundedMasked(uint64_t span) {
    if (span == 0) return 0;  // no draw at all
    uint64_t mask = span;     // gen_mask: the smallest 2**k - 1 >= span
    for (int shift = 1; shift < 64; shift *= 2) mask |= mask >> shift;
    if (span <= 0xFFFFFFFFull) {
      // The 32-bit path: buffered_uint32 is plain next_uint32 for 32-bit outputs, and a span
      // of exactly 2**32 - 1 takes one raw word (no mask, no rejection: the same result).
      uint64_t value;
      do {
        value = NextUint32() & mask;
      } while (value > span);
      return value;
    }
    uint64_t value;
    do {
      value = NextUint64() & mask;
    } while (value > span);
    return value;
  }

  uint32_t key_[kStateLen];
  int pos_ = kStateLen;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

}  // namespace envfleet

#endif  // ENVFLEET_COMMON_NUMPY_RANDOM_STATE_H_
