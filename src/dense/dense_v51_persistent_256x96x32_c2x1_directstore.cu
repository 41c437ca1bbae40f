// dense_v51_persistent_256x96x32_c2x1_directstore: v21 (the rule's tile for K_out <= 96 over C % 64 <= 32, e.g.
// wan21_up3) writing y from the accumulator registers (direct_store_epilogue.cuh), the bias only when given: its
// 256x96 tile runs 81 K blocks of 32 channels, ~31 k cycles of MMAs, so a per-tile epilogue of a few thousand
// cycles weighs more than on v44's 48 blocks of 64 (NOTES.md, v51). The freed store buffers become pipeline stages.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v51_persistent_256x96x32_c2x1_directstore() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_96, cute::Shape<cute::_32>>,
                                    cute::Shape<cute::_2, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cutlass::epilogue::collective::EpilogueTileAuto,
                                    sm90::EpilogueMath::bias_when_given, sm90::EpilogueStore::direct>;
  return sm90::persistent_variant<Conv>("dense_v51_persistent_256x96x32_c2x1_directstore",
                                        "v21 storing y straight from the accumulators (more pipeline stages)",
                                        "src/dense/dense_v51_persistent_256x96x32_c2x1_directstore.cu");
}

}  // namespace kforge::dense
