// dense_v16_pointwise_gemm_256x128x64_c1x2_s4_ndhwc: v13 in 1x2 clusters, x's tile multicast to the two CTAs of
// neighbouring output-channel tiles (v15's idea in channels-last, where x is the A operand), with v14's 4 epilogue
// stores in flight. Limits: v13's; K_out of one 128-column tile leaves the second CTA of each cluster idle.
#include "dense/sm90_pointwise_gemm.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v16_pointwise_gemm_256x128x64_c1x2_s4_ndhwc() {
  using Gemm = sm90::PointwiseGemmKernel<cute::Shape<cute::_256, cute::_128, cute::_64>, ChannelOrder::last,
                                         cute::Shape<cute::_1, cute::_2, cute::_1>, 4>;
  return sm90::pointwise_variant<Gemm>("dense_v16_pointwise_gemm_256x128x64_c1x2_s4_ndhwc",
                                       "v13 in 1x2 clusters (x multicast to two output-channel tiles), 4 stores in flight",
                                       "src/dense/dense_v16_pointwise_gemm_256x128x64_c1x2_s4_ndhwc.cu");
}

}  // namespace kforge::dense
