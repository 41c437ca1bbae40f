// dw_v10_mma_decoupled: v9 (dw_v9_mma_tma) without the CTA barrier per slice, the PolicyId::v10_decoupled
// instantiation of dw_pipelined.cuh.
// v9 still ends every slice at __syncthreads (so a stage can be refilled), and its M-tiles do not divide evenly
// among the 8 warps (evokernel: 29 tiles, so five warps compute 4 and three compute 3 per slice): the light warps
// idle at every barrier, and every warp's latency stalls line up. Here each stage also has an "empty" mbarrier:
// a warp's lane 0 arrives once the warp has finished the slice, and only the producer (lane 0 of the last warp,
// one of the light ones) waits for all 8 arrivals before it refills the stage with the slice kStages later. The
// other warps run up to kStages - 1 slices apart.
// Limits: v9's.
#include "depthwise/dw_pipelined.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {

std::string v10_mma_decoupled_accepts(const ConvProblem& p) {
  return pipelined::pipelined_refusal(p, pipelined::PolicyId::v10_decoupled);
}

void v10_mma_decoupled_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  pipelined::launch_pipelined<pipelined::PolicyId::v10_decoupled>(p, a, s, "dw_v10_mma_decoupled");
}

}  // namespace kforge::depthwise
