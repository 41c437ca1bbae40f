// The history database on SQLite: a versioned schema, appends in one IMMEDIATE transaction (all rows or none
// survive a killed writer), and the three queries. WAL mode lets readers run while a writer appends.
#include "tools/history.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iterator>

namespace kforge {
namespace {

// The columns of `results`, in HistoryRecord order; every query reads them back through Statement::record.
constexpr const char* kColumns[] = {"id",      "time_utc",  "git_revision", "gpu",       "sm_count",  "command",
                                    "suite",   "case_name", "variant",      "problem",   "layout",    "dtype",
                                    "status",  "median_ms", "min_ms",       "max_ms",    "iqr_rel",   "samples",
                                    "calc_diff", "rel_l2",  "deterministic", "notes",
                                    "flops",   "bytes",     "copy_tbps",    "gemm_bf16_tflops"};
constexpr int kColumnCount = static_cast<int>(std::size(kColumns));

// What makes two rows comparable: same GPU, same case and problem, same variant.
constexpr const char* kComparableKey = "gpu, suite, case_name, layout, dtype, problem, variant";

// Schema version 1; kMigrations bring it to HistoryDb::kSchemaVersion, for new and old files alike.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS results (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  time_utc      TEXT NOT NULL,
  git_revision  TEXT NOT NULL,
  gpu           TEXT NOT NULL,
  sm_count      INTEGER NOT NULL,
  command       TEXT NOT NULL CHECK (command IN ('bench', 'tune', 'compare', 'run')),
  suite         TEXT NOT NULL,
  case_name     TEXT NOT NULL,
  variant       TEXT NOT NULL,
  problem       TEXT NOT NULL,
  layout        TEXT NOT NULL,
  dtype         TEXT NOT NULL,
  status        TEXT NOT NULL,
  median_ms     REAL,
  min_ms        REAL,
  max_ms        REAL,
  iqr_rel       REAL,
  samples       INTEGER NOT NULL,
  calc_diff     REAL,
  rel_l2        REAL,
  deterministic INTEGER,
  notes         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_by_case ON results (case_name, id);
)sql";

// kMigrations[v - 1] takes schema v to v + 1. SQLite's ADD COLUMN only appends to the table's definition: old
// rows read NULL, and no row is rewritten.
constexpr const char* kMigrations[] = {
    R"sql(
ALTER TABLE results ADD COLUMN flops REAL;
ALTER TABLE results ADD COLUMN bytes REAL;
ALTER TABLE results ADD COLUMN copy_tbps REAL;
ALTER TABLE results ADD COLUMN gemm_bf16_tflops REAL;
)sql",
};
static_assert(std::size(kMigrations) == HistoryDb::kSchemaVersion - 1, "one migration per schema version step");

// "p.id, p.time_utc, ...": the column list, optionally qualified by a table alias; `skip_id` for INSERT.
std::string column_list(const std::string& alias = "", bool skip_id = false) {
  std::string s;
  for (int i = skip_id ? 1 : 0; i < kColumnCount; ++i) {
    if (!s.empty()) s += ", ";
    s += alias.empty() ? kColumns[i] : alias + "." + kColumns[i];
  }
  return s;
}

// The connection and what every error message needs.
struct Conn {
  sqlite3* db;
  const std::string& path;
  int busy_timeout_ms;

  [[noreturn]] void fail(int rc, const std::string& what) const {
    const std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    switch (rc & 0xff) {  // the primary result code
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        throw Error("history database " + path + " is locked by another writer (gave up after " +
                    std::to_string(busy_timeout_ms) + " ms)");
      case SQLITE_CORRUPT:
      case SQLITE_NOTADB:
        throw Error("history database " + path + " is corrupt (" + msg + "): move it away or pass --db");
      default:
        throw Error("history database " + path + ": " + what + " failed: " + msg);
    }
  }

  void exec(const char* sql, const std::string& what) const {
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) fail(rc, what);
  }
};

