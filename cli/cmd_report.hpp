// `kforge report`: the benchmark history as one self-contained HTML page (src/tools/report.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace kforge::cli {

// Registers `report` on `app`; holds the parsed options (stays where it was constructed).
class ReportCommand {
 public:
  explicit ReportCommand(CLI::App& app);
  ReportCommand(const ReportCommand&) = delete;
  ReportCommand& operator=(const ReportCommand&) = delete;

  bool selected() const { return report_->parsed(); }
  int run() const;

 private:
  CLI::App* report_ = nullptr;
  std::string db_, family_, gpu_, ceilings_, out_;
};

}  // namespace kforge::cli
