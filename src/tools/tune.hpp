// kforge tune: which variant of a family is fastest for one problem on this GPU, measured the way `kforge bench`
// measures (fp64 check first, then the shared timer) and recorded in the autotune cache (dispatch/tune_cache.hpp)
// that the dense dispatch rule consults.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench.hpp"

namespace kforge {

struct TuneOptions {
  double max_seconds = 0.5;       // sampling budget per candidate of each round-robin timing (after the checks)
  int finalists = 4;              // the screening's fastest, timed again round-robin among themselves (1: no final)
  uint64_t seed = 0x74756e65ull;  // candidate i (1-based) checks on fresh inputs drawn from seed + 16 * i
};

struct TuneResult {
  // Every library variant of the family, in registry order: SKIP (refused), or PASS / FAIL / ERROR.
  // Labelled with the problem's layout and dtype; suite and case_name are the caller's.
  std::vector<BenchRow> rows;
  // Indices of the rows timed in the final round-robin (every PASS when there were no more than opt.finalists);
  // the other PASS rows keep their screening times, from the mix of all candidates.
  std::vector<size_t> finalists;
  const BenchRow* winner() const;     // the fastest finalist; null when none passed
  const BenchRow* runner_up() const;  // the second fastest finalist; null when fewer than two
  double margin() const;              // runner-up median / winner median - 1; 0 without a runner-up
  bool margin_within_spread() const;  // margin below either's interquartile spread: this run cannot tell them apart
};

// Called after each variant's check with its row and its number among the candidates (1-based; 0 when it was
// refused), once more for each PASS after the screening round-robin (with its timing, or ERROR if that threw), and
// once more for each finalist after the final one when there is one.
using TuneProgress = std::function<void(const BenchRow& row, int candidate, int candidates)>;

// Candidates: the family's library variants (no anchors) that accept `p` within their max_bench_flops. Each is
// checked against the fp64 reference on fresh inputs (calc_diff <= 1e-5, rel-L2 <= 1e-2, bitwise deterministic)
// and the PASSes are timed round-robin (the sustained state); the opt.finalists fastest are timed again among
// themselves, and the fastest of those is recorded in the autotune cache under the current device's key, with
// every candidate's median or reason. Nothing is recorded when none passes.
// Needs a GPU.
TuneResult tune_problem(const ConvProblem& p, const std::string& family, const TuneOptions& opt = {},
                        const TuneProgress& progress = {});

}  // namespace kforge
