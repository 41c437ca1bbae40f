// `kforge tune`: measure the fastest variant of each suite case on this GPU into the autotune cache
// (src/tools/tune.hpp), which kforge::conv's dense rule then follows.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kforge::cli {

// Registers `tune` on `app`; holds the parsed options (CLI11 binds to its members, so it stays where it was
// constructed).
class TuneCommand {
 public:
  explicit TuneCommand(CLI::App& app);
  TuneCommand(const TuneCommand&) = delete;
  TuneCommand& operator=(const TuneCommand&) = delete;

  bool selected() const { return tune_->parsed(); }
  // Exit status: 0; 1 when a candidate failed its check or errored, or a case had no passing candidate; 2 without
  // a GPU.
  int run() const;

 private:
  CLI::App* tune_ = nullptr;
  std::string suite_, layout_ = "both", dtype_ = "bf16", db_;
  std::vector<std::string> cases_;
  double max_seconds_ = 0.5;
  int finalists_ = 4;
  bool no_history_ = false;
};

}  // namespace kforge::cli
