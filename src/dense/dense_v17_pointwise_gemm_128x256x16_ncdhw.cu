// dense_v17_pointwise_gemm_128x256x16_ncdhw: v12 with a 16-deep K tile, for few input channels (cog_spatialnorm's
// C = 16). v12's 64-deep tile multiplies 48 zero channels per tile there, and the cooperative kernel's consumers
// run the MMAs and the epilogue one after the other: v6 (16-deep) against v13 (64-deep) on the NDHWC twin measured
// 0.279 against 0.308 ms. Limits: v12's.
#include "dense/sm90_pointwise_gemm.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v17_pointwise_gemm_128x256x16_ncdhw() {
  using Gemm = sm90::PointwiseGemmKernel<cute::Shape<cute::_128, cute::_256, cute::_16>, ChannelOrder::first>;
  return sm90::pointwise_variant<Gemm>("dense_v17_pointwise_gemm_128x256x16_ncdhw",
                                       "v12 with a 16-deep K tile for C <= 16 (no zero channels multiplied)",
                                       "src/dense/dense_v17_pointwise_gemm_128x256x16_ncdhw.cu");
}

}  // namespace kforge::dense
