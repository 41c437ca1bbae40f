// `kforge run FILE --task TASK`: build a kernel of the run ABI (CUDA source through NVRTC and the cache, PTX, or
// cubin), check it against the fp64 reference and time it (src/tools/run/).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "kernel_args.hpp"

namespace kforge::cli {

// Registers `run` on `app`; holds the parsed options (stays where it was constructed).
class RunCommand {
 public:
  explicit RunCommand(CLI::App& app);
  RunCommand(const RunCommand&) = delete;
  RunCommand& operator=(const RunCommand&) = delete;

  bool selected() const { return cmd_->parsed(); }
  // Exit status: 0 PASS, 1 FAIL / refused / error, 2 no GPU (the kernel was still built and cached).
  int run() const;

 private:
  CLI::App* cmd_ = nullptr;
  std::string file_;
  std::vector<std::string> defines_, opts_;
  KernelCommandArgs args_;
};

}  // namespace kforge::cli
