// Running Nsight Compute (ncu) on a kforge profile target and getting its raw CSV back, with a clear message when
// ncu is missing or cannot read the GPU's counters. The target (`kforge _profile-target ...`) launches the
// workload once for warm-up and once between cudaProfilerStart/Stop; ncu profiles only that region
// (--profile-from-start off), every kernel in it, with the GPU's clocks left alone (--clock-control none).
// Limits: POSIX; ncu's sections and metric names of Nsight Compute 2023.1 and newer.
#pragma once

#include <string>
#include <vector>

namespace kforge {

// Where `ncu` is looked for, in order: --ncu, then $KFORGE_NCU, then `ncu` in each folder.
struct NcuSearch {
  std::string option;             // --ncu PATH, "" when not given
  std::string env;                // $KFORGE_NCU, "" when unset
  std::vector<std::string> dirs;  // folders that may hold an `ncu`
};

// The search from this environment: PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, then every
// /opt/nvidia/nsight-compute/<version>/ (newest first), as the CUDA toolkit and NVIDIA's packages install it.
NcuSearch default_ncu_search(const std::string& option);

// The ncu to run. Throws kforge::Error saying where it looked and how to provide one when there is none, or
// when --ncu / $KFORGE_NCU names something that is not an executable file.
std::string find_ncu(const NcuSearch& search);

// ncu's command line: the sections and stall metrics, CSV raw page in base units, written to `log_file`.
// `stall_metrics` false leaves out the explicit stall metrics (for an ncu that does not know one of them).
std::vector<std::string> ncu_argv(const std::string& ncu, const std::vector<std::string>& target,
                                  const std::string& log_file, bool stall_metrics = true);

// What went wrong, from everything ncu and the target printed: a known failure (counters not readable, no
// profiler library, nothing profiled, an option this ncu does not know) gets ncu's own error lines and the fix;
// anything else the error lines and the end of the output.
std::string diagnose_ncu_failure(int exit_code, const std::string& output);

struct NcuRun {
  std::string csv;                 // ncu's whole log: the raw CSV report and its ==PROF== lines
  std::vector<std::string> notes;  // what the caller should know (a retry without the stall metrics)
};

// Runs ncu on `target` (a program and its arguments), with its log in `work_dir`. When ncu refuses a stall
// metric, runs once more without them (the sections still give stall breakdowns on most versions). Throws
// kforge::Error with diagnose_ncu_failure's message when ncu fails or profiles nothing.
NcuRun run_ncu(const std::string& ncu, const std::vector<std::string>& target, const std::string& work_dir);

}  // namespace kforge
