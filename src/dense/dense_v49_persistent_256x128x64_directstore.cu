// dense_v49_persistent_256x128x64_directstore: v44 (v3's tile, the bias only when given) writing y from the
// accumulator registers (direct_store_epilogue.cuh) instead of through shared memory and TMA stores: v3's ncu
// cycles on c1024_k133 and c1024_k311 fit ~4.4 k cycles per tile outside the MMAs, which the consumers spend in
// the TMA epilogue's rounds before their next tile can start (NOTES.md, v49).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v49_persistent_256x128x64_directstore() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cutlass::epilogue::collective::EpilogueTileAuto,
                                    sm90::EpilogueMath::bias_when_given, sm90::EpilogueStore::direct>;
  return sm90::persistent_variant<Conv>("dense_v49_persistent_256x128x64_directstore",
                                        "v44 storing y straight from the accumulators: no shared-memory rounds per tile",
                                        "src/dense/dense_v49_persistent_256x128x64_directstore.cu");
}

}  // namespace kforge::dense
