#include "run_printers.hpp"

#include <fmt/format.h>

#include <sstream>

namespace kforge::cli {
namespace {

// "run" rows are labelled by their first word; compare rows by A / B as well.
std::string head(const std::string& word, const std::string& side) {
  return fmt::format("{:<8}", side.empty() ? word : word + " " + side);
}

std::string bytes(int64_t b) { return fmt::format("{} B", b); }

void print_timing_line(std::ostream& os, const std::string& side, const BenchRow& row) {
  const Timing& t = *row.timing;
  os << head("time", side)
     << fmt::format("{:.4f} ms median, spread {:.1f}% (IQR/median), min {:.4f}, max {:.4f}, {} samples ({}); "
                    "{:.1f}% of the roofline floor {:.4f} ms; {:.2f} TFLOP/s, {:.3f} TB/s\n",
                    t.median_ms, t.iqr_rel * 100, t.min_ms, t.max_ms, t.samples_ms.size(), t.stop_reason,
                    row.pct_of_floor(), row.floor_ms, row.tflops(), row.tbps());
}

}  // namespace

void print_task(std::ostream& os, const RunTask& task, uint64_t seed) {
  const ConvProblem& p = task.problem;
  os << head("task", "") << task.name << ": " << p.describe() << "\n";
  os << head("", "")
     << fmt::format("{:.3e} FLOP, {:.1f} MB minimal traffic; tolerance calc_diff <= {:.1e}, rel_l2 <= {:.1e}; "
                    "inputs from --seed {}\n",
                    p.flops(), p.min_bytes() / 1e6, task.max_calc_diff, task.max_rel_l2, seed);
}

void print_build(std::ostream& os, const std::string& side, const KernelImage& image, const std::string& arch) {
  os << head("build", side) << image.label << ": ";
  if (image.kind == ImageKind::ptx) os << "PTX, compiled by the driver when loaded\n";
  else if (image.key.empty()) os << "cubin, loaded as it is\n";
  else os << arch << ", cache " << image.cache << " (" << image.cache_file << ")\n";
  std::istringstream log(image.log);
  for (std::string line; std::getline(log, line);) os << head("", "") << "| " << line << "\n";
}

void print_kernel_run(std::ostream& os, const std::string& side, const KernelRun& run) {
  const KernelResources& r = run.resources;
  const std::string spills = r.spill_store_bytes ? fmt::format("spills {} stored / {} loaded", bytes(*r.spill_store_bytes),
                                                               bytes(r.spill_load_bytes.value_or(0)))
                                                 : "spills unknown (no ptxas report)";
  os << head("kernel", side)
     << fmt::format("{} registers, {} static + {} dynamic shared memory per block, {} local per thread, {}", r.registers,
                    bytes(r.shared_bytes), bytes(run.geometry.dynamic_smem_bytes), bytes(r.local_bytes), spills);
  if (run.geometry.threads > 0) os << fmt::format("; {} blocks of {} threads", run.geometry.blocks, run.geometry.threads);
  os << "\n";
  const BenchRow& row = run.row;
  os << head("check", side) << fmt::format("{:<5} ", row.status);
  if (row.status == "PASS" || row.status == "FAIL")
    os << row.error.summary() << (row.deterministic ? ", deterministic" : ", NOT deterministic") << " (" << row.reference
       << ")" << (row.reason.empty() ? "" : ": " + row.reason);
  else
    os << row.reason;
  os << "\n";
  if (row.timing) print_timing_line(os, side, row);
}

void print_comparison(std::ostream& os, const KernelComparison& c) {
  if (c.a.row.status == "PASS" || c.a.row.status == "FAIL") {
    os << head("agree", "") << "B vs A: "
       << (c.bitwise_equal ? std::string("bitwise equal") : "differ: " + c.b_vs_a.summary())
       << fmt::format(", cosine {:.8f}\n", c.b_vs_a.cosine);
  }
  if (!c.refusal.empty()) {
    os << "verdict REFUSED: not timed, " << c.refusal << "\n";
    return;
  }
  if (!c.verdict) {
    os << "verdict NONE: checked only (--no-time)\n";
    return;
  }
  const AbStats& v = *c.verdict;
  os << head("timing", "") << "interleaved A B B A A B B A ..., the L2 flushed before every sample\n";
  for (const auto& [side, median, ci, row] : {std::tuple{"A", v.median_a, v.median_ci_a, &c.a.row},
                                              std::tuple{"B", v.median_b, v.median_ci_b, &c.b.row}}) {
    os << head("", "")
       << fmt::format("{} {:.4f} ms, 95% interval [{:.4f}, {:.4f}], spread {:.1f}%, {} samples ({}), {:.1f}% of the floor\n",
                      side, median, ci.lo, ci.hi, row->timing->iqr_rel * 100, row->timing->samples_ms.size(),
                      row->timing->stop_reason, row->pct_of_floor());
  }
  os << head("", "")
     << fmt::format("B/A {:.4f}, 95% interval [{:.4f}, {:.4f}]; noise {:.1f}%, SAME band 1 -+ {:.1f}%\n", v.ratio,
                    v.ratio_ci.lo, v.ratio_ci.hi, v.noise * 100, v.band * 100);
  os << "verdict " << ab_verdict_name(v.verdict);
  switch (v.verdict) {
    case AbVerdict::faster: os << fmt::format(": B takes {:.1f}% less time than A", (1 - v.ratio) * 100); break;
    case AbVerdict::slower: os << fmt::format(": B takes {:.1f}% more time than A", (v.ratio - 1) * 100); break;
    case AbVerdict::same: os << ": B and A take the same time"; break;
    case AbVerdict::undecided: os << ": these samples cannot tell B from A"; break;
  }
  os << " (" << v.reason << ")\n";
}

}  // namespace kforge::cli
