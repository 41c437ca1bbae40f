// dense_v13_pointwise_gemm_256x128x64_ndhwc: a pointwise conv in channels-last layout as the plain GEMM
// y[n] (D*H*W x K) = x[n] (D*H*W x C) * w^T (sm90_pointwise_gemm.cuh): v12's kernel with K-major operands, against
// the implicit-GEMM kernels' im2col TMA on a 1x1x1 filter. M is the voxels, so the tile is 256 of them by 128
// output channels. Limits: pointwise_gemm_refusal's (1x1x1, stride 1, no padding, C and K % 8 == 0, NDHWC x and y
// whose volume flattens, aligned pointers).
#include "dense/sm90_pointwise_gemm.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v13_pointwise_gemm_256x128x64_ndhwc() {
  using Gemm = sm90::PointwiseGemmKernel<cute::Shape<cute::_256, cute::_128, cute::_64>, ChannelOrder::last>;
  return sm90::pointwise_variant<Gemm>(
      "dense_v13_pointwise_gemm_256x128x64_ndhwc",
      "pointwise conv in NDHWC as a plain GEMM (tiled TMA instead of im2col TMA)",
      "src/dense/dense_v13_pointwise_gemm_256x128x64_ndhwc.cu");
}

}  // namespace kforge::dense
