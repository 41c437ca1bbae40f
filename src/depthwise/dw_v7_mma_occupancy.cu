// dw_v7_mma_occupancy: v6 (dw_v6_mma_hoisted) with 3 CTAs per SM instead of 2, the PolicyId::v7_occupancy
// instantiation of dw_pipelined.cuh: same kernel, ring, MMAs and per-CTA bookkeeping, fewer M-tiles per warp.
// v6 measured latency-bound at 4 warps per scheduler (6.7 cycles between issues per warp, occupancy 25%, limited by
// its 118 registers). v7's policy (dw_pipelined_common.cuh) halves the accumulators at T = 3 (2 M-tiles per warp
// instead of 4), so the kernel fits 80 registers (__launch_bounds__(256, 3)), and caps a CTA's slice ring and B
// fragments at 72 KB (3 x 73 KB <= 228 KB on H100/H200; 2 CTAs per SM on A100). The price: smaller tiles, so more
// halo rows staged per output and one B-fragment load per T MMAs of fewer M-tiles.
// Limits: v6's, with 72 KB instead of 80 for a tile row of units and its slice ring. It runs v5's kernel (whose
// 80 KB budget accepts all that v7's does) where v6 would.
#include "depthwise/dw_pipelined.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {

std::string v7_mma_occupancy_accepts(const ConvProblem& p) {
  return pipelined::pipelined_refusal(p, pipelined::PolicyId::v7_occupancy);
}

void v7_mma_occupancy_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  pipelined::launch_pipelined<pipelined::PolicyId::v7_occupancy>(p, a, s, "dw_v7_mma_occupancy");
}

}  // namespace kforge::depthwise
