// dw_v11_mma_persistent: v9 (dw_v9_mma_tma) with a persistent grid, the PolicyId::v11_persistent instantiation of
// dw_pipelined.cuh.
// v9 launches one CTA per channel tile (evokernel: 512 CTAs on 2 x 132 slots, so 116 SMs run four and 16 run three,
// in two rounds whose CTAs start, stall on their first slices and build their B fragments together). Here the grid
// is 2 CTAs per SM and each streams an equal share of the (channel tile, output depth) sequence (CtaWork): a share
// spans a few segments, the TMA producer runs on into the next segment's first slices while the warps finish the
// current one, and the next channel's B fragments go to the other of two buffers. Cost: T - 1 extra slices per
// segment (shares of at least 8 (T - 1) outputs).
// Limits: v9's.
#include "depthwise/dw_pipelined.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {

std::string v11_mma_persistent_accepts(const ConvProblem& p) {
  return pipelined::pipelined_refusal(p, pipelined::PolicyId::v11_persistent);
}

void v11_mma_persistent_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  pipelined::launch_pipelined<pipelined::PolicyId::v11_persistent>(p, a, s, "dw_v11_mma_persistent");
}

}  // namespace kforge::depthwise
