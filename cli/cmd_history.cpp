// `kforge history` wiring: options -> HistoryDb queries -> printers.
#include "cmd_history.hpp"

#include <filesystem>
#include <iostream>

#include "printers.hpp"
#include "tools/history.hpp"

namespace kforge::cli {

std::string history_db_path(const std::string& db_option) {
  return db_option.empty() ? default_history_path() : db_option;
}

HistoryCommand::HistoryCommand(CLI::App& app) {
  history_ = app.add_subcommand("history", "query the benchmark history (every kforge bench / demo row)");
  history_->add_option("--db", db_,
                       "database file (default: $KFORGE_HISTORY, else $XDG_DATA_HOME/kforge/history.sqlite, else "
                       "~/.local/share/kforge/history.sqlite)");
  history_->require_subcommand(1);
  tried_ = history_->add_subcommand("tried", "every attempt on a case, newest first");
  tried_->add_option("--case", case_name_, "suite case name")->required();
  tried_->add_option("--limit", limit_, "show at most this many (default: all)");
  best_ = history_->add_subcommand("best", "best median per (GPU, case, layout, dtype, problem, variant)");
  best_->add_option("--case", case_name_, "only this case");
  regressions_ = history_->add_subcommand(
      "regressions", "variants whose latest median is slower than their best by more than the noise (exit 1 if any)");
}

int HistoryCommand::run() const {
  const std::string path = history_db_path(db_);
  // Queries never create a database: a mistyped --db would otherwise read as an empty history.
  if (!std::filesystem::exists(path))
    throw Error("no history database at " + path + " yet: kforge bench and demo write it (or pass --db)");
  const HistoryDb db(path);
  if (tried_->parsed()) {
    const auto rows = db.tried(case_name_, limit_);
    if (rows.empty()) std::cerr << "kforge history: no attempts on case '" << case_name_ << "' in " << path << "\n";
    else print_history_table(std::cout, rows);
    return 0;
  }
  if (best_->parsed()) {
    print_best_table(std::cout, db.best(case_name_));
    return 0;
  }
  const auto regressions = db.regressions();
  print_regressions_table(std::cout, regressions);
  return regressions.empty() ? 0 : 1;
}

}  // namespace kforge::cli
