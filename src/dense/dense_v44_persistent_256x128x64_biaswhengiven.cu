// dense_v44_persistent_256x128x64_biaswhengiven: v3 (the rule's tile for K_out <= 128 on long K loops) with v43's
// epilogue: no alpha / beta FFMAs and the bias added only when there is one. v40 (the FFMAs alone) tied v3 on
// c1024_k311 (-0.5%, under the spread); this sheds the FADD of zeros as well.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v44_persistent_256x128x64_biaswhengiven() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cutlass::epilogue::collective::EpilogueTileAuto,
                                    sm90::EpilogueMath::bias_when_given>;
  return sm90::persistent_variant<Conv>("dense_v44_persistent_256x128x64_biaswhengiven",
                                        "v3 with v43's epilogue: act(acc [+ bias]), no alpha / beta FFMAs",
                                        "src/dense/dense_v44_persistent_256x128x64_biaswhengiven.cu");
}

}  // namespace kforge::dense
