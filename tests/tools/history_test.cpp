// The history database on CPU: round trip of every field, bench rows -> records, the best and regression rules on
// crafted rows, a writer killed mid-transaction (fork + SIGKILL / _exit), a locked database and a garbage file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "tools/history.hpp"
#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;
using testing::ScopedEnv;
using testing::TempDir;
using testing::error_of;

HistoryRecord timed(const std::string& case_name, const std::string& variant, double median_ms, double iqr_rel,
                    const std::string& gpu = "NVIDIA H200") {
  HistoryRecord r = testing::pass_record(case_name, variant, median_ms);
  r.iqr_rel = iqr_rel;
  r.gpu = gpu;
  return r;
}

std::vector<HistoryRecord> batch(const std::string& case_name, int n) {
  std::vector<HistoryRecord> rows;
  for (int i = 0; i < n; ++i) rows.push_back(timed(case_name, "dw_v" + std::to_string(i), 1.0 + i, 0.01));
  return rows;
}

// Opens the file with plain SQLite and runs PRAGMA integrity_check: "ok" for a sound database.
std::string integrity_check(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  std::string verdict;
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    verdict = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return verdict;
}

// Kills and reaps a forked child when the test leaves early (a failed ASSERT), so that none outlives it.
struct ChildGuard {
  pid_t pid;
  ~ChildGuard() {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
};

TEST(History, RoundTripKeepsEveryFieldAndOrdersNewestFirst) {
  TempDir dir;
  const std::string path = dir.path() + "/sub/folder/history.sqlite";  // folders are created
  HistoryRecord skipped = timed("evokernel", "dw_v4_mma_toeplitz", 0, 0);
  skipped.status = "SKIP";
  skipped.median_ms = skipped.min_ms = skipped.max_ms = skipped.iqr_rel = std::nullopt;
  skipped.samples = 0;
  skipped.calc_diff = skipped.rel_l2 = std::nullopt;
  skipped.deterministic = std::nullopt;
  skipped.notes = "expected stride_w 1, but got 2";
  {
    HistoryDb db(path);
    db.append({timed("evokernel", "dw_v1_direct", 2.5, 0.031), timed("other", "dw_v1_direct", 9.0, 0.01)});
    db.append({skipped});
  }
  const HistoryDb db(path);  // reopened: the rows were committed
  const auto rows = db.tried("evokernel");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_GT(rows[0].id, rows[1].id);  // newest first
  const HistoryRecord& s = rows[0];
  EXPECT_EQ(s.status, "SKIP");
  EXPECT_EQ(s.notes, skipped.notes);
  EXPECT_FALSE(s.median_ms.has_value());
  EXPECT_FALSE(s.calc_diff.has_value());
  EXPECT_FALSE(s.deterministic.has_value());
  const HistoryRecord& t = rows[1];
  const HistoryRecord want = timed("evokernel", "dw_v1_direct", 2.5, 0.031);
  EXPECT_EQ(t.time_utc, want.time_utc);
  EXPECT_EQ(t.git_revision, want.git_revision);
  EXPECT_EQ(t.gpu, want.gpu);
  EXPECT_EQ(t.sm_count, 132);
  EXPECT_EQ(t.command, "bench");
  EXPECT_EQ(t.suite, "depthwise");
  EXPECT_EQ(t.variant, "dw_v1_direct");
  EXPECT_EQ(t.problem, want.problem);
  EXPECT_EQ(t.layout, "ncdhw");
  EXPECT_EQ(t.dtype, "bf16");
  EXPECT_EQ(t.status, "PASS");
  EXPECT_EQ(t.median_ms, 2.5);
  EXPECT_EQ(t.min_ms, want.min_ms);
  EXPECT_EQ(t.max_ms, want.max_ms);
  EXPECT_EQ(t.iqr_rel, 0.031);
  EXPECT_EQ(t.samples, 50);
  EXPECT_EQ(t.calc_diff, 1e-7);
  EXPECT_EQ(t.rel_l2, 3e-4);
  EXPECT_EQ(t.deterministic, true);
  EXPECT_EQ(t.flops, 1.63e10);
  EXPECT_EQ(t.bytes, 4.42e8);
  EXPECT_EQ(t.copy_tbps, 4.26);
  EXPECT_EQ(t.gemm_bf16_tflops, 780.5);
  EXPECT_EQ(db.tried("evokernel", 1).size(), 1u);
  EXPECT_TRUE(db.tried("no_such_case").empty());
  EXPECT_EQ(integrity_check(path), "ok");
}

TEST(History, CommandMustBeKnown) {
  TempDir dir;
  HistoryDb db(dir.path() + "/h.sqlite");
  HistoryRecord r = timed("c", "v", 1, 0);
  r.command = "bogus";
  EXPECT_NE(error_of([&] { db.append({timed("c", "v", 1, 0), r}); }).find("CHECK constraint"), std::string::npos);
  EXPECT_TRUE(db.tried("c").empty());  // the whole transaction rolled back
}

TEST(History, RecordsFromBenchRows) {
  BenchRow pass;
  pass.suite = "depthwise";
  pass.case_name = "evokernel";
  pass.variant = "dw_v5_mma_pipelined";
  pass.layout = "ndhwc";
  pass.dtype = "bf16";
  pass.problem = "p";
  pass.status = "PASS";
  pass.error.calc_diff = 2e-8;
  pass.error.rel_l2 = 1e-4;
  pass.deterministic = true;
  pass.timing = summarize({1.0, 2.0, 3.0, 4.0}, "converged");
  pass.flops = 2e9;
  pass.bytes = 3e8;
  BenchRow skip = pass;
  skip.status = "SKIP";
  skip.reason = "refuses";
  skip.timing.reset();
  const auto recs =
      history_records({pass, skip}, {"2025-01-31T12:00:00Z", "rev", "NVIDIA H200", 132, "bench", 4.2, 790.0});
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].gpu, "NVIDIA H200");
  EXPECT_EQ(recs[0].git_revision, "rev");
  EXPECT_EQ(recs[0].median_ms, pass.timing->median_ms);
  EXPECT_EQ(recs[0].iqr_rel, pass.timing->iqr_rel);
  EXPECT_EQ(recs[0].samples, 4);
  EXPECT_EQ(recs[0].calc_diff, 2e-8);
  EXPECT_EQ(recs[0].deterministic, true);
  EXPECT_EQ(recs[0].flops, 2e9);
  EXPECT_EQ(recs[0].bytes, 3e8);
  EXPECT_EQ(recs[0].copy_tbps, 4.2);
  EXPECT_EQ(recs[0].gemm_bf16_tflops, 790.0);
  EXPECT_EQ(recs[1].notes, "refuses");
  EXPECT_EQ(recs[1].flops, 2e9);  // the problem's work is known even when the variant refuses it
  EXPECT_FALSE(recs[1].median_ms.has_value());
  EXPECT_FALSE(recs[1].calc_diff.has_value());  // never compared: no metrics
}

