// The noise-aware verdict of `kforge compare`: is B faster than A, slower, the same, or can these samples not
// tell? A pure function of the two sample lists (deterministic: its bootstrap has a fixed seed), so its rule is
// tested on synthetic samples.
//
// The rule, with spread = the larger interquartile range over median of A and B (one sample's run-to-run spread):
//   noise = max(spread, min_noise)            the smallest relative difference that counts
//   band  = min(noise, max_band)              the equivalence band for SAME
//   FASTER / SLOWER: the 95% confidence intervals of the two medians (order statistics, distribution-free) are
//                    disjoint and the gap between them exceeds noise * median(A);
//   SAME:            else, when the 95% bootstrap interval of median(B) / median(A) lies within [1 - band, 1 + band];
//   UNDECIDED:       otherwise, and whenever either side has fewer than min_samples samples.
// FASTER means B takes less time than A.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kforge {

enum class AbVerdict { faster, slower, same, undecided };
const char* ab_verdict_name(AbVerdict v);  // "FASTER" | "SLOWER" | "SAME" | "UNDECIDED"

struct AbRule {
  double z = 1.959964;     // two-sided 95%
  double min_noise = 0.01; // below 1% the event timer's resolution and clock jitter dominate
  double max_band = 0.03;  // SAME never covers more than +-3%, however noisy the samples
  int bootstrap_resamples = 2000;
  uint64_t seed = 0x6b666f7267652d61ull;
  int min_samples = 10;
};

struct Interval {
  double lo = 0, hi = 0;
};

struct AbStats {
  AbVerdict verdict = AbVerdict::undecided;
  double median_a = 0, median_b = 0;
  Interval median_ci_a, median_ci_b;  // 95% intervals of each median
  double ratio = 0;                   // median(B) / median(A): below 1, B is faster
  Interval ratio_ci;                  // 95% bootstrap interval of the ratio
  double spread = 0, noise = 0, band = 0;
  std::string reason;                 // one sentence: why this verdict
};

AbStats ab_verdict(const std::vector<double>& a, const std::vector<double>& b, const AbRule& rule = {});

// The 95% (for the rule's z) distribution-free interval of the median of `samples`: the order statistics of
// ranks n/2 -+ z*sqrt(n)/2 (normal approximation of the binomial), clamped to the sample range.
Interval median_interval(std::vector<double> samples, double z);

}  // namespace kforge
