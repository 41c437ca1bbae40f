// dw_v9_mma_tma: v8 (dw_v8_mma_lean) with each depth slice staged by one TMA box, the PolicyId::v9_tma
// instantiation of dw_pipelined.cuh.
// v8's profile (evokernel): latency-bound at 4 warps per scheduler, top stall "wait" (fixed issue latencies), and
// every warp spends ~40 instructions a slice on its share of the cp.async chunks. Here one thread issues the
// slice's box and the others wait on the stage's mbarrier; the TMA unit fills zeros outside the input (H, W and
// depth padding), so no stage is ever zeroed. The tile layout is v8's: a box's first column must sit on 16 bytes
// (measured: a start column of -2 faults with an illegal instruction, -8 and -2 rows do not), like a cp.async chunk.
// Limits: v6's, on sm_90a only, with N*C and the padded extents below 2^31 and a staged slice of at most 256 x 256
// elements. Where 16-byte rows are impossible (W % 8 != 0, x not 16-byte aligned) it runs v5's kernel, as v6 does.
#include "depthwise/dw_pipelined.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {

std::string v9_mma_tma_accepts(const ConvProblem& p) {
  return pipelined::pipelined_refusal(p, pipelined::PolicyId::v9_tma);
}

void v9_mma_tma_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  pipelined::launch_pipelined<pipelined::PolicyId::v9_tma>(p, a, s, "dw_v9_mma_tma");
}

}  // namespace kforge::depthwise