TEST(History, RegressionRuleUsesTheLargerSpreadWithATwoPercentFloor) {
  const HistoryRecord best = timed("c", "v", 1.0, 0.01);
  EXPECT_FALSE(regressed_beyond_noise(best, timed("c", "v", 1.019, 0.01)));  // within the 2% floor
  EXPECT_EQ(regressed_beyond_noise(best, timed("c", "v", 1.021, 0.01)), 0.02);
  EXPECT_FALSE(regressed_beyond_noise(best, timed("c", "v", 1.049, 0.05)));  // the latest run is noisy
  EXPECT_EQ(regressed_beyond_noise(best, timed("c", "v", 1.051, 0.05)), 0.05);
  EXPECT_FALSE(regressed_beyond_noise(timed("c", "v", 1.0, 0.10), timed("c", "v", 1.09, 0.0)));  // noisy best
  HistoryRecord untimed = timed("c", "v", 5.0, 0);
  untimed.median_ms.reset();
  EXPECT_FALSE(regressed_beyond_noise(best, untimed));
}

TEST(History, BestAndRegressionsOnCraftedRows) {
  TempDir dir;
  HistoryDb db(dir.path() + "/h.sqlite");
  HistoryRecord failed_fast = timed("evo", "v_regressed", 0.1, 0.0);
  failed_fast.status = "FAIL";  // wrong answers are never the best
  db.append({timed("evo", "v_regressed", 1.00, 0.01), timed("evo", "v_steady", 2.00, 0.01),
             timed("evo", "v_single", 3.00, 0.01), timed("evo", "v_improved", 4.00, 0.01), failed_fast,
             timed("evo", "v_regressed", 0.50, 0.01, "NVIDIA H100")});  // another GPU: another key
  db.append({timed("evo", "v_regressed", 1.30, 0.01), timed("evo", "v_steady", 2.03, 0.02),
             timed("evo", "v_improved", 3.00, 0.01), timed("evo", "v_regressed", 0.50, 0.01, "NVIDIA H100")});

  std::map<std::string, double> best_ms;
  for (const HistoryRecord& b : db.best()) {
    EXPECT_EQ(b.status, "PASS");
    best_ms[b.variant + " on " + b.gpu] = b.median_ms.value();
  }
  const std::map<std::string, double> want{{"v_regressed on NVIDIA H200", 1.00}, {"v_regressed on NVIDIA H100", 0.50},
                                           {"v_steady on NVIDIA H200", 2.00},    {"v_single on NVIDIA H200", 3.00},
                                           {"v_improved on NVIDIA H200", 3.00}};
  EXPECT_EQ(best_ms, want);
  EXPECT_TRUE(db.best("other_case").empty());

  const auto regs = db.regressions();
  ASSERT_EQ(regs.size(), 1u);
  EXPECT_EQ(regs[0].best.variant, "v_regressed");
  EXPECT_EQ(regs[0].best.gpu, "NVIDIA H200");
  EXPECT_EQ(regs[0].best.median_ms, 1.00);
  EXPECT_EQ(regs[0].latest.median_ms, 1.30);
  EXPECT_EQ(regs[0].noise, 0.02);
  EXPECT_NEAR(regs[0].slowdown(), 0.30, 1e-12);
}

