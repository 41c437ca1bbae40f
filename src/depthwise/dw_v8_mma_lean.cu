// dw_v8_mma_lean: v6 (dw_v6_mma_hoisted) with fewer instructions around the MMAs, the PolicyId::v8_lean
// instantiation of dw_pipelined.cuh: same tiles, ring, MMAs, registers budget and accepted problems as v6.
// v6's SASS (bf16, P = 2, T = 3, evokernel's kernel) spends ~360 instructions per warp and depth slice around 36
// MMAs: per step ~14 of loop control and constant reloads, per slice 16 moves that restart the stored accumulator
// set at the bias. v8 starts each set in its first MMA (C operand = the bias, filter depth 0 at step 0: the set's
// stale contents are never read) and unrolls the remaining steps.
// Limits: v6's.
#include "depthwise/dw_pipelined.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {

std::string v8_mma_lean_accepts(const ConvProblem& p) {
  return pipelined::pipelined_refusal(p, pipelined::PolicyId::v8_lean);
}

void v8_mma_lean_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  pipelined::launch_pipelined<pipelined::PolicyId::v8_lean>(p, a, s, "dw_v8_mma_lean");
}

}  // namespace kforge::depthwise
