// dense_v43_pingpong_128x128x64_e64x64_biaswhengiven: v38 whose epilogue adds the bias only when there is one
// (`EpilogueMath::bias_when_given`): on a bias-free conv v38 adds a fragment of zeros to every output, an FADD per
// element that ncu counts as 9.7% of its warp instructions on c512_k111 (2026-12-02 19:16 UTC).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v43_pingpong_128x128x64_e64x64_biaswhengiven() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cute::Shape<cute::_64, cute::_64>,
                                    sm90::EpilogueMath::bias_when_given>;
  return sm90::persistent_variant<Conv>("dense_v43_pingpong_128x128x64_e64x64_biaswhengiven",
                                        "v38 with the bias added only when there is one",
                                        "src/dense/dense_v43_pingpong_128x128x64_e64x64_biaswhengiven.cu");
}

}  // namespace kforge::dense