TEST(History, KilledWriterLosesOnlyItsUncommittedBatch) {
  TempDir dir;
  const std::string path = dir.path() + "/h.sqlite";
  { HistoryDb(path).append(batch("committed", 10)); }
  constexpr int kBatch = 4000;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // the writer: commits one batch, says so, then appends until it is killed (or 60 s pass)
    close(ready[0]);
    try {
      HistoryDb db(path);
      db.append(batch("child", 5));
      if (write(ready[1], "x", 1) != 1) _exit(2);
      for (const time_t start = time(nullptr); time(nullptr) - start < 60;) db.append(batch("child_loop", kBatch));
    } catch (...) {
    }
    _exit(3);
  }
  ChildGuard guard{pid};
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  usleep(300 * 1000);  // well inside the loop: nearly all of its time is spent inside a transaction
  kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  guard.pid = 0;
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself (status " << status << ")";

  const HistoryDb db(path);
  EXPECT_EQ(db.tried("committed").size(), 10u);
  EXPECT_EQ(db.tried("child").size(), 5u);
  EXPECT_EQ(db.tried("child_loop").size() % kBatch, 0u) << "a partial batch survived";
  EXPECT_EQ(integrity_check(path), "ok");
}

TEST(History, UncommittedRowsOfAnExitedWriterAreAbsent) {
  TempDir dir;
  const std::string path = dir.path() + "/h.sqlite";
  { HistoryDb(path).append(batch("committed", 10)); }
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // opens a transaction, copies the rows 2^10 times, exits without committing
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) _exit(2);
    // A one-page cache makes SQLite write the uncommitted pages into the WAL file, as a large run would.
    if (sqlite3_exec(db, "PRAGMA cache_size = 1; BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) _exit(3);
    const char* copy =
        "INSERT INTO results (time_utc, git_revision, gpu, sm_count, command, suite, case_name, variant, problem, "
        "layout, dtype, status, samples, notes) SELECT time_utc, git_revision, gpu, sm_count, command, suite, "
        "'uncommitted', variant, problem, layout, dtype, status, samples, notes FROM results";
    for (int i = 0; i < 10; ++i)
      if (sqlite3_exec(db, copy, nullptr, nullptr, nullptr) != SQLITE_OK) _exit(4);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the writer failed (status " << status << ")";
  ASSERT_GT(fs::file_size(path + "-wal"), 0u) << "the uncommitted rows never reached the disk: the test tests nothing";

  const HistoryDb db(path);
  EXPECT_EQ(db.tried("committed").size(), 10u);
  EXPECT_TRUE(db.tried("uncommitted").empty());
  EXPECT_EQ(integrity_check(path), "ok");
}

TEST(History, LockedDatabaseGivesAClearErrorAndKeepsItsRows) {
  TempDir dir;
  const std::string path = dir.path() + "/h.sqlite";
  HistoryDb db(path, HistoryOptions{100});
  db.append(batch("before", 3));
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  const std::string msg = error_of([&] { db.append(batch("blocked", 2)); });
  EXPECT_EQ(msg.rfind("history database " + path + " is locked by another writer", 0), 0u) << msg;
  EXPECT_EQ(db.tried("before").size(), 3u);  // readers are not blocked (WAL)
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  db.append(batch("after", 2));
  EXPECT_EQ(db.tried("before").size(), 3u);
  EXPECT_TRUE(db.tried("blocked").empty());
  EXPECT_EQ(db.tried("after").size(), 2u);
}

TEST(History, GarbageFileGivesTheCorruptErrorAndIsLeftAlone) {
  TempDir dir;
  const std::string path = dir.path() + "/h.sqlite";
  std::string garbage;
  for (int i = 0; i < 200; ++i) garbage += "this is not a database ";
  std::ofstream(path, std::ios::binary) << garbage;
  const std::string msg = error_of([&] { HistoryDb db(path); });
  EXPECT_EQ(msg, "history database " + path + " is corrupt (file is not a database): move it away or pass --db");
  std::ifstream in(path, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), garbage);
}

