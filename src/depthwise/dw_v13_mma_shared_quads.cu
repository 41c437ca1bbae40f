// dw_v13_mma_shared_quads: v12 (dw_v12_mma_sliding) with each M-tile's two halves half a sliver apart, the
// PolicyId::v13_shared_quads instantiation of dw_pipelined.cuh.
// v12's SASS (evokernel, bf16, P = 2, T = 3): per warp and slice ~250 instructions for 36 HMMA, ~75 of them register
// moves. Its M-tile i is sliver rows 2i and 2i + 1, so at step s its A operand is rows (2i + s, 2i + 1 + s): a row
// sits first in one MMA's register quad and second in the next one's, and ptxas copies it into place every time.
// v13 makes M-tile i rows i and i + sliver_rows / 2 (Plan::half_rows): at step s its A operand is quad i + s (rows
// i + s and i + s + half, low and high K halves), the very operand M-tile i + 1 uses at step s - 1. Each quad is
// loaded once per slice into the four registers the MMAs read: 4 (tiles + steps - 1) LDS.32 per warp and slice (24
// for evokernel; v12 20, v9 48), no moves.
// Cost: kSteps quads live (12 registers) where v12 keeps ~8 rows; the same tiles and sliver padding as v12.
// Limits: v12's (stride_h == dilation_h, T <= 3, at most 3 steps per filter depth).
#include "depthwise/dw_pipelined.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {

std::string v13_mma_shared_quads_accepts(const ConvProblem& p) {
  return pipelined::pipelined_refusal(p, pipelined::PolicyId::v13_shared_quads);
}

void v13_mma_shared_quads_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  pipelined::launch_pipelined<pipelined::PolicyId::v13_shared_quads>(p, a, s, "dw_v13_mma_shared_quads");
}

}  // namespace kforge::depthwise
