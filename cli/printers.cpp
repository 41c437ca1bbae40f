#include "printers.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kforge::cli {

void print_bench_table(std::ostream& os, const std::vector<BenchRow>& rows) {
  os << fmt::format("{:<16} {:<6} {:<36} {:<5} {:>9} {:>8} {:>8} {:>8} {:>7} {:>8} {:>6} {:>9} {:>9}\n", "case",
                    "layout", "variant", "check", "ms", "spread", "x cuDNN", "x torch", "%floor", "TFLOP/s", "TB/s",
                    "calc_diff", "rel_l2");
  for (const BenchRow& r : rows) {
    if (r.status == "SKIP" || r.status == "ERROR") {
      os << fmt::format("{:<16} {:<6} {:<36} {:<5} {}\n", r.case_name, r.layout, r.variant, r.status, r.reason);
      continue;
    }
    const std::string ratio = r.x_cudnn > 0 ? fmt::format("{:.2f}x", r.x_cudnn) : "-";
    const std::string torch = r.x_torch > 0 ? fmt::format("{:.2f}x", r.x_torch) : "-";
    if (r.timing) {
      os << fmt::format("{:<16} {:<6} {:<36} {:<5} {:>9.4f} {:>7.1f}% {:>8} {:>8} {:>6.1f}% {:>8.1f} {:>6.2f} {:>9.2e} {:>9.2e}\n",
                        r.case_name, r.layout, r.variant, r.status, r.timing->median_ms, r.timing->iqr_rel * 100,
                        ratio, torch, r.pct_of_floor(), r.tflops(), r.tbps(), r.error.calc_diff, r.error.rel_l2);
    } else {
      os << fmt::format("{:<16} {:<6} {:<36} {:<5} {:>9} {:>8} {:>8} {:>8} {:>7} {:>8} {:>6} {:>9.2e} {:>9.2e}  {}\n",
                        r.case_name, r.layout, r.variant, r.status, "-", "-", "-", "-", "-", "-", "-",
                        r.error.calc_diff, r.error.rel_l2, r.reason);
    }
  }
  os << "spread: interquartile range over the median; %floor: roofline floor (max of minimal bytes at the measured copy\n"
        "bandwidth, FLOPs at the measured bf16 GEMM rate) over the median, 100% = at the roofline.\n";
  if (std::none_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.timing.has_value(); })) return;
  const bool round_robin = std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.round_robin > 0; });
  os << (round_robin ? "timing: the passing variants of each case round-robin (--interleave), the L2 flushed before "
                       "every sample\n"
                     : "timing: one variant after another (a board at its power cap runs the later ones hotter; "
                       "--interleave times them round-robin)\n");
}

}  // namespace kforge::cli

namespace kforge::cli {
namespace {

std::string or_dash(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : "-";
}
std::string ms(const std::optional<double>& v) { return or_dash(v, "{:.4f}"); }
std::string percent(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v * 100) : "-"; }
std::string sci(const std::optional<double>& v) { return or_dash(v, "{:.2e}"); }

}  // namespace

void print_history_table(std::ostream& os, const std::vector<HistoryRecord>& records) {
  os << fmt::format("{:<20} {:<14} {:<16} {:<6} {:<5} {:<36} {:<5} {:>9} {:>7} {:>7} {:>9} {:>9}  {}\n", "time (UTC)",
                    "revision", "gpu", "layout", "dtype", "variant", "check", "ms", "spread", "samples", "calc_diff",
                    "rel_l2", "notes");
  for (const HistoryRecord& r : records)
    os << fmt::format("{:<20} {:<14} {:<16} {:<6} {:<5} {:<36} {:<5} {:>9} {:>7} {:>7} {:>9} {:>9}  {}\n", r.time_utc,
                      r.git_revision, r.gpu, r.layout, r.dtype, r.variant, r.status, ms(r.median_ms),
                      percent(r.iqr_rel), r.samples, sci(r.calc_diff), sci(r.rel_l2), r.notes);
}

void print_best_table(std::ostream& os, const std::vector<HistoryRecord>& records) {
  os << fmt::format("{:<16} {:<6} {:<5} {:<36} {:>9} {:>7} {:>7}  {:<16} {:<20} {}\n", "case", "layout", "dtype",
                    "variant", "best ms", "spread", "samples", "gpu", "time (UTC)", "revision");
  for (const HistoryRecord& r : records)
    os << fmt::format("{:<16} {:<6} {:<5} {:<36} {:>9} {:>7} {:>7}  {:<16} {:<20} {}\n", r.case_name, r.layout,
                      r.dtype, r.variant, ms(r.median_ms), percent(r.iqr_rel), r.samples, r.gpu, r.time_utc,
                      r.git_revision);
}

