// Formats `kforge run` and `kforge compare` results for people: the task, each build, each kernel's resources
// and check, the timings and the verdict. No computation here.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "tools/run/compare_kernels.hpp"
#include "tools/run/kernel_build.hpp"
#include "tools/run/run_kernel.hpp"
#include "tools/run/task.hpp"

namespace kforge::cli {

void print_task(std::ostream& os, const RunTask& task, uint64_t seed);
// `side` is "" (run) or "A" / "B" (compare); the build log (ptxas' report, warnings) follows, indented.
void print_build(std::ostream& os, const std::string& side, const KernelImage& image, const std::string& arch);
void print_kernel_run(std::ostream& os, const std::string& side, const KernelRun& run);
// Agreement of B with A, the interleaved timings, and the last line "verdict WORD ...".
void print_comparison(std::ostream& os, const KernelComparison& c);

}  // namespace kforge::cli
