// dw_v12_mma_sliding: v9 (dw_v9_mma_tma) with its M-tiles stacked down slivers of the tile, the
// PolicyId::v12_sliding instantiation of dw_pipelined.cuh.
// v9's profile (evokernel): the shared-memory pipe is its busiest unit (memory throughput 74%, L1 63%) and a warp
// issues 16 LDS.32 of A and 3 LDS.64 of B per 12 MMAs. But the A rows of step s + 1 are the A rows of step s one
// unit row down, so where the M-tiles of a warp sit one above the other (lane group g owns a sliver: one unit column,
// 2 * M-tiles unit rows; Plan::unit_of) each input row is loaded once per slice: 2 (2 MT + steps - 1) LDS.32 (20 for
// evokernel) instead of 4 MT steps (48). B fragments move to registers (2 T steps), loaded once per CTA.
// Cost: tiles of whole sliver blocks (evokernel: 24 unit rows computed for 23, 60 slivers on 64 lane groups: 10%
// more MMAs than v9).
// Measured (H200, evokernel): 0.152-0.153 ms against v9's 0.156-0.157 in the same jobs (NOTES.md: a quarter of the
// predicted gain; the shared-memory pipe was busy but not what bound v9).
// Limits: v9's, and stride_h == dilation_h, T <= 3, at most 3 steps per filter depth (R <= 5 for two output rows
// per unit, else R <= 3).
#include "depthwise/dw_pipelined.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {

std::string v12_mma_sliding_accepts(const ConvProblem& p) {
  return pipelined::pipelined_refusal(p, pipelined::PolicyId::v12_sliding);
}

void v12_mma_sliding_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  pipelined::launch_pipelined<pipelined::PolicyId::v12_sliding>(p, a, s, "dw_v12_mma_sliding");
}

}  // namespace kforge::depthwise
