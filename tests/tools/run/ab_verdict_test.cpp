// The A/B verdict rule on synthetic samples: same distribution -> SAME, 10% shifted -> SLOWER / FASTER (both
// orders), very noisy -> UNDECIDED, too few samples -> UNDECIDED; the median interval's ranks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tools/run/ab_verdict.hpp"

namespace kforge {
namespace {

// n timings around `median` ms with a relative log-normal spread `sigma` (GPU timings are skewed to the right).
std::vector<double> samples(int n, double median, double sigma, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, sigma);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(median * std::exp(normal(rng)));
  return out;
}

TEST(AbVerdict, SameDistributionIsSame) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const AbStats s = ab_verdict(samples(60, 1.0, 0.005, seed), samples(60, 1.0, 0.005, seed + 100));
    EXPECT_EQ(s.verdict, AbVerdict::same) << "seed " << seed << ": " << s.reason;
    EXPECT_NEAR(s.ratio, 1.0, 0.005);
    EXPECT_LE(s.ratio_ci.lo, s.ratio);
    EXPECT_GE(s.ratio_ci.hi, s.ratio);
  }
}

TEST(AbVerdict, TenPercentSlowerBIsSlowerAndTheOtherOrderIsFaster) {
  const std::vector<double> base = samples(60, 1.0, 0.005, 7), slow = samples(60, 1.1, 0.005, 8);
  const AbStats slower = ab_verdict(base, slow);
  EXPECT_EQ(slower.verdict, AbVerdict::slower) << slower.reason;
  EXPECT_NEAR(slower.ratio, 1.1, 0.01);
  const AbStats faster = ab_verdict(slow, base);
  EXPECT_EQ(faster.verdict, AbVerdict::faster) << faster.reason;
  EXPECT_NEAR(faster.ratio, 1 / 1.1, 0.01);
}

TEST(AbVerdict, VeryNoisySamplesAreUndecided) {
  // 30% log-normal spread: neither a 10% shift nor an equality can be told from 30 samples each.
  const AbStats shifted = ab_verdict(samples(30, 1.0, 0.3, 11), samples(30, 1.1, 0.3, 12));
  EXPECT_EQ(shifted.verdict, AbVerdict::undecided) << shifted.reason;
  const AbStats same = ab_verdict(samples(30, 1.0, 0.3, 13), samples(30, 1.0, 0.3, 14));
  EXPECT_EQ(same.verdict, AbVerdict::undecided) << same.reason;
  EXPECT_LE(same.band, AbRule{}.max_band);
  EXPECT_GT(same.noise, 0.2);
}

TEST(AbVerdict, ADifferenceWithinTheNoiseIsNotADifference) {
  // 0.5% apart with tight samples: the medians' intervals separate, but by less than the 1% noise floor.
  const AbStats s = ab_verdict(samples(200, 1.0, 0.001, 21), samples(200, 1.005, 0.001, 22));
  EXPECT_NE(s.verdict, AbVerdict::slower) << s.reason;
  EXPECT_EQ(s.verdict, AbVerdict::same) << s.reason;
}

TEST(AbVerdict, TooFewSamplesAreUndecided) {
  const AbStats s = ab_verdict(samples(5, 1.0, 0.001, 1), samples(5, 2.0, 0.001, 2));
  EXPECT_EQ(s.verdict, AbVerdict::undecided);
  EXPECT_NE(s.reason.find("too few samples"), std::string::npos) << s.reason;
}

TEST(AbVerdict, IsDeterministic) {
  const std::vector<double> a = samples(50, 1.0, 0.02, 31), b = samples(50, 1.01, 0.02, 32);
  const AbStats first = ab_verdict(a, b), second = ab_verdict(a, b);
  EXPECT_EQ(first.ratio_ci.lo, second.ratio_ci.lo);
  EXPECT_EQ(first.ratio_ci.hi, second.ratio_ci.hi);
  EXPECT_EQ(first.verdict, second.verdict);
}

TEST(AbVerdict, MedianIntervalUsesTheBinomialRanks) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  // n = 100, z = 1.96: ranks 40 and 61 (1-based), the textbook values.
  const Interval ci = median_interval(v, 1.959964);
  EXPECT_EQ(ci.lo, 40);
  EXPECT_EQ(ci.hi, 61);
  const Interval small = median_interval({3, 1, 2}, 1.959964);
  EXPECT_EQ(small.lo, 1);
  EXPECT_EQ(small.hi, 3);
}

TEST(AbVerdict, NamesAreTheCliWords) {
  EXPECT_STREQ(ab_verdict_name(AbVerdict::faster), "FASTER");
  EXPECT_STREQ(ab_verdict_name(AbVerdict::slower), "SLOWER");
  EXPECT_STREQ(ab_verdict_name(AbVerdict::same), "SAME");
  EXPECT_STREQ(ab_verdict_name(AbVerdict::undecided), "UNDECIDED");
}

}  // namespace
}  // namespace kforge
