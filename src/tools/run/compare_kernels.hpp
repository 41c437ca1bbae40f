// `kforge compare` on a GPU: two builds of the run ABI on the same inputs, their outputs against the fp64
// reference and against each other, and only when both are right and agree, interleaved timing and the verdict
// (tools/run/ab_verdict.hpp) from B's point of view.
#pragma once

#include <optional>
#include <string>

#include "measure/metrics.hpp"
#include "tools/run/ab_verdict.hpp"
#include "tools/run/run_kernel.hpp"

namespace kforge {

struct KernelComparison {
  KernelRun a, b;              // each against fp64; timings from the interleaved run
  bool bitwise_equal = false;  // B's output is A's, bit for bit
  ErrorStats b_vs_a;           // B's output with A's as the reference
  std::string refusal;         // "" when timed, else why timing was refused
  std::optional<AbStats> verdict;
};

// Loads and checks both, then times them interleaved (settings.timer; settings.time false stops after the
// checks). Refuses to time, saying why, when either refuses the task, fails against fp64 or is not
// deterministic, or when B's output differs from A's beyond the task's tolerance.
KernelComparison compare_kernels(const RunTask& task, const KernelImage& a, const KernelImage& b,
                                 const Ceilings& ceilings, const RunSettings& settings);

}  // namespace kforge
