// Running sums behind ErrorStats, shared by compare_host and the compare_device kernel so both apply the
// same rules to every element. Limits: plain double sums (no compensation); fine for the 1e-7 level that
// calc_diff thresholds need, even over 1e9 elements.
#pragma once

#include <cmath>
#include <cstdint>

#include "measure/metrics.hpp"


namespace kforge::metrics_detail {

struct ErrorSums {
  double xy = 0.0, xx = 0.0, yy = 0.0, dd = 0.0;  // sum x*y, x*x, y*y, (x-y)^2 over finite outputs
  double max_abs = 0.0;                            // max |x-y|; NaN differences never raise it
  int64_t nan_count = 0, inf_count = 0;

  // x: output, y: reference. A NaN output is only counted; an infinite one is counted (when the reference
  // is finite) and drives max_abs to Inf, but stays out of the sums so they still describe the finite part.
  KF_HOST_DEVICE void add(double x, double y) {
    if (x != x) {
      ++nan_count;
      return;
    }
    const double d = x - y;
    max_abs = fmax(max_abs, fabs(d));
    if (fabs(x) == INFINITY) {
      if (fabs(y) < INFINITY) ++inf_count;
      return;
    }
    xy += x * y;
    xx += x * x;
    yy += y * y;
    dd += d * d;
  }

  KF_HOST_DEVICE void merge(const ErrorSums& o) {
    xy += o.xy;
    xx += o.xx;
    yy += o.yy;
    dd += o.dd;
    max_abs = fmax(max_abs, o.max_abs);
    nan_count += o.nan_count;
    inf_count += o.inf_count;
  }
};

// The metrics of `count` compared elements from their sums (host; defined in metrics.cpp).
ErrorStats finish(const ErrorSums& sums, int64_t count);

}  // namespace kforge::metrics_detail