TEST(History, NewerSchemaIsRefused) {
  TempDir dir;
  const std::string path = dir.path() + "/h.sqlite";
  { HistoryDb create(path); }
  const std::string newer = std::to_string(HistoryDb::kSchemaVersion + 1);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, ("UPDATE schema_version SET version = " + newer).c_str(), nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  EXPECT_NE(error_of([&] { HistoryDb reopened(path); }).find("has schema version " + newer), std::string::npos);
}

// A database as the first kforge wrote it (schema 1, verbatim) with one row.
void write_schema_1_database(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* sql = R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE results (
  id INTEGER PRIMARY KEY AUTOINCREMENT, time_utc TEXT NOT NULL, git_revision TEXT NOT NULL, gpu TEXT NOT NULL,
  sm_count INTEGER NOT NULL, command TEXT NOT NULL CHECK (command IN ('bench', 'tune', 'compare', 'run')),
  suite TEXT NOT NULL, case_name TEXT NOT NULL, variant TEXT NOT NULL, problem TEXT NOT NULL, layout TEXT NOT NULL,
  dtype TEXT NOT NULL, status TEXT NOT NULL, median_ms REAL, min_ms REAL, max_ms REAL, iqr_rel REAL,
  samples INTEGER NOT NULL, calc_diff REAL, rel_l2 REAL, deterministic INTEGER, notes TEXT NOT NULL);
CREATE INDEX results_by_case ON results (case_name, id);
INSERT INTO schema_version (version) VALUES (1);
INSERT INTO results (time_utc, git_revision, gpu, sm_count, command, suite, case_name, variant, problem, layout,
  dtype, status, median_ms, min_ms, max_ms, iqr_rel, samples, calc_diff, rel_l2, deterministic, notes)
  VALUES ('2025-01-01T00:00:00Z', 'old', 'NVIDIA H200', 132, 'bench', 'depthwise', 'evokernel', 'dw_v1_direct', 'p',
  'ncdhw', 'bf16', 'PASS', 18.3, 18.2, 18.5, 0.003, 30, 1e-7, 2e-4, 1, '');
)sql";
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

int stored_schema_version(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  int v = -1;
  if (sqlite3_prepare_v2(db, "SELECT max(version) FROM schema_version", -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

TEST(History, SchemaOneIsMigratedInPlaceAndKeepsItsRows) {
  TempDir dir;
  const std::string path = dir.path() + "/h.sqlite";
  write_schema_1_database(path);
  ASSERT_EQ(stored_schema_version(path), 1);
  {
    HistoryDb db(path);
    const auto old = db.tried("evokernel");
    ASSERT_EQ(old.size(), 1u);
    EXPECT_EQ(old[0].git_revision, "old");
    EXPECT_EQ(old[0].median_ms, 18.3);
    EXPECT_EQ(old[0].deterministic, true);
    EXPECT_FALSE(old[0].flops.has_value());  // columns added by the migration read NULL in old rows
    EXPECT_FALSE(old[0].copy_tbps.has_value());
    db.append({timed("evokernel", "dw_v6_mma_hoisted", 0.179, 0.004)});
  }
  EXPECT_EQ(stored_schema_version(path), HistoryDb::kSchemaVersion);
  const HistoryDb reopened(path);  // opening a migrated file again changes nothing
  const auto rows = reopened.rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].variant, "dw_v1_direct");  // oldest first
  EXPECT_EQ(rows[1].flops, 1.63e10);
  EXPECT_EQ(rows[1].gemm_bf16_tflops, 780.5);
  EXPECT_EQ(reopened.best("evokernel").size(), 2u);
  EXPECT_EQ(integrity_check(path), "ok");
}

TEST(History, RowsSelectsASuite) {
  TempDir dir;
  HistoryDb db(dir.path() + "/h.sqlite");
  HistoryRecord dense = timed("small", "dense_v0_direct", 4.0, 0.01);
  dense.suite = "dense";
  db.append({timed("evokernel", "dw_v1_direct", 18.3, 0.01), dense});
  EXPECT_EQ(db.rows().size(), 2u);
  ASSERT_EQ(db.rows("dense").size(), 1u);
  EXPECT_EQ(db.rows("dense")[0].variant, "dense_v0_direct");
  EXPECT_TRUE(db.rows("nope").empty());
}

TEST(History, DefaultPathFollowsTheEnvironment) {
  ScopedEnv history("KFORGE_HISTORY", "/x/h.sqlite"), xdg("XDG_DATA_HOME", "/data"), home("HOME", "/home/u");
  EXPECT_EQ(default_history_path(), "/x/h.sqlite");
  history.set(nullptr);
  EXPECT_EQ(default_history_path(), "/data/kforge/history.sqlite");
  xdg.set(nullptr);
  EXPECT_EQ(default_history_path(), "/home/u/.local/share/kforge/history.sqlite");
  home.set(nullptr);
  EXPECT_NE(error_of([] { default_history_path(); }).find("pass --db"), std::string::npos);
}

}  // namespace
}  // namespace kforge
