// `kforge report`: one self-contained HTML page (inline SVG and CSS, no scripts, no external fonts) from the
// benchmark history: per kernel family a roofline of the best row of each (case, variant) against the recorded
// copy-bandwidth and bf16-GEMM ceilings, the trajectory of each variant's median over the runs of each case, and a
// table of the best row per case, layout, dtype and variant. Everything comes from the rows given.
// Limits: one GPU per page (rows of other GPUs are not comparable); rows written before schema 2 have no FLOPs,
// bytes or ceilings and are left off the roofline (the page says how many).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/history.hpp"

namespace kforge {

struct ReportOptions {
  std::string family;                                  // a suite name; "" for every family in the rows
  std::string gpu;                                     // "" for the GPU of the newest row
  std::optional<double> copy_tbps, gemm_bf16_tflops;   // instead of the ceilings recorded in the rows
  std::string source;                                  // where the rows came from (shown in the page's header)
  std::string generated_at;                            // UTC time (shown in the page's header)
};

// The fastest timed PASS row of each (suite, case, variant), with `per_layout` also of each layout and dtype;
// ordered by suite, case, layout, dtype, median.
std::vector<HistoryRecord> best_rows(const std::vector<HistoryRecord>& rows, bool per_layout);

// The roofline's floor of a row in ms: max(bytes / copy bandwidth, FLOPs / bf16 GEMM rate); nullopt without them.
std::optional<double> roofline_floor_ms(const HistoryRecord& r, double copy_tbps, double gemm_bf16_tflops);

// The page. Throws kforge::Error when no row matches the family and GPU.
std::string render_report(const std::vector<HistoryRecord>& rows, const ReportOptions& opt);

}  // namespace kforge
