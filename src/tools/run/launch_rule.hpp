// The host side of the run ABI (include/kforge/run_abi.h) that needs no GPU: a problem and its pointers as
// kforge_run_params, the checks of a kernel's launch rule against a problem, and the grid the rule asks for.
#pragma once

#include <cstdint>
#include <string>

#include "kforge/conv.hpp"
#include "kforge/run_abi.h"

namespace kforge {

// The problem and device pointers as the kernel receives them.
kforge_run_params run_params(const ConvProblem& p, const void* x, const void* w, const void* bias, void* y);

// "" when `rule` is well formed and covers the problem's dtype and class, else why the kernel cannot run it.
std::string rule_refusal(const kforge_launch_rule& rule, const ConvProblem& p);

struct LaunchGeometry {
  int64_t blocks = 0;  // 0: nothing to compute (an empty output)
  int threads = 0;
  int64_t dynamic_smem_bytes = 0;
};

// ceil(extent / per_block) blocks, capped at sm_count * max_blocks_per_sm when that is set and at the grid limit
// 2^31 - 1 (the kernel's grid-stride loop covers the rest). `rule` must pass rule_refusal.
LaunchGeometry launch_geometry(const kforge_launch_rule& rule, const ConvProblem& p, int sm_count);

}  // namespace kforge
