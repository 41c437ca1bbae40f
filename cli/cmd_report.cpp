// `kforge report` wiring: history database -> rows -> render_report -> the HTML file.
#include "cmd_report.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cmd_history.hpp"
#include "measure/ceilings.hpp"
#include "tools/history.hpp"
#include "tools/report.hpp"

namespace kforge::cli {

ReportCommand::ReportCommand(CLI::App& app) {
  report_ = app.add_subcommand("report", "the history as one HTML page: roofline, trajectory over runs, best rows");
  report_->add_option("--db", db_, "history database (default: $KFORGE_HISTORY, else the XDG data folder)");
  report_->add_option("--family", family_, "depthwise | dense (default: every family in the history)");
  report_->add_option("--gpu", gpu_, "rows of this GPU (default: the GPU of the newest row)");
  report_->add_option("--ceilings", ceilings_, "ceilings JSON (kforge ceilings --json) instead of the recorded ones")
      ->check(CLI::ExistingFile);
  report_->add_option("--out", out_, "the HTML file to write")->required();
}

int ReportCommand::run() const {
  const std::string path = history_db_path(db_);
  if (!std::filesystem::exists(path))
    throw Error("no history database at " + path + " yet: kforge bench and demo write it (or pass --db)");
  ReportOptions opt;
  opt.family = family_;
  opt.gpu = gpu_;
  opt.source = path;
  opt.generated_at = utc_iso_now();
  if (!ceilings_.empty()) {
    std::ifstream in(ceilings_);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw Error("--ceilings " + ceilings_ + " is not valid JSON: " + e.what());
    }
    const Ceilings c = Ceilings::from_json(j);
    opt.copy_tbps = c.copy_tbps;
    opt.gemm_bf16_tflops = c.gemm_bf16_tflops;
  }
  const std::string html = render_report(HistoryDb(path).rows(), opt);
  const std::filesystem::path out(out_);
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  std::ofstream file(out_);
  file << html;
  if (!file.flush()) throw Error("cannot write " + out_);
  std::cerr << "kforge report: wrote " << out_ << " (" << html.size() / 1024 << " KiB)\n";
  return 0;
}

}  // namespace kforge::cli
