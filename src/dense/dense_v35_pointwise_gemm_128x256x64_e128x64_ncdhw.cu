// dense_v35_pointwise_gemm_128x256x64_e128x64_ncdhw: v12 (the channels-first pointwise GEMM, 128x256 cooperative)
// with 128x64 epilogue sub-tiles: v34's change for PyTorch's default layout (4 store rounds per tile instead of 8).
#include "dense/sm90_pointwise_gemm.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v35_pointwise_gemm_128x256x64_e128x64_ncdhw() {
  using Gemm = sm90::PointwiseGemmKernel<cute::Shape<cute::_128, cute::_256, cute::_64>, ChannelOrder::first,
                                         cute::Shape<cute::_1, cute::_1, cute::_1>, 2,
                                         cutlass::gemm::KernelTmaWarpSpecializedCooperative, 64>;
  return sm90::pointwise_variant<Gemm>("dense_v35_pointwise_gemm_128x256x64_e128x64_ncdhw",
                                       "v12 with 128x64 epilogue sub-tiles: half the store rounds per tile",
                                       "src/dense/dense_v35_pointwise_gemm_128x256x64_e128x64_ncdhw.cu");
}

}  // namespace kforge::dense