void print_regressions_table(std::ostream& os, const std::vector<Regression>& regressions) {
  if (regressions.empty()) {
    os << "no regressions: every variant's latest median is within the noise of its best\n";
    return;
  }
  os << fmt::format("{:<16} {:<6} {:<5} {:<36} {:>9} {:>9} {:>8} {:>6}  {:<36} {}\n", "case", "layout", "dtype",
                    "variant", "best ms", "latest ms", "slower", "noise", "best (time, revision)",
                    "latest (time, revision)");
  for (const Regression& g : regressions)
    os << fmt::format("{:<16} {:<6} {:<5} {:<36} {:>9} {:>9} {:>7.1f}% {:>5.1f}%  {:<36} {}\n", g.best.case_name,
                      g.best.layout, g.best.dtype, g.best.variant, ms(g.best.median_ms), ms(g.latest.median_ms),
                      g.slowdown() * 100, g.noise * 100, g.best.time_utc + " " + g.best.git_revision,
                      g.latest.time_utc + " " + g.latest.git_revision);
  os << "slower: latest median over best median - 1; noise: max(IQR spread of either, 2%) (each on its GPU)\n";
}

void print_tune_table(std::ostream& os, const std::vector<TuneResult>& results) {
  os << fmt::format("{:<16} {:<6} {:<36} {:>9}  {:<36} {:>9} {:>8}\n", "case", "layout", "winner", "ms", "runner-up",
                    "ms", "margin");
  for (const TuneResult& r : results) {
    const BenchRow& first = r.rows.front();
    const BenchRow* winner = r.winner();
    if (!winner) {
      os << fmt::format("{:<16} {:<6} no candidate passed: nothing recorded\n", first.case_name, first.layout);
      continue;
    }
    const BenchRow* second = r.runner_up();
    os << fmt::format("{:<16} {:<6} {:<36} {:>9.4f}  {:<36} {:>9} {:>8}{}\n", first.case_name, first.layout,
                      winner->variant, winner->timing->median_ms, second ? second->variant : "-",
                      second ? fmt::format("{:.4f}", second->timing->median_ms) : "-",
                      second ? fmt::format("+{:.1f}%", r.margin() * 100) : "-",
                      r.margin_within_spread() ? "  (within the spread)" : "");
  }
  os << "margin: runner-up median over winner median - 1, both from the final round-robin of the screening's fastest; "
        "spread: interquartile range over the median\n";
}

void print_roundtrip(std::ostream& os, const RoundtripResult& r) {
  if (!r.first_difference) {
    os << fmt::format("{:<40} identical ({} bytes)\n", r.source, r.nvcc_bytes);
    return;
  }
  os << fmt::format("{:<40} DIFFERENT: first difference at byte {} (0x{:x}){}; nvcc {} bytes, ptxas {} bytes\n"
                    "{:<40} nvcc: {}\n{:<40} ptxas: {}\n",
                    r.source, *r.first_difference, *r.first_difference,
                    r.section.empty() ? "" : " in " + r.section, r.nvcc_bytes, r.ptxas_bytes, "", r.nvcc_cubin, "",
                    r.ptxas_cubin);
  for (const std::string& f : r.changed_sources)
    os << fmt::format("{:<40} stale build: {} changed after nvcc ran (ptxas records source times and sizes in "
                      ".debug_line): rebuild kforge_asm\n", "", f);
}

void print_resources_table(std::ostream& os, const std::vector<KernelResources>& kernels) {
  os << fmt::format("{:<7} {:>4} {:>8} {:>6} {:>6} {:>13}  {}\n", "arch", "regs", "shared", "stack", "local",
                    "spill st/ld", "kernel");
  for (const KernelResources& k : kernels) {
    const std::string spills =
        k.spill_store_bytes ? fmt::format("{}/{}", *k.spill_store_bytes, k.spill_load_bytes.value_or(0)) : "-";
    os << fmt::format("{:<7} {:>4} {:>8} {:>6} {:>6} {:>13}  {}\n", k.arch.empty() ? "-" : k.arch, k.registers,
                      k.shared_bytes, k.stack_bytes, k.local_bytes, spills, demangle(k.name));
  }
  os << "bytes per block (shared) and per thread (stack, local); spills from ptxas -v (- without the PTX)\n";
}

void print_profile(std::ostream& os, const KernelProfile& p, Bound b, const std::string& reading) {
  const auto pct = [](const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : std::string("n/a"); };
  os << fmt::format("\nkernel {}\n  grid {} x block {}\n", p.kernel, p.grid, p.block);
  os << fmt::format("  duration {}  SM throughput {}  memory throughput {}  DRAM {}{}\n",
                    p.duration_s ? fmt::format("{:.4f} ms", *p.duration_s * 1e3) : "n/a", pct(p.sm_pct),
                    pct(p.memory_pct), pct(p.dram_pct),
                    p.dram_bytes_per_s ? fmt::format(" ({:.2f} TB/s)", *p.dram_bytes_per_s / 1e12) : "");
  os << fmt::format("  occupancy {} achieved of {} theoretical  tensor pipes {}\n", pct(p.occupancy_pct),
                    pct(p.theoretical_occupancy_pct), pct(p.tensor_pct));
  os << "  stalls:";
  if (p.stalls.empty()) os << " n/a";
  for (size_t i = 0; i < std::min<size_t>(p.stalls.size(), 6); ++i)
    os << fmt::format(" {} {:.1f}%", p.stalls[i].reason, p.stalls[i].share * 100);
  os << (p.stalls.empty() ? "" : " (of stall cycles, from " + p.stall_metrics + ")") << "\n";
  os << "  => " << bound_name(b) << "\n  " << reading << "\n";
}

}  // namespace kforge::cli
