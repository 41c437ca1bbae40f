// `kforge asm`: re-assemble the kernels' PTX and compare with nvcc's cubins, dump SASS/PTX/resource usage,
// assemble an edited PTX with the build's ptxas flags (src/tools/asm.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kforge::cli {

// Registers `asm` and its subcommands on `app`; holds the parsed options (stays where it was constructed).
class AsmCommand {
 public:
  explicit AsmCommand(CLI::App& app);
  AsmCommand(const AsmCommand&) = delete;
  AsmCommand& operator=(const AsmCommand&) = delete;

  bool selected() const { return asm_->parsed(); }
  // Exit status: 0, or 1 when a roundtrip differs.
  int run() const;

 private:
  int run_roundtrip() const;
  int run_dump() const;
  int run_build() const;

  CLI::App* asm_ = nullptr;
  CLI::App* roundtrip_ = nullptr;
  CLI::App* dump_ = nullptr;
  CLI::App* build_ = nullptr;
  std::vector<std::string> variants_;
  bool all_ = false;
  std::string variant_, cubin_, ptx_in_, cubin_out_, arch_;
  bool sass_ = false, ptx_ = false, resources_ = false;
};

}  // namespace kforge::cli
