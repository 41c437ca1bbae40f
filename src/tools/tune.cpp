// The autotuner: the bench's per-variant check over a family's candidates, the PASSes timed round-robin, the
// fastest recorded.
#include "tools/tune.hpp"

#include <algorithm>
#include <optional>

#include "core/cuda_stream.hpp"
#include "dispatch/tune_cache.hpp"
#include "measure/device_info.hpp"
#include "tools/history.hpp"

namespace kforge {
namespace {

// PASS rows, fastest first (registry order among equal medians).
std::vector<const BenchRow*> passed_by_time(const std::vector<BenchRow>& rows) {
  std::vector<const BenchRow*> out;
  for (const BenchRow& r : rows)
    if (r.status == "PASS" && r.timing) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const BenchRow* a, const BenchRow* b) {
    return a->timing->median_ms < b->timing->median_ms;
  });
  return out;
}

TuneEntry entry_of(const ConvProblem& p, const TuneResult& r) {
  TuneEntry e;
  e.problem = p.describe();
  e.winner = r.winner()->variant;
  e.median_ms = r.winner()->timing->median_ms;
  e.tuned_at = utc_iso_now();
  for (const BenchRow& row : r.rows) {
    TunedCandidate c{row.variant, row.status, std::nullopt, row.reason};
    if (row.timing) c.median_ms = row.timing->median_ms;
    // A wrong result's reason is its error against the reference.
    if (row.status == "FAIL" && c.reason.empty()) c.reason = row.error.summary();
    e.candidates.push_back(std::move(c));
  }
  return e;
}

}  // namespace

const BenchRow* TuneResult::winner() const {
  const auto ranked = passed_by_time(rows);
  return ranked.empty() ? nullptr : ranked[0];
}

const BenchRow* TuneResult::runner_up() const {
  const auto ranked = passed_by_time(rows);
  return ranked.size() < 2 ? nullptr : ranked[1];
}

double TuneResult::margin() const {
  const BenchRow* second = runner_up();
  return second ? second->timing->median_ms / winner()->timing->median_ms - 1.0 : 0.0;
}

bool TuneResult::margin_within_spread() const {
  const BenchRow* second = runner_up();
  return second && margin() < std::max(winner()->timing->iqr_rel, second->timing->iqr_rel);
}

TuneResult tune_problem(const ConvProblem& p, const std::string& family, const TuneOptions& opt,
                        const TuneProgress& progress) {
  const DeviceKey device = device_key(query_device());
  BenchOptions bench;  // the bench's thresholds and choice of reference
  bench.seed = opt.seed;
  bench.timer.max_seconds = opt.max_seconds;
  std::vector<const Variant*> variants;
  for (const Variant* v : Registry::instance().family(family))
    if (v->library) variants.push_back(v);
  // Each variant's number among the candidates (1-based; 0 when it refuses p), asked once.
  std::vector<int> numbers;
  int candidates = 0;
  for (const Variant* v : variants) numbers.push_back(bench_refusal(*v, p).empty() ? ++candidates : 0);

  // Every candidate is checked first, then the PASSes are timed round-robin: timed one after another, the later
  // ones run on a hotter board, and each only for its first ~30 ms (src/dense/NOTES.md, "Dispatch").
  BenchOptions check = bench;
  check.time = false;
  const CudaStream stream;
  TuneResult r;
  std::vector<size_t> passed;  // rows whose check passed: reported again once timed
  for (size_t i = 0; i < variants.size(); ++i) {
    BenchRow row = bench_variant(*variants[i], p, check, opt.seed + 16 * static_cast<uint64_t>(numbers[i]),
                                 stream.get());
    row.suite = family;
    row.layout = layout_name(p.x_layout());
    row.dtype = dtype_name(p.dtype);
    if (progress) progress(row, numbers[i], candidates);
    if (row.status == "PASS") passed.push_back(i);
    r.rows.push_back(std::move(row));
  }
  time_passing_round_robin(variants, r.rows, p, bench, opt.seed + 16 * static_cast<uint64_t>(candidates + 1),
                           stream.get());
  if (progress)
    for (size_t i : passed) progress(r.rows[i], numbers[i], candidates);
  if (r.winner()) record_tuned(device, p, entry_of(p, r));
  return r;
}

}  // namespace kforge
