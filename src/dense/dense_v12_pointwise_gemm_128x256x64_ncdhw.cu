// dense_v12_pointwise_gemm_128x256x64_ncdhw: a pointwise conv in PyTorch's default layout as the GEMM
// y[n] (K x D*H*W) = w (K x C) * x[n] (C x D*H*W) on the caller's tensors (sm90_pointwise_gemm.cuh): nothing staged.
// M is the output channels, so the tile is 128 rows of them by 256 voxels. Limits: pointwise_gemm_refusal's
// (1x1x1, stride 1, no padding, C % 8 == 0, D*H*W % 8 == 0, NCDHW x and y whose volume flattens, aligned pointers).
#include "dense/sm90_pointwise_gemm.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v12_pointwise_gemm_128x256x64_ncdhw() {
  using Gemm = sm90::PointwiseGemmKernel<cute::Shape<cute::_128, cute::_256, cute::_64>, ChannelOrder::first>;
  return sm90::pointwise_variant<Gemm>(
      "dense_v12_pointwise_gemm_128x256x64_ncdhw",
      "pointwise conv in NCDHW as a GEMM on the caller's tensors (x read N-major): no x or y staging",
      "src/dense/dense_v12_pointwise_gemm_128x256x64_ncdhw.cu");
}

}  // namespace kforge::dense
