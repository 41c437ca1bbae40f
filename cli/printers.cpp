#include "printers.hpp"

#include <fmt/format.h>

namespace kforge::cli {

void print_bench_table(std::ostream& os, const std::vector<BenchRow>& rows) {
  os << fmt::format("{:<16} {:<6} {:<22} {:<5} {:>9} {:>8} {:>8} {:>8} {:>7} {:>8} {:>6} {:>9} {:>9}\n", "case",
                    "layout", "variant", "check", "ms", "spread", "x cuDNN", "x torch", "%floor", "TFLOP/s", "TB/s",
                    "calc_diff", "rel_l2");
  for (const BenchRow& r : rows) {
    if (r.status == "SKIP" || r.status == "ERROR") {
      os << fmt::format("{:<16} {:<6} {:<22} {:<5} {}\n", r.case_name, r.layout, r.variant, r.status, r.reason);
      continue;
    }
    const std::string ratio = r.x_cudnn > 0 ? fmt::format("{:.2f}x", r.x_cudnn) : "-";
    const std::string torch = r.x_torch > 0 ? fmt::format("{:.2f}x", r.x_torch) : "-";
    if (r.timing) {
      os << fmt::format("{:<16} {:<6} {:<22} {:<5} {:>9.4f} {:>7.1f}% {:>8} {:>8} {:>6.1f}% {:>8.1f} {:>6.2f} {:>9.2e} {:>9.2e}\n",
                        r.case_name, r.layout, r.variant, r.status, r.timing->median_ms, r.timing->iqr_rel * 100,
                        ratio, torch, r.pct_of_floor(), r.tflops(), r.tbps(), r.error.calc_diff, r.error.rel_l2);
    } else {
      os << fmt::format("{:<16} {:<6} {:<22} {:<5} {:>9} {:>8} {:>8} {:>8} {:>7} {:>8} {:>6} {:>9.2e} {:>9.2e}  {}\n",
                        r.case_name, r.layout, r.variant, r.status, "-", "-", "-", "-", "-", "-", "-",
                        r.error.calc_diff, r.error.rel_l2, r.reason);
    }
  }
  os << "spread: interquartile range over the median; %floor: roofline floor (max of minimal bytes at the measured copy\n"
        "bandwidth, FLOPs at the measured bf16 GEMM rate) over the median, 100% = at the roofline.\n";
}

}  // namespace kforge::cli
