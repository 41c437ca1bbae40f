// dense_v15_pointwise_gemm_128x256x64_c2x1_s4_ncdhw: v14 in 2x1 clusters, x's tile multicast to the two CTAs of
// neighbouring output-channel tiles. v12's profile on c512_k111 (NCDHW): tensor pipes 69%, 40% of stall cycles at
// the mainloop's full barriers; a 64-deep K block moves 48 KB from L2 per CTA for ~1,000 cycles of wgmma, about what
// L2 delivers per SM, and the multicast makes it 32 KB. Limits: v12's; K_out of one 128-row tile leaves the second
// CTA of each cluster idle (the rule's business).
#include "dense/sm90_pointwise_gemm.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v15_pointwise_gemm_128x256x64_c2x1_s4_ncdhw() {
  using Gemm = sm90::PointwiseGemmKernel<cute::Shape<cute::_128, cute::_256, cute::_64>, ChannelOrder::first,
                                         cute::Shape<cute::_2, cute::_1, cute::_1>, 4>;
  return sm90::pointwise_variant<Gemm>("dense_v15_pointwise_gemm_128x256x64_c2x1_s4_ncdhw",
                                       "v14 in 2x1 clusters: x's tile multicast to two output-channel tiles",
                                       "src/dense/dense_v15_pointwise_gemm_128x256x64_c2x1_s4_ncdhw.cu");
}

}  // namespace kforge::dense
