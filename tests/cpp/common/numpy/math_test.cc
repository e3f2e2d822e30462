// cpp/common/numpy/math.h: NpRemainder follows Python's sign rules (as np.float64 % does),
// NpPow stays a libm pow call, Opaque changes nothing, NpSinF / NpCosF keep the symmetries and
// accuracy of sin and cos, NpSum sums pairwise in NumPy's order (identities derived from
// NumPy's pairwise_sum, not values from a run), NpClip / NpNorm behave as np.clip / norm.
// (Their values against NumPy: the family tests.)
#include "common/numpy/math.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "check.h"
#include "common/numpy/random.h"

namespace envfleet {
namespace {

using numpy_math::NpClip;
using numpy_math::NpCosF;
using numpy_math::NpDotSelf;
using numpy_math::NpNorm;
using numpy_math::NpPow;
using numpy_math::NpPowF;
using numpy_math::NpRemainder;
using numpy_math::NpSinF;
using numpy_math::NpSum;
using numpy_math::NpSumOfSquares;
using numpy_math::Opaque;
using numpy_math::PairwiseSum;

template <typename T>
bool SameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

TEST(NpRemainder, TheResultTakesTheSignOfTheDivisor) {
  CHECK_EQ(NpRemainder(5.0, 3.0), 2.0);
  CHECK_EQ(NpRemainder(-5.0, 3.0), 1.0);
  CHECK_EQ(NpRemainder(5.0, -3.0), -1.0);
  CHECK_EQ(NpRemainder(-5.0, -3.0), -2.0);
  CHECK_EQ(NpRemainder(7.5, 2.0), 1.5);
  CHECK_EQ(NpRemainder(-7.5, 2.0), 0.5);
  CHECK_EQ(NpRemainder(-0.25, 6.283185307179586), 6.283185307179586 - 0.25);
}

TEST(NpRemainder, AZeroResultIsAZeroOfTheDivisorsSign) {
  CHECK(SameBits(NpRemainder(6.0, 3.0), 0.0));
  CHECK(SameBits(NpRemainder(-6.0, 3.0), 0.0));
  CHECK(SameBits(NpRemainder(6.0, -3.0), -0.0));
  CHECK(SameBits(NpRemainder(-6.0, -3.0), -0.0));
  CHECK(SameBits(NpRemainder(0.0, -2.0), -0.0));
  CHECK(SameBits(NpRemainder(-0.0, 2.0), 0.0));
}

TEST(NpRemainder, SpecialValuesFollowPython) {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(std::isnan(NpRemainder(1.0, 0.0)));  // numpy: nan (with a warning), Python raises
  CHECK(std::isnan(NpRemainder(inf, 3.0)));
  CHECK(std::isnan(NpRemainder(std::nan(""), 3.0)));
  CHECK(std::isnan(NpRemainder(3.0, std::nan(""))));
  CHECK_EQ(NpRemainder(5.5, inf), 5.5);
  CHECK_EQ(NpRemainder(-5.5, inf), inf);  // -5.5 % inf == inf in Python and NumPy
  CHECK_EQ(NpRemainder(5.5, -inf), -inf);
}

TEST(NpRemainder, IsAFlooredRemainder) {
  // For finite a and b != 0: 0 <= r <= b (or b <= r <= 0), and a - r is a multiple of b.
  NumpyGenerator rng(1);
  int bad = 0;
  for (int i = 0; i < 20000; ++i) {
    const double a = rng.Uniform(-1000.0, 1000.0);
    double b = rng.Uniform(-50.0, 50.0);
    if (b == 0.0) continue;
    const double r = NpRemainder(a, b);
    // r == b only when a tiny negative fmod rounds up to it (Python: -1e-17 % 5 == 5.0).
    const bool in_range = b > 0 ? (r >= 0 && r <= b) : (r <= 0 && r >= b);
    const double q = (a - r) / b;
    bad += !in_range || std::fabs(q - std::round(q)) > 1e-9 * std::fabs(q) + 1e-9;
  }
  CHECK_EQ(bad, 0);
}

TEST(NpPow, IsLibmPowNotAMultiplication) {
  NumpyGenerator rng(2);
  volatile double two = 2.0;  // keeps this reference call a real pow() too
  volatile float two_f = 2.0f;
  int bad = 0;
  for (int i = 0; i < 100000; ++i) {
    const double x = rng.Uniform(-100.0, 100.0);
    bad += !SameBits(NpPow(x, 2.0), std::pow(x, two));
    const float xf = static_cast<float>(x);
    bad += !SameBits(NpPowF(xf, 2.0f), std::pow(xf, two_f));
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(NpPow(3.0, 2.0), 9.0);
  CHECK_EQ(NpPow(2.0, 10.0), 1024.0);
  CHECK_EQ(NpPow(2.0, -1.0), 0.5);
  CHECK_EQ(NpPowF(1.5f, 2.0f), 2.25f);
}

TEST(Opaque, ReturnsItsArgumentBitForBit) {
  const double doubles[] = {0.0,
                            -0.0,
                            1.5,
                            -3.25e300,
                            4.9e-324,
                            std::numeric_limits<double>::infinity(),
                            std::nan("0x5")};
  for (double x : doubles) CHECK(SameBits(Opaque(x), x));
  const float floats[] = {0.0f, -0.0f, 1.5f, -3.4e38f, 1.4e-45f, std::nanf("0x7")};
  for (float x : floats) CHECK(SameBits(Opaque(x), x));
}

TEST(NpSinCosF, SinIsOddAndCosIsEven) {
  NumpyGenerator rng(3);
  int bad = 0;
  for (int i = 0; i < 100000; ++i) {
    // Small and large arguments: the Cody-Waite reduction and the libm fallback above 71476.
    const double scale = i % 3 == 0 ? 10.0 : (i % 3 == 1 ? 2000.0 : 2e5);
    const float x = static_cast<float>(rng.Uniform(-scale, scale));
    bad += !SameBits(NpSinF(-x), -NpSinF(x));
    bad += !SameBits(NpCosF(-x), NpCosF(x));
  }
  CHECK_EQ(bad, 0);
  CHECK(SameBits(NpSinF(0.0f), 0.0f));
  CHECK(SameBits(NpSinF(-0.0f), -0.0f));
  CHECK_EQ(NpCosF(0.0f), 1.0f);
}

TEST(NpSinCosF, AreWithinTwoUlpsOfTheTrueValues) {
  // NumPy documents its float32 sin/cos kernels to 1.49 ULP; libm's are within 1.
  NumpyGenerator rng(4);
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const float x = static_cast<float>(rng.Uniform(-1e4, 1e4));
    for (bool cosine : {false, true}) {
      const double exact = cosine ? std::cos(static_cast<double>(x)) : std::sin(double{x});
      const float got = cosine ? NpCosF(x) : NpSinF(x);
      const double ulp = std::ldexp(1.0, std::ilogb(static_cast<float>(exact)) - 23);
      const double err = std::fabs(got - exact) / ulp;
      if (err > worst) worst = err;
    }
  }
  CHECK_LE(worst, 2.0);
}

TEST(NpSinCosF, NanStaysNanAndInfinityGivesNan) {
  CHECK(std::isnan(NpSinF(std::nanf(""))));
  CHECK(std::isnan(NpCosF(std::nanf(""))));
  CHECK(std::isnan(NpSinF(std::numeric_limits<float>::infinity())));
  CHECK(std::isnan(NpCosF(-std::numeric_limits<float>::infinity())));
}

TEST(NpSinCosF, KnownValues) {
  // Within the kernel's accuracy of sin(float32(pi/2)) = 1, cos(float32(pi)) = -1,
  // sin(float32(pi/6)) = 0.5 (all three arguments are off the exact angles by < 1e-7).
  CHECK_LE(std::fabs(NpSinF(static_cast<float>(M_PI / 2)) - 1.0f), 1.2e-7f);
  CHECK_LE(std::fabs(NpCosF(static_cast<float>(M_PI)) + 1.0f), 1.2e-7f);
  CHECK_LE(std::fabs(NpSinF(static_cast<float>(M_PI / 6)) - 0.5f), 1.2e-7f);
  CHECK_LE(std::fabs(NpCosF(static_cast<float>(M_PI / 3)) - 0.5f), 1.2e-7f);
}

TEST(NpSum, BelowEightValuesItAddsLeftToRight) {
  // float32 2^24 + 1 rounds back to 2^24 (a tie, to even): a left-to-right sum loses each 1.
  const float big = 16777216.0f;
  const float a[] = {big, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  for (int n = 1; n <= 7; ++n) CHECK_EQ(NpSum(a, n), big);
  const float b[] = {1.0f, 1.0f, 1.0f, big};  // the ones first: they add up before the big one
  CHECK_EQ(NpSum(b, 4), big + 4.0f);
}

TEST(NpSum, FromEightValuesItUsesEightAccumulators) {
  // [2^24, 1 x 15]: accumulator 0 holds 2^24 + 1 -> 2^24, accumulators 1..7 hold 2 each; the
  // tree ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) adds 14 exactly. A left-to-right
  // sum would give 2^24, the exact sum rounded 2^24 + 16.
  std::vector<float> a(16, 1.0f);
  a[0] = 16777216.0f;
  CHECK_EQ(NpSum(a.data(), 16), 16777216.0f + 14.0f);
  // Eight values: one per accumulator; (2^24 + 1) + (1 + 1) = 2^24 + 2 (the first + is a tie,
  // to even), + ((1 + 1) + (1 + 1)) = 2^24 + 6. Twelve: that, then four ties staying at 2^24 + 8.
  CHECK_EQ(NpSum(a.data(), 8), 16777216.0f + 6.0f);
  CHECK_EQ(NpSum(a.data(), 12), 16777216.0f + 8.0f);
  // The values after the last multiple of 8 are added one by one to the tree's result:
  // 2^24 + 14 + 1 is a tie that rounds to 2^24 + 16 (even), + 1 a tie that stays there.
  a.push_back(1.0f);
  a.push_back(1.0f);
  CHECK_EQ(NpSum(a.data(), 18), 16777216.0f + 16.0f);
}

TEST(NpSum, AboveOneHundredTwentyEightValuesItSplitsAtAMultipleOfEight) {
  // [2^24, 1 x 259]: n / 2 = 130 is cut to 128, so the left half is 8 accumulators of 16
  // values, 2^24 + 112 (accumulator 0 loses its 15 ones to ties), and the right half 132
  // exact ones: 2^24 + 244. A split at 130 would give 2^24 + 112 + 130 (the two extra ones of
  // the left half are ties again).
  std::vector<float> a(260, 1.0f);
  a[0] = 16777216.0f;
  CHECK_EQ(NpSum(a.data(), 260), 16777216.0f + 244.0f);
}

TEST(NpSum, PairwiseSummationKeepsALongFloat32SumExact) {
  // 25 million ones: every partial sum of the halves stays below 2^24, where float32 counts
  // exactly; a running float32 sum would stop at 2^24.
  const int64_t n = 25000000;
  const float sum = PairwiseSum<float>([](int64_t) { return 1.0f; }, 0, n);
  CHECK_EQ(sum, 25000000.0f);
  float running = 0;
  for (int64_t i = 0; i < n; ++i) running += 1.0f;
  CHECK_EQ(running, 16777216.0f);  // what the pairwise order avoids
}

TEST(NpSum, OfIntegersIsExactAndOfNothingIsZero) {
  std::vector<double> a(1000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i) - 300.0;
  for (int64_t n : {0, 1, 7, 8, 9, 127, 128, 129, 300, 1000}) {
    CHECK_EQ(NpSum(a.data(), n), static_cast<double>(n * (n - 1) / 2 - 300 * n));
  }
  const double minus_zero[] = {-0.0};
  CHECK(SameBits(NpSum(minus_zero, 1), 0.0));  // the reduction starts from +0.0, as NumPy's
}

TEST(NpSum, OfSquaresIsTheSumOfTheRoundedSquares) {
  NumpyGenerator rng(5);
  for (int64_t n : {3, 8, 50, 200}) {
    std::vector<float> a(static_cast<size_t>(n)), squares(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      a[i] = static_cast<float>(rng.Uniform(-10.0, 10.0));
      squares[i] = a[i] * a[i];
    }
    CHECK(SameBits(NpSumOfSquares(a.data(), n), NpSum(squares.data(), n)));
  }
}

TEST(NpClip, ClipsAndKeepsNan) {
  CHECK_EQ(NpClip(0.5, 0.0, 1.0), 0.5);
  CHECK_EQ(NpClip(-2.0, -1.0, 1.0), -1.0);
  CHECK_EQ(NpClip(7.0, -1.0, 1.0), 1.0);
  CHECK_EQ(NpClip(0.5, 2.0, 1.0), 1.0);  // low > high: high wins, as np.minimum(.., high)
  CHECK(std::isnan(NpClip(std::nan(""), 0.0, 1.0)));
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_EQ(NpClip(inf, -1.0, 1.0), 1.0);
  CHECK_EQ(NpClip(-inf, -1.0, 1.0), -1.0);
}

TEST(NpNorm, IsTheSquareRootOfTheLeftToRightDotProduct) {
  const double v[] = {3.0, 4.0};
  CHECK_EQ(NpNorm(v, 2), 5.0);
  CHECK_EQ(NpNorm(v, 0), 0.0);
  const double w[] = {-2.5};
  CHECK_EQ(NpNorm(w, 1), 2.5);
  // OpenBLAS's ddot accumulates left to right; its AVX-512 kernel fuses each multiply-add,
  // the other kernels round the product first. NpDotSelf follows the kernel this CPU gets.
  const bool fused = numpy_math::internal::HasOpenBlasFusedDdot();
  NumpyGenerator rng(6);
  int bad = 0, chains_differ = 0;
  for (int i = 0; i < 1000; ++i) {
    double x[7], twice[7], rounded = 0, contracted = 0;
    for (int j = 0; j < 7; ++j) {
      x[j] = rng.Uniform(-5.0, 5.0);
      twice[j] = 2 * x[j];
      rounded += Opaque(x[j] * x[j]);
      contracted = std::fma(x[j], x[j], contracted);
    }
    chains_differ += rounded != contracted;
    bad += NpDotSelf(x, 7) != (fused ? contracted : rounded);
    bad += NpNorm(x, 7) != std::sqrt(NpDotSelf(x, 7));
    bad += NpNorm(twice, 7) != 2 * NpNorm(x, 7);  // scaling by 2 is exact
  }
  CHECK_EQ(bad, 0);
  CHECK(chains_differ > 0);  // the two kernels are told apart by these vectors
}

}  // namespace
}  // namespace envfleet