// A prepared statement; binders and readers by column index (binders count from 1, readers from 0, as SQLite).
class Statement {
 public:
  Statement(const Conn& c, const std::string& sql) : c_(c) {
    const int rc = sqlite3_prepare_v2(c.db, sql.c_str(), -1, &stmt_, nullptr);
    if (rc != SQLITE_OK) c.fail(rc, "preparing a query");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind_text(int i, const std::string& v) {
    check(sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  void bind_int(int i, int64_t v) { check(sqlite3_bind_int64(stmt_, i, v)); }
  void bind_real(int i, std::optional<double> v) {
    check(v ? sqlite3_bind_double(stmt_, i, *v) : sqlite3_bind_null(stmt_, i));
  }
  void bind_flag(int i, std::optional<bool> v) {
    check(v ? sqlite3_bind_int(stmt_, i, *v ? 1 : 0) : sqlite3_bind_null(stmt_, i));
  }

  // True while there is a row to read; false when done.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    c_.fail(rc, "running a query");
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  std::string text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  std::optional<double> real(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(stmt_, col);
  }
  std::optional<bool> flag(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_int(stmt_, col) != 0;
  }

  // The kColumns starting at column `first`.
  HistoryRecord record(int first) const {
    int i = first;
    HistoryRecord r;
    r.id = integer(i++);
    r.time_utc = text(i++);
    r.git_revision = text(i++);
    r.gpu = text(i++);
    r.sm_count = static_cast<int>(integer(i++));
    r.command = text(i++);
    r.suite = text(i++);
    r.case_name = text(i++);
    r.variant = text(i++);
    r.problem = text(i++);
    r.layout = text(i++);
    r.dtype = text(i++);
    r.status = text(i++);
    r.median_ms = real(i++);
    r.min_ms = real(i++);
    r.max_ms = real(i++);
    r.iqr_rel = real(i++);
    r.samples = integer(i++);
    r.calc_diff = real(i++);
    r.rel_l2 = real(i++);
    r.deterministic = flag(i++);
    r.notes = text(i++);
    r.flops = real(i++);
    r.bytes = real(i++);
    r.copy_tbps = real(i++);
    r.gemm_bf16_tflops = real(i++);
    return r;
  }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) c_.fail(rc, "binding a value");
  }
  const Conn& c_;
  sqlite3_stmt* stmt_ = nullptr;
};

// 0 when the file has no schema yet.
int schema_version(const Conn& c) {
  Statement has(c, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
  has.step();
  if (has.integer(0) == 0) return 0;
  Statement v(c, "SELECT coalesce(max(version), 0) FROM schema_version");
  v.step();
  return static_cast<int>(v.integer(0));
}

// Timed PASS rows, each ranked within its comparable key by speed (rank_fast 1: the best) and by age
// (rank_new 1: the latest), as a WITH clause.
std::string ranked_timed_rows() {
  const std::string window = std::string("PARTITION BY ") + kComparableKey;
  return "WITH ranked AS (SELECT *, ROW_NUMBER() OVER (" + window + " ORDER BY median_ms, id) AS rank_fast, " +
         "ROW_NUMBER() OVER (" + window + " ORDER BY id DESC) AS rank_new " +
         "FROM results WHERE status = 'PASS' AND median_ms IS NOT NULL) ";
}

// Runs `body` inside BEGIN IMMEDIATE ... COMMIT; rolls back when it throws.
template <class Body>
void in_write_transaction(const Conn& c, Body&& body) {
  c.exec("BEGIN IMMEDIATE", "starting a write transaction");
  try {
    body();
    c.exec("COMMIT", "committing");
  } catch (...) {
    sqlite3_exec(c.db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace

std::optional<double> regressed_beyond_noise(const HistoryRecord& best, const HistoryRecord& latest) {
  if (!best.median_ms || !latest.median_ms) return std::nullopt;
  const double noise = std::max({best.iqr_rel.value_or(0.0), latest.iqr_rel.value_or(0.0), 0.02});
  if (*latest.median_ms > *best.median_ms * (1.0 + noise)) return noise;
  return std::nullopt;
}

std::vector<HistoryRecord> history_records(const std::vector<BenchRow>& rows, const HistoryRun& run) {
  std::vector<HistoryRecord> out;
  out.reserve(rows.size());
  for (const BenchRow& b : rows) {
    HistoryRecord r;
    r.time_utc = run.time_utc;
    r.git_revision = run.git_revision;
    r.gpu = run.gpu;
    r.sm_count = run.sm_count;
    r.command = run.command;
    r.suite = b.suite;
    r.case_name = b.case_name;
    r.variant = b.variant;
    r.problem = b.problem;
    r.layout = b.layout;
    r.dtype = b.dtype;
    r.status = b.status;
    r.notes = b.reason;
    r.flops = b.flops;
    r.bytes = b.bytes;
    r.copy_tbps = run.copy_tbps;
    r.gemm_bf16_tflops = run.gemm_bf16_tflops;
    if (b.timing) {
      r.median_ms = b.timing->median_ms;
      r.min_ms = b.timing->min_ms;
      r.max_ms = b.timing->max_ms;
      r.iqr_rel = b.timing->iqr_rel;
      r.samples = static_cast<int64_t>(b.timing->samples_ms.size());
    }
    // SKIP and ERROR rows were never compared with the reference: their ErrorStats are defaults, not results.
    if (b.status == "PASS" || b.status == "FAIL") {
      r.calc_diff = b.error.calc_diff;
      r.rel_l2 = b.error.rel_l2;
      r.deterministic = b.deterministic;
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string utc_iso_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string default_history_path() {
  const auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (const std::string p = env("KFORGE_HISTORY"); !p.empty()) return p;
  if (const std::string x = env("XDG_DATA_HOME"); !x.empty()) return x + "/kforge/history.sqlite";
  if (const std::string h = env("HOME"); !h.empty()) return h + "/.local/share/kforge/history.sqlite";
  throw Error("history database: none of $KFORGE_HISTORY, $XDG_DATA_HOME, $HOME is set: pass --db PATH");
}

HistoryDb::HistoryDb(std::string path, HistoryOptions opt) : path_(std::move(path)), opt_(opt) {
  const std::filesystem::path folder = std::filesystem::path(path_).parent_path();
  std::error_code ec;
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  if (ec) throw Error("history database " + path_ + ": cannot create its folder: " + ec.message());
  const int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  const Conn c{db_, path_, opt_.busy_timeout_ms};
  try {
    if (rc != SQLITE_OK) c.fail(rc, "opening");
    sqlite3_busy_timeout(db_, opt_.busy_timeout_ms);
    // The first statement reads the file: a file that is not a database fails here, as corrupt.
    c.exec("PRAGMA journal_mode = WAL", "switching to WAL mode");
    int version = schema_version(c);
    if (version < kSchemaVersion) {
      in_write_transaction(c, [&] {
        int v = schema_version(c);  // another writer may have created or migrated it since the check above
        if (v == 0) {
          c.exec(kSchema, "creating the schema");
          c.exec("INSERT INTO schema_version (version) VALUES (1)", "recording the schema version");
          v = 1;
        }
        if (v >= kSchemaVersion) return;
        for (; v < kSchemaVersion; ++v)
          c.exec(kMigrations[v - 1], "migrating the schema from version " + std::to_string(v));
        c.exec(("UPDATE schema_version SET version = " + std::to_string(kSchemaVersion)).c_str(),
               "recording the schema version");
      });
      version = schema_version(c);
    }
    if (version != kSchemaVersion)
      throw Error("history database " + path_ + " has schema version " + std::to_string(version) +
                  ", but this kforge reads version " + std::to_string(kSchemaVersion) +
                  " (written by another kforge?): pass --db to use another file");
  } catch (...) {
    sqlite3_close(db_);
    throw;
  }
}

HistoryDb::~HistoryDb() { sqlite3_close(db_); }

void HistoryDb::append(const std::vector<HistoryRecord>& records) {
  const Conn c{db_, path_, opt_.busy_timeout_ms};
  in_write_transaction(c, [&] {
    std::string placeholders;
    for (int i = 1; i < kColumnCount; ++i) placeholders += (i > 1 ? ", ?" : "?") + std::to_string(i);
    Statement ins(c, "INSERT INTO results (" + column_list("", /*skip_id=*/true) + ") VALUES (" + placeholders + ")");
    for (const HistoryRecord& r : records) {
      int i = 1;
      ins.bind_text(i++, r.time_utc);
      ins.bind_text(i++, r.git_revision);
      ins.bind_text(i++, r.gpu);
      ins.bind_int(i++, r.sm_count);
      ins.bind_text(i++, r.command);
      ins.bind_text(i++, r.suite);
      ins.bind_text(i++, r.case_name);
      ins.bind_text(i++, r.variant);
      ins.bind_text(i++, r.problem);
      ins.bind_text(i++, r.layout);
      ins.bind_text(i++, r.dtype);
      ins.bind_text(i++, r.status);
      ins.bind_real(i++, r.median_ms);
      ins.bind_real(i++, r.min_ms);
      ins.bind_real(i++, r.max_ms);
      ins.bind_real(i++, r.iqr_rel);
      ins.bind_int(i++, r.samples);
      ins.bind_real(i++, r.calc_diff);
      ins.bind_real(i++, r.rel_l2);
      ins.bind_flag(i++, r.deterministic);
      ins.bind_text(i++, r.notes);
      ins.bind_real(i++, r.flops);
      ins.bind_real(i++, r.bytes);
      ins.bind_real(i++, r.copy_tbps);
      ins.bind_real(i++, r.gemm_bf16_tflops);
      ins.step();
      ins.reset();
    }
  });
}

std::vector<HistoryRecord> HistoryDb::tried(const std::string& case_name, int64_t limit) const {
  const Conn c{db_, path_, opt_.busy_timeout_ms};
  Statement q(c, "SELECT " + column_list() + " FROM results WHERE case_name = ?1 ORDER BY id DESC LIMIT ?2");
  q.bind_text(1, case_name);
  q.bind_int(2, limit > 0 ? limit : -1);  // a negative LIMIT is no limit
  std::vector<HistoryRecord> out;
  while (q.step()) out.push_back(q.record(0));
  return out;
}

std::vector<HistoryRecord> HistoryDb::best(const std::string& case_name) const {
  const Conn c{db_, path_, opt_.busy_timeout_ms};
  Statement q(c, ranked_timed_rows() + "SELECT " + column_list() +
                     " FROM ranked WHERE rank_fast = 1 AND (?1 = '' OR case_name = ?1)"
                     " ORDER BY suite, case_name, layout, dtype, gpu, median_ms");
  q.bind_text(1, case_name);
  std::vector<HistoryRecord> out;
  while (q.step()) out.push_back(q.record(0));
  return out;
}

std::vector<HistoryRecord> HistoryDb::rows(const std::string& suite) const {
  const Conn c{db_, path_, opt_.busy_timeout_ms};
  Statement q(c, "SELECT " + column_list() + " FROM results WHERE ?1 = '' OR suite = ?1 ORDER BY id");
  q.bind_text(1, suite);
  std::vector<HistoryRecord> out;
  while (q.step()) out.push_back(q.record(0));
  return out;
}

std::vector<Regression> HistoryDb::regressions() const {
  const Conn c{db_, path_, opt_.busy_timeout_ms};
  Statement q(c, ranked_timed_rows() + "SELECT " + column_list("b") + ", " + column_list("l") +
                     " FROM ranked b JOIN ranked l USING (" + kComparableKey + ")"
                     " WHERE b.rank_fast = 1 AND l.rank_new = 1 AND l.id <> b.id"
                     " ORDER BY b.suite, b.case_name, b.layout, b.dtype, b.variant");
  std::vector<Regression> out;
  while (q.step()) {
    Regression r{q.record(0), q.record(kColumnCount), 0.0};
    if (const auto noise = regressed_beyond_noise(r.best, r.latest)) {
      r.noise = *noise;
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace kforge
