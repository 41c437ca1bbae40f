// Formats results for people as fixed-width tables: benchmark rows (the measurement core's output), history
// queries, kforge asm reports. No computation here.
#pragma once

#include <ostream>
#include <vector>

#include "bench/bench.hpp"
#include "tools/asm.hpp"
#include "tools/history.hpp"
#include "tools/profile_classify.hpp"
#include "tools/tune.hpp"

namespace kforge::cli {

void print_bench_table(std::ostream& os, const std::vector<BenchRow>& rows);

// kforge history: attempts (tried), best rows (best), and regressions.
void print_history_table(std::ostream& os, const std::vector<HistoryRecord>& records);
void print_best_table(std::ostream& os, const std::vector<HistoryRecord>& records);
void print_regressions_table(std::ostream& os, const std::vector<Regression>& regressions);

// kforge tune: one line per tuned case and layout (the rows' case_name and layout): winner, runner-up, margin.
void print_tune_table(std::ostream& os, const std::vector<TuneResult>& results);

// kforge asm: one line per re-assembled unit, and per-kernel resource usage.
void print_roundtrip(std::ostream& os, const RoundtripResult& r);
void print_resources_table(std::ostream& os, const std::vector<KernelResources>& kernels);

// kforge profile: one kernel's numbers, its class and the reading.
void print_profile(std::ostream& os, const KernelProfile& p, Bound b, const std::string& reading);

}  // namespace kforge::cli
