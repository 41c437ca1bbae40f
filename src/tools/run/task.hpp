// A task of `kforge run` / `kforge compare`: the problem a kernel must solve, the tolerance it is checked with
// against the fp64 reference, and (from the problem) its FLOPs and minimal bytes for the roofline floor.
// The suite cases are tasks ("depthwise/evokernel"); a task file is one suite case plus its suite, dtype, layout
// and tolerance (docs/run-kernels.md).
#pragma once

#include <string>

#include "bench/bench.hpp"
#include "kforge/conv.hpp"

namespace kforge {

struct RunTask {
  std::string name;                 // "depthwise/evokernel", or the task file's path
  std::string suite, case_name;     // as the history records them
  ConvProblem problem;              // dtype and layout included
  double max_calc_diff = BenchOptions{}.max_calc_diff;
  double max_rel_l2 = BenchOptions{}.max_rel_l2;
};

// `spec` is SUITE/CASE (a case of the suite file find_suite_file(SUITE) finds) or a task file (a path ending in
// .json). `dtype` and `layout` ("" keeps the task's own; suite cases are bf16 NCDHW) override the task's.
// Throws kforge::Error naming the file and field, or listing the cases, when the spec does not resolve.
RunTask resolve_task(const std::string& spec, const std::string& dtype = "", const std::string& layout = "");

}  // namespace kforge
