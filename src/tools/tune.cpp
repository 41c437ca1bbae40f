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

// Indices of the timed PASS rows among `among`, fastest first (the given order among equal medians).
std::vector<size_t> passed_by_time(const std::vector<BenchRow>& rows, std::vector<size_t> among) {
  std::erase_if(among, [&](size_t i) { return rows[i].status != "PASS" || !rows[i].timing; });
  std::stable_sort(among.begin(), among.end(), [&](size_t a, size_t b) {
    return rows[a].timing->median_ms < rows[b].timing->median_ms;
  });
  return among;
}

// Every turn of the tuner's round-robins begins with the candidate alone for a while (TimerOptions::settle_ms):
// without it a sample's clock depends on the kernel timed just before it, at the power cap up to 17% faster after a
// low-power one and 6% slower after other finalists than after itself (src/measure/NOTES.md, "Carry-over"), and the
// tuner ranked close rivals by their neighbours as much as by themselves. A 16-ms kernel's samples still drift 100 ms
// after another kernel ran: the screening of every candidate settles for 50 ms, the final of the fastest for 200.
constexpr double kScreenSettleMs = 50, kFinalSettleMs = 200;

// `bench` with settle_ms of settling per turn (the timer leaves it out of the sampling time limit).
BenchOptions settling(BenchOptions bench, double settle_ms) {
  bench.timer.settle_ms = settle_ms;
  return bench;
}

// The screening's fastest, timed again round-robin among themselves, each turn settled longer.
// `passed`: the rows whose check passed (the screening may have turned them to ERROR since).
std::vector<size_t> time_finalists(const std::vector<const Variant*>& variants, std::vector<BenchRow>& rows,
                                   const std::vector<size_t>& passed, const ConvProblem& p, const BenchOptions& bench,
                                   int finalists, uint64_t seed, cudaStream_t stream) {
  std::vector<size_t> ranked = passed_by_time(rows, passed);
  if (ranked.size() <= static_cast<size_t>(finalists)) return ranked;  // the screening was the final
  for (size_t j = static_cast<size_t>(finalists); j < ranked.size(); ++j)
    rows[ranked[j]].reason = "not a finalist: timed in the screening round-robin of all " + std::to_string(ranked.size());
  ranked.resize(static_cast<size_t>(finalists));
  std::vector<const Variant*> final_variants;
  std::vector<BenchRow> final_rows;
  for (size_t i : ranked) {
    final_variants.push_back(variants[i]);
    final_rows.push_back(rows[i]);
  }
  time_passing_round_robin(final_variants, final_rows, p, settling(bench, kFinalSettleMs), seed, stream);
  for (size_t j = 0; j < ranked.size(); ++j) rows[ranked[j]] = std::move(final_rows[j]);
  return ranked;
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
  const auto ranked = passed_by_time(rows, finalists);
  return ranked.empty() ? nullptr : &rows[ranked[0]];
}

const BenchRow* TuneResult::runner_up() const {
  const auto ranked = passed_by_time(rows, finalists);
  return ranked.size() < 2 ? nullptr : &rows[ranked[1]];
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
  if (opt.finalists < 1) throw Error("tune_problem: expected finalists >= 1, but got " + std::to_string(opt.finalists));
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
    row.layout = layout_name(p.x_layout());
    row.dtype = dtype_name(p.dtype);
    if (progress) progress(row, numbers[i], candidates);
    if (row.status == "PASS") passed.push_back(i);
    r.rows.push_back(std::move(row));
  }
  time_passing_round_robin(variants, r.rows, p, settling(bench, kScreenSettleMs),
                           opt.seed + 16 * static_cast<uint64_t>(candidates + 1), stream.get());
  if (progress)
    for (size_t i : passed) progress(r.rows[i], numbers[i], candidates);
  r.finalists = time_finalists(variants, r.rows, passed, p, bench, opt.finalists,
                               opt.seed + 16 * static_cast<uint64_t>(candidates + 2), stream.get());
  if (progress && r.finalists.size() < passed.size())
    for (size_t i : r.finalists) progress(r.rows[i], numbers[i], candidates);
  if (r.winner()) record_tuned(device, p, entry_of(p, r));
  return r;
}

}  // namespace kforge
