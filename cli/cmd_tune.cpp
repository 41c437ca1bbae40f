// `kforge tune` wiring: suite cases -> tune_problem per layout (progress on stderr) -> table, history rows.
#include "cmd_tune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <optional>

#include "cli_util.hpp"
#include "cmd_history.hpp"
#include "dispatch/tune_cache.hpp"
#include "printers.hpp"
#include "tools/build_info.hpp"
#include "tools/history.hpp"
#include "tools/tune.hpp"

namespace kforge::cli {
namespace {

// "c1024_k133 ndhwc: dense_v2_persistent_128x256x64 PASS 45.1 ms (1/4)"
std::string progress_line(const std::string& case_name, const BenchRow& row, int candidate, int candidates) {
  const std::string head = fmt::format("{} {}: {}", case_name, row.layout, row.variant);
  if (candidate == 0) return fmt::format("{} refused: {}", head, row.reason);
  std::string detail;
  if (row.status == "PASS") detail = row.timing ? fmt::format("{:.4g} ms", row.timing->median_ms) : "checked";
  else if (row.status == "FAIL") detail = row.error.summary() + (row.reason.empty() ? "" : ": " + row.reason);
  else detail = row.reason;
  return fmt::format("{} {} {} ({}/{})", head, row.status, detail, candidate, candidates);
}

}  // namespace

TuneCommand::TuneCommand(CLI::App& app) {
  tune_ = app.add_subcommand("tune", "measure the fastest variant per suite case on this GPU (autotune cache)");
  tune_->add_option("suite", suite_,
                    "a suite of the dense family (the only one whose dispatch follows the cache): dense, dense-vae, "
                    "dense-rule, or a file of $KFORGE_SUITES")
      ->required();
  tune_->add_option("--case", cases_, "case name (repeatable; default: every case of the suite)");
  tune_->add_option("--layout", layout_, "ncdhw | ndhwc | both (default)")
      ->check(CLI::IsMember({"ncdhw", "ndhwc", "both"}));
  tune_->add_option("--dtype", dtype_, "bf16 (default) | f16 | f32");
  tune_->add_option("--max-seconds", max_seconds_,
                    "timing budget per candidate, round-robin after the checks (default 0.5)")
      ->check(CLI::PositiveNumber);
  tune_->add_option("--finalists", finalists_,
                    "the screening's fastest, timed again round-robin among themselves (default 4; 1: no final)")
      ->check(CLI::PositiveNumber);
  tune_->add_flag("--no-history", no_history_, "do not append the rows to the history database");
  tune_->add_option("--db", db_, "history database (default: $KFORGE_HISTORY, else the XDG data folder)");
}

int TuneCommand::run() const {
  const Suite suite = load_suite(find_suite_file(suite_));
  if (suite.family != "dense")
    throw Error("tune takes a suite of the dense family, the only one whose dispatch follows the autotune cache, "
                "but suite '" + suite.name + "' runs the " + suite.family + " family");
  for (const std::string& name : cases_) suite.find(name);  // an unknown --case is an error, before any work
  const DType dtype = parse_dtype(dtype_);
  const std::vector<Layout> layouts =
      layout_ == "both" ? std::vector<Layout>{Layout::ncdhw, Layout::ndhwc} : std::vector<Layout>{parse_layout(layout_)};
  if (int rc = require_gpu()) return rc;
  std::optional<HistoryDb> history;  // opened first: a locked or corrupt database fails before the run
  if (!no_history_) history.emplace(history_db_path(db_));
  const DeviceInfo dev = query_device();
  const DeviceKey key = device_key(dev);
  std::cerr << "kforge tune: " << key.str() << "; cache " << tune_cache_path().string() << "\n";
  for (const std::string& other : tune_cache().other_devices(key))
    std::cerr << "kforge tune: ignoring the entries tuned under '" << other
              << "' (another GPU, CUDA runtime, kforge version or cache schema)\n";

  TuneOptions opt;
  opt.max_seconds = max_seconds_;
  opt.finalists = finalists_;
  std::vector<TuneResult> results;
  for (const SuiteCase& c : suite.cases) {
    if (!cases_.empty() && std::find(cases_.begin(), cases_.end(), c.name) == cases_.end()) continue;
    for (Layout l : layouts) {
      TuneResult r = tune_problem(c.problem(dtype, l), suite.family, opt, [&](const BenchRow& row, int i, int n) {
        std::cerr << "kforge tune: " << progress_line(c.name, row, i, n) << "\n";
      });
      for (BenchRow& row : r.rows) {
        row.suite = suite.name;
        row.case_name = c.name;
      }
      results.push_back(std::move(r));
    }
  }

  std::cout << fmt::format("# {} ({} SMs), {}, {:.2g} s per candidate; {}\n", dev.name, dev.sm_count, dtype_name(dtype),
                           max_seconds_, utc_stamp());
  print_tune_table(std::cout, results);
  const auto recorded = std::count_if(results.begin(), results.end(), [](const TuneResult& r) { return r.winner(); });
  std::cerr << "kforge tune: " << recorded << " of " << results.size() << " entries recorded in "
            << tune_cache_path().string() << "\n";
  std::vector<BenchRow> rows;
  for (const TuneResult& r : results) rows.insert(rows.end(), r.rows.begin(), r.rows.end());
  if (history) {
    const HistoryRun run{utc_iso_now(), build_git_revision(), dev.name, dev.sm_count, "tune", std::nullopt,
                         std::nullopt};
    history->append(history_records(rows, run));
    std::cerr << "kforge tune: appended " << rows.size() << " rows to " << history->path() << "\n";
  }
  const bool failed = std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) {
    return r.status == "FAIL" || r.status == "ERROR";
  });
  return failed || recorded < static_cast<std::ptrdiff_t>(results.size()) ? 1 : 0;
}

}  // namespace kforge::cli
