// `kforge compare A B --task TASK`: two builds of the run ABI on the same inputs; timed interleaved only when both
// are right and agree, then a noise-aware verdict from B's point of view (src/tools/run/compare_kernels.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "kernel_args.hpp"

namespace kforge::cli {

// Registers `compare` on `app`; holds the parsed options (stays where it was constructed).
class CompareCommand {
 public:
  explicit CompareCommand(CLI::App& app);
  CompareCommand(const CompareCommand&) = delete;
  CompareCommand& operator=(const CompareCommand&) = delete;

  bool selected() const { return cmd_->parsed(); }
  // Exit status: 0 a verdict (FASTER, SLOWER, SAME or UNDECIDED), 1 error, 2 no GPU, 3 refused to time.
  int run() const;

 private:
  CLI::App* cmd_ = nullptr;
  std::string file_a_, file_b_;
  std::vector<std::string> defines_, a_defines_, b_defines_, opts_, a_opts_, b_opts_;
  int min_samples_ = 40, max_samples_ = 400;
  KernelCommandArgs args_;
};

}  // namespace kforge::cli
