// dense_v41_pointwise_gemm_128x256x64_e128x64_biasadd_ncdhw: v35 (the NCDHW pointwise GEMM, the rule's pick there)
// with v38's epilogue, act(acc + bias) with the bias per GEMM row: one FADD per output instead of two FFMAs.
#include "dense/sm90_pointwise_gemm.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v41_pointwise_gemm_128x256x64_e128x64_biasadd_ncdhw() {
  using Gemm = sm90::PointwiseGemmKernel<cute::Shape<cute::_128, cute::_256, cute::_64>, ChannelOrder::first,
                                         cute::Shape<cute::_1, cute::_1, cute::_1>, 2,
                                         cutlass::gemm::KernelTmaWarpSpecializedCooperative, 64,
                                         sm90::EpilogueMath::bias_add>;
  return sm90::pointwise_variant<Gemm>("dense_v41_pointwise_gemm_128x256x64_e128x64_biasadd_ncdhw",
                                       "v35 with an epilogue of act(acc + bias): no alpha / beta FFMAs",
                                       "src/dense/dense_v41_pointwise_gemm_128x256x64_e128x64_biasadd_ncdhw.cu");
}

}  // namespace kforge::dense
