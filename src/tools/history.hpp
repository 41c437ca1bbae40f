// The benchmark history: every `kforge bench` / `demo` row appended to a SQLite database, and the queries that read
// it back (every attempt on a case, the best median per variant, variants now slower than their best beyond noise).
// Limits: one writer at a time (WAL mode: readers never wait for it); times are only compared within one GPU name,
// suite, case, layout, dtype and problem key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench.hpp"

struct sqlite3;

namespace kforge {

// One row of the `results` table.
struct HistoryRecord {
  int64_t id = 0;            // assigned by the database in insertion order: larger is newer
  std::string time_utc;      // ISO 8601, "2025-01-31T12:00:00Z"
  std::string git_revision;  // of the source tree the writing binary was built from
  std::string gpu;           // device name
  int sm_count = 0;
  std::string command;       // bench | tune | compare | run
  std::string suite, case_name, variant, problem, layout, dtype;
  std::string status;        // PASS | FAIL | SKIP | ERROR, as in BenchRow
  std::optional<double> median_ms, min_ms, max_ms, iqr_rel;  // set when timed
  int64_t samples = 0;                                       // timed samples (0 when untimed)
  std::optional<double> calc_diff, rel_l2;                   // set when checked against the reference
  std::optional<bool> deterministic;                         // set when checked
  std::string notes;         // the verdict's reason: why skipped, what failed
  // Schema 2: the problem's work and the run's ceilings, for rooflines (nullopt in rows written before).
  std::optional<double> flops, bytes;                // ConvProblem::flops(), min_bytes()
  std::optional<double> copy_tbps, gemm_bf16_tflops; // the ceilings the run measured against
};

// What every row of one run shares.
struct HistoryRun {
  std::string time_utc;      // utc_iso_now() when the run ended
  std::string git_revision;  // build_git_revision()
  std::string gpu;
  int sm_count = 0;
  std::string command = "bench";
  std::optional<double> copy_tbps, gemm_bf16_tflops;  // the run's ceilings, when it had them
};

// A variant whose latest median is slower than its best by more than the noise.
struct Regression {
  HistoryRecord best, latest;
  double noise = 0;  // allowed relative slowdown: max(best IQR, latest IQR, 2%)
  double slowdown() const { return *latest.median_ms / *best.median_ms - 1.0; }
};

// The regression rule: latest > best * (1 + max(iqr_best, iqr_latest, 0.02)). Both must be timed.
// Returns the noise allowance when `latest` regressed from `best`, nullopt otherwise.
std::optional<double> regressed_beyond_noise(const HistoryRecord& best, const HistoryRecord& latest);

// Bench rows -> history records (time, revision, GPU and command from `run`).
std::vector<HistoryRecord> history_records(const std::vector<BenchRow>& rows, const HistoryRun& run);

// Current UTC time, ISO 8601 to the second.
std::string utc_iso_now();

// $KFORGE_HISTORY, else $XDG_DATA_HOME/kforge/history.sqlite, else ~/.local/share/kforge/history.sqlite.
std::string default_history_path();

struct HistoryOptions {
  int busy_timeout_ms = 5000;  // how long a writer waits for another writer before giving up
};

// An open history database. Every failure throws kforge::Error naming the file; a locked database says
// "history database <path> is locked by another writer", a damaged one "... is corrupt (<sqlite message>):
// move it away or pass --db". Committed rows are never rewritten: appends only add rows, in one transaction.
class HistoryDb {
 public:
  // 1: the first schema; 2: adds flops, bytes, copy_tbps, gemm_bf16_tflops (NULL in older rows).
  static constexpr int kSchemaVersion = 2;

  // Opens `path`, creating its folder, the file and the schema when missing (WAL mode, busy timeout set), and
  // migrating an older schema in place (one transaction; older rows keep their values, new columns are NULL).
  // A newer schema is refused: this kforge would not know its columns.
  explicit HistoryDb(std::string path, HistoryOptions opt = {});
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  const std::string& path() const { return path_; }

  // Appends all records in one transaction: after a crash either all of them are there or none.
  void append(const std::vector<HistoryRecord>& records);

  // Every attempt on a case, newest first (all of them when limit is 0).
  std::vector<HistoryRecord> tried(const std::string& case_name, int64_t limit = 0) const;
  // The fastest PASS row of each (GPU, suite, case, layout, dtype, problem, variant), optionally of one case.
  std::vector<HistoryRecord> best(const std::string& case_name = "") const;
  // For each such key, the latest PASS row when it is slower than the key's best beyond the noise.
  std::vector<Regression> regressions() const;
  // Every row of a suite (of all suites when empty), oldest first.
  std::vector<HistoryRecord> rows(const std::string& suite = "") const;

 private:
  std::string path_;
  HistoryOptions opt_;
  sqlite3* db_ = nullptr;
};

}  // namespace kforge
