// cpp/common/numpy/random_state.h: properties of NumpyRandomState. Its streams are compared
// with live NumPy in tests/core/test_numpy_random_state.py (through _envfleet_testing); here
// the only fixed values are MT19937's published reference outputs, and every other test
// checks a relation between draws that NumPy's legacy algorithms imply.
#include "common/numpy/random_state.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "check.h"

namespace envfleet {
namespace {

TEST(NumpyRandomState, MatchesTheMt19937ReferenceOutputs) {
  // Matsumoto and Nishimura's mt19937ar.c seeded with init_genrand(5489): the first output
  // is 3499211612 and the 10000th is 4123659995 (the C++ standard's check for std::mt19937).
  NumpyRandomState rng(5489);
  CHECK_EQ(rng.NextUint32(), 3499211612u);
  for (int i = 1; i < 9999; ++i) rng.NextUint32();
  CHECK_EQ(rng.NextUint32(), 4123659995u);
}

TEST(NumpyRandomState, ReseedingRestartsTheStreamAndDropsTheCachedGaussian) {
  NumpyRandomState fresh(7);
  const double first = fresh.StandardNormal();
  NumpyRandomState g(7);
  g.StandardNormal();  // leaves the pair's second value cached
  g.Seed(7);
  CHECK_EQ(g.StandardNormal(), first);
}

TEST(NumpyRandomState, NextDoubleTakes27And26BitsOfTwoWords) {
  NumpyRandomState a(11), b(11);
  for (int i = 0; i < 100; ++i) {
    const uint32_t hi = b.NextUint32() >> 5, lo = b.NextUint32() >> 6;
    CHECK_EQ(a.NextDouble(), (hi * 67108864.0 + lo) / 9007199254740992.0);
  }
}

TEST(NumpyRandomState, NextUint64PutsTheFirstWordHigh) {
  NumpyRandomState a(3), b(3);
  const uint64_t hi = b.NextUint32(), lo = b.NextUint32();
  CHECK_EQ(a.NextUint64(), (hi << 32) | lo);
}

TEST(NumpyRandomState, GaussiansComeInPolarPairs) {
  // legacy_gauss returns f * x2 and caches f * x1 of the same accepted point: both values
  // of a pair come from two next_double draws, the second costs none.
  NumpyRandomState a(5), b(5);
  for (int pair = 0; pair < 200; ++pair) {
    double x1, x2, r2;
    do {
      x1 = 2.0 * b.NextDouble() - 1.0;
      x2 = 2.0 * b.NextDouble() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    CHECK_EQ(a.StandardNormal(), f * x2);
    CHECK_EQ(a.StandardNormal(), f * x1);
  }
}

TEST(NumpyRandomState, UniformStaysInItsBounds) {
  NumpyRandomState rng(1);
  for (int i = 0; i < 10000; ++i) {
    const double u = rng.Uniform(-0.5, 2.0);
    CHECK_GE(u, -0.5);
    CHECK_LT(u, 2.0);
  }
}

TEST(NumpyRandomState, RandIntIsMaskedRejection) {
  // randint(0, 5): mask 7 over next_uint32, values above 4 rejected.
  NumpyRandomState a(9), b(9);
  for (int i = 0; i < 1000; ++i) {
    uint32_t v;
    do {
      v = b.NextUint32() & 7u;
    } while (v > 4u);
    CHECK_EQ(a.RandInt(0, 5), static_cast<int64_t>(v));
  }
  // A span wider than 32 bits takes 64-bit draws.
  NumpyRandomState c(9), d(9);
  const int64_t low = -3;
  const int64_t high = (int64_t{1} << 40) + 5;
  for (int i = 0; i < 100; ++i) {
    const uint64_t span = static_cast<uint64_t>(high - 1 - low);
    uint64_t mask = span;
    for (int s = 1; s < 64; s *= 2) mask |= mask >> s;
    uint64_t v;
    do {
      v = d.NextUint64() & mask;
    } while (v > span);
    CHECK_EQ(c.RandInt(low, high), low + static_cast<int64_t>(v));
  }
}

TEST(NumpyRandomState, ChoiceWithProbabilitiesSearchesTheCdfWithOneSample) {
  // choice(n, p=p): one random_sample u; the index is the number of cdf entries <= u, the cdf
  // being p's running sum divided by its last entry.
  const double p[4] = {0.1, 0.0, 0.6, 0.3};
  NumpyRandomState a(21), b(21);
  for (int i = 0; i < 1000; ++i) {
    const double u = b.RandomSample();
    double cdf = 0.0;
    int64_t want = 0;
    for (int k = 0; k < 4; ++k) {
      cdf += p[k];
      want += cdf / 1.0 <= u;
    }
    const int64_t got = a.ChoiceIndex(p, 4);
    CHECK_EQ(got, want);
    CHECK_NE(got, 1);  // probability 0
  }
}

TEST(NumpyRandomState, ASingleValueRangeDrawsNothing) {
  NumpyRandomState a(4), b(4);
  CHECK_EQ(a.RandInt(6, 7), 6);
  CHECK_EQ(a.ChoiceIndex(1), 0);
  CHECK_EQ(a.NextUint32(), b.NextUint32());
}

}  // namespace
}  // namespace envfleet
