// dense_v14_pointwise_gemm_128x256x64_s4_ncdhw: v12 with 4 epilogue TMA stores in flight instead of 2. v12's
// profile on cog_spatialnorm (NCDHW, 708 MB of y for 88 MB of x): 2.57 TB/s, 48% of stall cycles at barriers,
// ~840 cycles per 8 KB sub-tile: the consumers wait for the store two sub-tiles back. Limits: v12's.
#include "dense/sm90_pointwise_gemm.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v14_pointwise_gemm_128x256x64_s4_ncdhw() {
  using Gemm = sm90::PointwiseGemmKernel<cute::Shape<cute::_128, cute::_256, cute::_64>, ChannelOrder::first,
                                         cute::Shape<cute::_1, cute::_1, cute::_1>, 4>;
  return sm90::pointwise_variant<Gemm>("dense_v14_pointwise_gemm_128x256x64_s4_ncdhw",
                                       "v12 with 4 epilogue TMA stores in flight instead of 2",
                                       "src/dense/dense_v14_pointwise_gemm_128x256x64_s4_ncdhw.cu");
}

}  // namespace kforge::dense
