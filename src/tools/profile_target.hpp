// What `kforge profile` profiles, and the hidden `kforge _profile-target` that ncu runs: set the workload up,
// launch it once to warm up (module loading, plan caches, lazy attributes stay out of the profile), then launch
// it once more between cudaProfilerStart and cudaProfilerStop, the only region ncu profiles.
#pragma once

#include <string>
#include <vector>

namespace kforge {

struct ProfileTarget {
  std::string probe;  // "copy" | "gemm"; "" profiles a variant on a suite case
  std::string suite = "depthwise", case_name, variant, layout = "ncdhw", dtype = "bf16";

  // "dw_v6_mma_hoisted on evokernel (depthwise, ncdhw, bf16)" or "probe copy".
  std::string label() const;
  // The hidden subcommand and its options, to append to the kforge executable's path.
  std::vector<std::string> args() const;
};

// Everything that can be checked before ncu starts, on the CPU: a known probe, or a known suite, case and variant
// of that suite's family (or the cuDNN anchor) that accepts the problem. Throws kforge::Error saying what is wrong.
void validate_profile_target(const ProfileTarget& t);

// Runs the target (needs a GPU): setup, one warm-up launch, one launch inside the profiler region.
void run_profile_target(const ProfileTarget& t);

}  // namespace kforge
