// Correctness metrics on the host: ErrorStats rules, its one-line summary, and compare_host.
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "measure/error_sums.hpp"
#include "measure/metrics.hpp"
#include "reference/reference.hpp"

namespace kforge {

bool ErrorStats::passes(double max_calc_diff, double max_rel_l2) const {
  // Written so that a NaN metric fails too.
  return nan_count == 0 && inf_count == 0 && calc_diff <= max_calc_diff && rel_l2 <= max_rel_l2;
}

std::string ErrorStats::summary() const {
  char line[160];
  std::snprintf(line, sizeof(line), "calc_diff %.1e rel_l2 %.1e max_abs %.1e nan %lld inf %lld", calc_diff, rel_l2,
                max_abs, static_cast<long long>(nan_count), static_cast<long long>(inf_count));
  return line;
}

namespace metrics_detail {

ErrorStats finish(const ErrorSums& sums, int64_t count) {
  ErrorStats s;
  s.count = count;
  s.nan_count = sums.nan_count;
  s.inf_count = sums.inf_count;
  s.max_abs = sums.max_abs;
  s.ref_l2 = std::sqrt(sums.yy);
  const double energy = sums.xx + sums.yy;
  s.cosine = sums.xx > 0.0 && sums.yy > 0.0 ? sums.xy / std::sqrt(sums.xx * sums.yy) : (energy == 0.0 ? 1.0 : 0.0);
  if (energy == 0.0) {
    // Both sides all zero (or underflowing): only an exact match is a perfect score.
    const bool exact = sums.max_abs == 0.0;
    s.calc_diff = exact ? 0.0 : 1.0;
    s.rel_l2 = exact ? 0.0 : std::numeric_limits<double>::infinity();
    return s;
  }
  s.calc_diff = 1.0 - 2.0 * sums.xy / energy;
  // An all-zero reference leaves no scale to be relative to: any output energy is an infinite relative error.
  s.rel_l2 = sums.yy > 0.0 ? std::sqrt(sums.dd) / s.ref_l2 : std::numeric_limits<double>::infinity();
  return s;
}

}  // namespace metrics_detail

ErrorStats compare_host(const void* out, DType dtype, const double* ref, int64_t n) {
  if (n < 0) throw Error("compare_host: expected a non-negative element count, but got " + std::to_string(n));
  if (n > 0 && (out == nullptr || ref == nullptr)) throw Error("compare_host: expected non-null out and ref pointers");
  metrics_detail::ErrorSums sums;
  for (int64_t i = 0; i < n; ++i) sums.add(load_as_double(out, dtype, i), ref[i]);
  return metrics_detail::finish(sums, n);
}

}  // namespace kforge
