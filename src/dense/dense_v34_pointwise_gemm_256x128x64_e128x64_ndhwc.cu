// dense_v34_pointwise_gemm_256x128x64_e128x64_ndhwc: v13 (the channels-last pointwise GEMM, 256x128 cooperative)
// with 128x64 epilogue sub-tiles instead of 128x32: 4 rounds of convert, shared-memory store, barrier and TMA store
// per tile instead of 8, and 128-byte rows per store. ncu on c512_k111 (2026-12-02 16:05 UTC): cuBLAS's
// nvjet_sm90_tst_256x128_64x4_1x2 (PyTorch's pick for this conv: the same tile and stage count) takes 282 k
// cycles where v13 takes 325 k, with the same DRAM bytes; within a tile the consumers wait on the tensor cores
// (v14's stall samples), so the difference sits at the tiles' ends.
#include "dense/sm90_pointwise_gemm.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v34_pointwise_gemm_256x128x64_e128x64_ndhwc() {
  using Gemm = sm90::PointwiseGemmKernel<cute::Shape<cute::_256, cute::_128, cute::_64>, ChannelOrder::last,
                                         cute::Shape<cute::_1, cute::_1, cute::_1>, 2,
                                         cutlass::gemm::KernelTmaWarpSpecializedCooperative, 64>;
  return sm90::pointwise_variant<Gemm>("dense_v34_pointwise_gemm_256x128x64_e128x64_ndhwc",
                                       "v13 with 128x64 epilogue sub-tiles: half the store rounds per tile",
                                       "src/dense/dense_v34_pointwise_gemm_256x128x64_e128x64_ndhwc.cu");
}

}  // namespace kforge::dense
