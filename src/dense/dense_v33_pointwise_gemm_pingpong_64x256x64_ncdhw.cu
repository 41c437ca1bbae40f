// dense_v33_pointwise_gemm_pingpong_64x256x64_ncdhw: v14's GEMM on the caller's NCDHW tensors with the ping-pong
// schedule: each consumer warpgroup owns a 64 (output channels) x 256 (voxels) tile and stores it while the other
// runs its MMAs. v14's stall samples on c512_k111 (8 K blocks per tile) put the tensor pipes' idle 25-31% in each
// tile's epilogue and start, which the cooperative schedule does not overlap; 64x256 keeps v14's m64n256 wgmmas.
#include "dense/sm90_pointwise_gemm.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v33_pointwise_gemm_pingpong_64x256x64_ncdhw() {
  using Gemm = sm90::PointwiseGemmKernel<cute::Shape<cute::_64, cute::_256, cute::_64>, ChannelOrder::first,
                                         cute::Shape<cute::_1, cute::_1, cute::_1>, 4,
                                         cutlass::gemm::KernelTmaWarpSpecializedPingpong>;
  return sm90::pointwise_variant<Gemm>("dense_v33_pointwise_gemm_pingpong_64x256x64_ncdhw",
                                       "v14 with the ping-pong schedule: one warpgroup's stores under the other's MMAs",
                                       "src/dense/dense_v33_pointwise_gemm_pingpong_64x256x64_ncdhw.cu");
}

}  // namespace kforge::dense
