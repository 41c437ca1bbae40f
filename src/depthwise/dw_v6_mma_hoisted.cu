// dw_v6_mma_hoisted: v5 (dw_v5_mma_pipelined) with the per-slice bookkeeping hoisted out of the depth loop, the
// PolicyId::v6_hoisted instantiation of dw_pipelined.cuh. Same tiles, ring, MMAs and accepted problems as v5.
// v5 spent most of its issue slots around the MMAs: every slice re-derived each staged chunk's position (divisions,
// 64-bit products, bounds) and each output pair's address and bounds (64-bit), for the same tile every time.
// v6 computes per CTA: each thread's chunk grid position, offsets and inside-the-input masks (ChunkGridStager),
// each output pair's 32-bit plane offset and in-bounds bits (output_pairs); per slice it only adds bases. The
// padding chunks are zeroed once in every stage (never rewritten), and the accumulator sets start at the bias.
// Limits: v5's (bf16/f16; x and y dense NCDHW; stride_w == dilation_w == 1; stride_d == dilation_d == 1; T <= 7;
// S + pad_w % 2 <= 9; a tile row of units and its slice ring fit 80 KB). It runs v5's kernel when W % 8 != 0 or x
// is not 16-byte aligned (no 16-byte chunks: element-wise staging) or an output depth plane has >= 2^31 elements.
#include "depthwise/dw_pipelined.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {

std::string v6_mma_hoisted_accepts(const ConvProblem& p) {
  return pipelined::pipelined_refusal(p, pipelined::PolicyId::v6_hoisted);
}

void v6_mma_hoisted_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  pipelined::launch_pipelined<pipelined::PolicyId::v6_hoisted>(p, a, s, "dw_v6_mma_hoisted");
}

}  // namespace kforge::depthwise
