// The A/B verdict: order-statistic intervals of the medians, a bootstrap interval of their ratio, the rule.
#include "tools/run/ab_verdict.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <random>

#include "kforge/types.hpp"

namespace kforge {
namespace {

double median_of(std::vector<double>& v) {
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  return (*std::max_element(v.begin(), v.begin() + mid) + upper) / 2;
}

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

double iqr_over_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double median = quantile_of_sorted(v, 0.5);
  return median > 0 ? (quantile_of_sorted(v, 0.75) - quantile_of_sorted(v, 0.25)) / median : 0.0;
}

// Percentile interval of median(B*) / median(A*) over resamples of each side (with replacement).
Interval bootstrap_ratio(const std::vector<double>& a, const std::vector<double>& b, const AbRule& rule) {
  std::mt19937_64 rng(rule.seed);  // fixed: the same samples always give the same verdict
  std::vector<double> ratios, ra(a.size()), rb(b.size());
  ratios.reserve(static_cast<size_t>(rule.bootstrap_resamples));
  for (int i = 0; i < rule.bootstrap_resamples; ++i) {
    for (double& x : ra) x = a[rng() % a.size()];
    for (double& x : rb) x = b[rng() % b.size()];
    ratios.push_back(median_of(rb) / median_of(ra));
  }
  std::sort(ratios.begin(), ratios.end());
  return {quantile_of_sorted(ratios, 0.025), quantile_of_sorted(ratios, 0.975)};
}

std::string pct(double fraction) { return fmt::format("{:.1f}%", fraction * 100); }

}  // namespace

const char* ab_verdict_name(AbVerdict v) {
  switch (v) {
    case AbVerdict::faster: return "FASTER";
    case AbVerdict::slower: return "SLOWER";
    case AbVerdict::same: return "SAME";
    case AbVerdict::undecided: return "UNDECIDED";
  }
  return "?";
}

Interval median_interval(std::vector<double> samples, double z) {
  if (samples.empty()) throw Error("median_interval: expected at least one sample, but got none");
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  const double half_width = z * std::sqrt(n) / 2;
  // 1-based ranks floor(n/2 - w) and ceil(1 + n/2 + w), as 0-based indices clamped to the samples.
  const auto lo = static_cast<int64_t>(std::floor(n / 2 - half_width)) - 1;
  const auto hi = static_cast<int64_t>(std::ceil(1 + n / 2 + half_width)) - 1;
  const int64_t last = static_cast<int64_t>(samples.size()) - 1;
  return {samples[static_cast<size_t>(std::clamp<int64_t>(lo, 0, last))],
          samples[static_cast<size_t>(std::clamp<int64_t>(hi, 0, last))]};
}

AbStats ab_verdict(const std::vector<double>& a, const std::vector<double>& b, const AbRule& rule) {
  AbStats s;
  if (static_cast<int>(std::min(a.size(), b.size())) < rule.min_samples) {
    s.reason = fmt::format("too few samples to tell (A {}, B {}; at least {} each)", a.size(), b.size(),
                           rule.min_samples);
    return s;
  }
  std::vector<double> ca = a, cb = b;
  s.median_a = median_of(ca);
  s.median_b = median_of(cb);
  s.median_ci_a = median_interval(a, rule.z);
  s.median_ci_b = median_interval(b, rule.z);
  s.ratio = s.median_b / s.median_a;
  s.ratio_ci = bootstrap_ratio(a, b, rule);
  s.spread = std::max(iqr_over_median(a), iqr_over_median(b));
  s.noise = std::max(s.spread, rule.min_noise);
  s.band = std::min(s.noise, rule.max_band);

  const double b_above = (s.median_ci_b.lo - s.median_ci_a.hi) / s.median_a;  // > 0: B's interval above A's
  const double b_below = (s.median_ci_a.lo - s.median_ci_b.hi) / s.median_a;
  if (b_above > s.noise || b_below > s.noise) {
    s.verdict = b_above > 0 ? AbVerdict::slower : AbVerdict::faster;
    s.reason = fmt::format("the 95% intervals of the medians are {} apart, more than the noise {}",
                           pct(std::max(b_above, b_below)), pct(s.noise));
  } else if (s.ratio_ci.lo >= 1 - s.band && s.ratio_ci.hi <= 1 + s.band) {
    s.verdict = AbVerdict::same;
    s.reason = fmt::format("the 95% interval of B/A, [{:.4f}, {:.4f}], lies within 1 -+ {}", s.ratio_ci.lo,
                           s.ratio_ci.hi, pct(s.band));
  } else {
    s.reason = fmt::format("the medians' intervals are not apart by more than the noise {}, and the 95% interval "
                           "of B/A, [{:.4f}, {:.4f}], is not within 1 -+ {}: take more samples or quiet the GPU",
                           pct(s.noise), s.ratio_ci.lo, s.ratio_ci.hi, pct(s.band));
  }
  return s;
}

}  // namespace kforge
