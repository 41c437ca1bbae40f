// `kforge history`: the benchmark history's queries (tried, best, regressions) on the command line.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace kforge::cli {

// Registers `history` and its subcommands on `app`; holds the parsed options (CLI11 binds to its members, so it
// stays where it was constructed).
class HistoryCommand {
 public:
  explicit HistoryCommand(CLI::App& app);
  HistoryCommand(const HistoryCommand&) = delete;
  HistoryCommand& operator=(const HistoryCommand&) = delete;

  bool selected() const { return history_->parsed(); }
  // Exit status: 0, or 1 when `regressions` found any.
  int run() const;

 private:
  CLI::App* history_ = nullptr;
  CLI::App* tried_ = nullptr;
  CLI::App* best_ = nullptr;
  CLI::App* regressions_ = nullptr;
  std::string db_, case_name_;
  int64_t limit_ = 0;
};

// The database `kforge bench` writes and `kforge history` reads: `db_option` when given, else the default.
std::string history_db_path(const std::string& db_option);

}  // namespace kforge::cli
