// dw_v14_mma_one_block: v13 (dw_v13_mma_shared_quads) with a warp's slice of MMAs in one basic block, the
// PolicyId::v14_one_block instantiation of dw_pipelined.cuh.
// v13's profile (evokernel, ncu): top stall "wait" (fixed-latency dependencies) 37% of stall cycles, tensor pipes 44%.
// Its slice is one branch per M-tile (`i < tiles`, warp-uniform), so each M-tile is a basic block of 3 chains of 3
// dependent MMAs (one chain per accumulator set, one MMA per step), which ptxas cannot interleave with the next
// M-tile's. Where every warp computes all MT M-tiles of its slivers or none (slivers of 2 MT unit rows; evokernel),
// v14 runs the slice without those branches, so 12 independent chains share one block. On other plans its launcher
// runs v13's kernel.
// Measured (H200, evokernel): 0.147-0.149 ms against v13's 0.149-0.151 in the same jobs (NOTES.md).
// Limits: v13's.
#include "depthwise/dw_pipelined.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {

std::string v14_mma_one_block_accepts(const ConvProblem& p) {
  return pipelined::pipelined_refusal(p, pipelined::PolicyId::v14_one_block);
}

void v14_mma_one_block_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  pipelined::launch_pipelined<pipelined::PolicyId::v14_one_block>(p, a, s, "dw_v14_mma_one_block");
}

}  // namespace kforge::depthwise
