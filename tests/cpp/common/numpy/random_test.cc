// cpp/common/numpy/random.h: properties and identities of NumpyGenerator. Its values are
// compared with live NumPy in tests/core/test_numpy_random.py (through _envfleet_testing);
// here no value comes from a NumPy run: each test checks a relation between draws that NumPy's
// algorithms imply (how next_uint32 splits a 64-bit draw, what next_double and Lemire's method
// compute from raw draws, ...), or a statistical property.
#include "common/numpy/random.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "check.h"

namespace envfleet {
namespace {

constexpr uint64_t kSeeds[] = {
    0,    1, 2, 42, (1ull << 31) - 1, 1ull << 32, (1ull << 32) + 1, 1ull << 40, (1ull << 63) - 1,
    ~0ull};

TEST(NumpyGenerator, TheSameSeedGivesTheSameStream) {
  for (uint64_t seed : kSeeds) {
    NumpyGenerator a(seed), b(seed);
    int differ = 0;
    for (int i = 0; i < 1000; ++i) differ += a.NextUint64() != b.NextUint64();
    CHECK_EQ(differ, 0);
  }
}

TEST(NumpyGenerator, DifferentSeedsGiveDifferentStreams) {
  // Including seeds whose low 32-bit words agree: SeedSequence hashes both words (and the
  // number of words: 0 is [0], 2**32 is [0, 1]).
  std::set<uint64_t> first_draws;
  for (uint64_t seed : kSeeds) first_draws.insert(NumpyGenerator(seed).NextUint64());
  CHECK_EQ(first_draws.size(), std::size(kSeeds));
}

TEST(NumpyGenerator, ADefaultGeneratorIsSeedZero) {
  NumpyGenerator a, b(0);
  CHECK_EQ(a.NextUint64(), b.NextUint64());
}

TEST(NumpyGenerator, ReseedingRestartsTheStreamAndDropsTheBufferedHalf) {
  NumpyGenerator fresh(7);
  const uint32_t first32 = fresh.NextUint32();
  NumpyGenerator g(123);
  g.NextUint64();
  g.NextUint32();  // leaves the high half of a draw buffered
  g.Seed(7);
  CHECK_EQ(g.NextUint32(), first32);  // not the buffered half of the old stream
  NumpyGenerator h(7);
  h.NextUint32();
  h.Seed(7);
  CHECK_EQ(h.NextUint32(), first32);  // nor the buffered half of the same seed
  NumpyGenerator k(7);
  for (int i = 0; i < 5; ++i) k.StandardNormal();
  k.Seed(7);
  CHECK_EQ(k.NextUint32(), first32);
}

TEST(NumpyGenerator, NextUint32SplitsOneDrawLowHalfFirst) {
  NumpyGenerator raw(5), split(5);
  for (int i = 0; i < 100; ++i) {
    const uint64_t v = raw.NextUint64();
    CHECK_EQ(split.NextUint32(), static_cast<uint32_t>(v));
    CHECK_EQ(split.NextUint32(), static_cast<uint32_t>(v >> 32));
  }
}

TEST(NumpyGenerator, SixtyFourBitDrawsNeitherUseNorClearTheBufferedHalf) {
  NumpyGenerator raw(11), g(11);
  const uint64_t v1 = raw.NextUint64();
  const uint64_t v2 = raw.NextUint64();
  const uint64_t v3 = raw.NextUint64();
  CHECK_EQ(g.NextUint32(), static_cast<uint32_t>(v1));
  CHECK_EQ(g.NextUint64(), v2);
  CHECK_EQ(g.Random(), static_cast<double>(v3 >> 11) / 9007199254740992.0);
  CHECK_EQ(g.NextUint32(), static_cast<uint32_t>(v1 >> 32));  // still there
}

TEST(NumpyGenerator, RandomIsTheTop53BitsOfADraw) {
  NumpyGenerator raw(3), g(3);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = raw.NextUint64();
    const double u = g.Random();
    CHECK_EQ(u, std::ldexp(static_cast<double>(v >> 11), -53));
    CHECK(u >= 0.0 && u < 1.0);
  }
}

TEST(NumpyGenerator, UniformIsLowPlusRangeTimesRandomRoundedTwice) {
  NumpyGenerator raw(8), g(8);
  const double bounds[][2] = {{-0.05, 0.05}, {-3.14, 3.14}, {0, 1e20}, {5, 5}, {2, -2}};
  for (int i = 0; i < 200; ++i) {
    const double low = bounds[i % 5][0], high = bounds[i % 5][1];
    const double u = raw.Random();
    const double range = high - low;
    volatile double product = range * u;  // rounded on its own, as numpy's C does
    CHECK_EQ(g.Uniform(low, high), low + product);
  }
}

TEST(NumpyGenerator, MulAddIsNeverFused) {
  // (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60: rounding the product first drops the 2^-60.
  const double r = 1.0 + std::ldexp(1.0, -30);
  const double unfused = numpy_random_internal::MulAddUnfused(-1.0, r, r);
  CHECK_EQ(unfused, std::ldexp(1.0, -29));
  CHECK_NE(unfused, std::fma(r, r, -1.0));
}

TEST(NumpyGenerator, IntegersOfAnEmptyOrSingleRangeDrawNothing) {
  NumpyGenerator raw(4), g(4);
  CHECK_EQ(g.Integers(5, 6), 5);  // rng = 0: numpy makes no draw
  CHECK_EQ(g.Integers(9, 9), 9);  // low >= high: low (numpy raises)
  CHECK_EQ(g.Integers(9, -1), 9);
  CHECK_EQ(g.NextUint64(), raw.NextUint64());  // the stream has not moved
}

TEST(NumpyGenerator, IntegersOfAPowerOfTwoRangeAreTheTopBitsOfOneDraw) {
  // Lemire's method never rejects when the range is 2^k (threshold (2^w - 2^k) % 2^k == 0):
  // the result is the top k bits of one next_uint32 (ranges <= 2^32) or next_uint64.
  for (int k = 1; k <= 62; ++k) {
    NumpyGenerator raw(k), g(k);
    const int64_t n = int64_t{1} << k;
    for (int i = 0; i < 20; ++i) {
      const int64_t x = g.Integers(-3, -3 + n);
      const uint64_t expected =
          k <= 32 ? (uint64_t{raw.NextUint32()} >> (32 - k)) : (raw.NextUint64() >> (64 - k));
      CHECK_EQ(x, -3 + static_cast<int64_t>(expected));
    }
  }
}

TEST(NumpyGenerator, IntegersOfTheFull32BitRangeAreNextUint32) {
  NumpyGenerator raw(6), g(6);
  for (int i = 0; i < 50; ++i) CHECK_EQ(g.Integers(0, int64_t{1} << 32), raw.NextUint32());
}

TEST(NumpyGenerator, IntegersStayInRange) {
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t ranges[][2] = {{0, 2},       {-5, 5},           {0, 3},
                               {0, 1000003}, {-(1ll << 40), 7}, {0, (1ll << 32) + 1},
                               {kMin, kMax}, {kMin, kMin + 3},  {kMax - 5, kMax}};
  NumpyGenerator g(99);
  for (const auto& range : ranges) {
    int outside = 0;
    for (int i = 0; i < 2000; ++i) {
      const int64_t x = g.Integers(range[0], range[1]);
      outside += x < range[0] || x >= range[1];
    }
    CHECK_EQ(outside, 0);
  }
}

TEST(NumpyGenerator, IntegersAreUniform) {
  // Chi-square over 6 and 13 cells (5 and 12 degrees of freedom): far beyond p = 1e-6 only
  // for a biased generator.
  for (int64_t n : {6, 13}) {
    NumpyGenerator g(2024);
    std::vector<int> counts(static_cast<size_t>(n));
    const int draws = 120000;
    for (int i = 0; i < draws; ++i) ++counts[static_cast<size_t>(g.Integers(0, n))];
    double chi2 = 0;
    const double expected = static_cast<double>(draws) / static_cast<double>(n);
    for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
    CHECK_LT(chi2, n == 6 ? 35.9 : 51.2);
  }
}

TEST(NumpyGenerator, ChoiceIndexIsIntegersFromZero) {
  NumpyGenerator a(17), b(17);
  for (int64_t n : {1, 2, 3, 13, 52, 1000}) CHECK_EQ(a.ChoiceIndex(n), b.Integers(0, n));
  CHECK_EQ(a.NextUint64(), b.NextUint64());
}

TEST(NumpyGenerator, StandardNormalHasTheMomentsAndTailsOfANormal) {
  NumpyGenerator g(31);
  const int n = 400000;
  double sum = 0, sum2 = 0, sum3 = 0, sum4 = 0;
  int beyond_r = 0, beyond_1 = 0;
  int negative = 0;
  for (int i = 0; i < n; ++i) {
    const double x = g.StandardNormal();
    sum += x;
    sum2 += x * x;
    sum3 += x * x * x;
    sum4 += x * x * x * x;
    beyond_r += std::fabs(x) > numpy_random_internal::kZigguratNorR;
    beyond_1 += std::fabs(x) > 1.0;
    negative += x < 0;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  CHECK_LT(std::fabs(mean), 5 / std::sqrt(n));  // sd of the mean: 1/sqrt(n)
  CHECK_LT(std::fabs(var - 1.0), 5 * std::sqrt(2.0 / n));
  CHECK_LT(std::fabs(sum3 / n), 5 * std::sqrt(15.0 / n));        // skewness 0
  CHECK_LT(std::fabs(sum4 / n - 3.0), 5 * std::sqrt(96.0 / n));  // kurtosis 3
  // P(|x| > 1) = 0.3173; P(|x| > r = 3.6542) = 2.58e-4: the tail path runs ~103 times.
  CHECK_LT(std::fabs(beyond_1 / double(n) - 0.31731), 0.004);
  CHECK_GT(beyond_r, 50);
  CHECK_LT(beyond_r, 170);
  CHECK_LT(std::abs(negative - n / 2), 5 * std::sqrt(n / 4.0));
}

TEST(NumpyGenerator, StandardNormalIsDeterministicAndReseedable) {
  NumpyGenerator a(12), b(12);
  int differ = 0;
  for (int i = 0; i < 5000; ++i) differ += a.StandardNormal() != b.StandardNormal();
  CHECK_EQ(differ, 0);
  const double first = NumpyGenerator(12).StandardNormal();
  a.Seed(12);
  CHECK_EQ(a.StandardNormal(), first);
}

TEST(NumpyGenerator, ZigguratTablesAreConsistent) {
  // numpy's construction: row i >= 1 has right edge x_i = wi[i] * 2^52 (x_255 = r), its
  // density fi[i] = exp(-x_i^2 / 2), and ki[i] = (x_{i-1} / x_i) * 2^52, the fraction of the
  // row inside the next one (ki[1] = 0: the top row has none).
  using namespace numpy_random_internal;
  const double two52 = 4503599627370496.0;
  CHECK_EQ(kZigguratFi[0], 1.0);
  CHECK_EQ(kZigguratKi[1], 0u);
  CHECK_LT(std::fabs(kZigguratWi[255] * two52 - kZigguratNorR), 1e-14);
  CHECK_LT(std::fabs(kZigguratNorR * kZigguratNorInvR - 1.0), 1e-15);
  int bad = 0;
  for (int i = 1; i < 256; ++i) {
    const double x = kZigguratWi[i] * two52;
    bad += !(kZigguratFi[i] < kZigguratFi[i - 1]);
    bad += !(std::fabs(kZigguratFi[i] - std::exp(-0.5 * x * x)) < 1e-15);
    if (i >= 2) {
      bad += !(kZigguratWi[i] > kZigguratWi[i - 1]);
      const double ratio = kZigguratWi[i - 1] / kZigguratWi[i] * two52;
      bad += !(std::fabs(static_cast<double>(kZigguratKi[i]) - ratio) <= 1.0);
    }
  }
  CHECK_EQ(bad, 0);
}

TEST(SeedSequence, ShorterStatesArePrefixesOfLongerOnes) {
  // generate_state(n) hashes word i from pool[i % 4] with the i-th hash constant, so n words
  // are the first n of any longer request (ale-py's seed_game takes 2, PCG64 8).
  for (uint64_t seed : kSeeds) {
    uint32_t eight[8], two[2], five[5];
    SeedSequenceGenerateState(seed, eight, 8);
    SeedSequenceGenerateState(seed, two, 2);
    SeedSequenceGenerateState(seed, five, 5);
    CHECK(two[0] == eight[0] && two[1] == eight[1]);
    for (int i = 0; i < 5; ++i) CHECK_EQ(five[i], eight[i]);
    std::set<uint32_t> distinct(eight, eight + 8);
    CHECK_EQ(distinct.size(), 8u);  // words from the same pool word differ (other constants)
  }
}

}  // namespace
}  // namespace envfleet
