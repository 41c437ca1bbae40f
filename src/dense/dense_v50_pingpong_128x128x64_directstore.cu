// dense_v50_pingpong_128x128x64_directstore: v43 (ping-pong 128x128, the bias only when given) writing y from the
// accumulator registers (direct_store_epilogue.cuh): ping-pong already runs one warpgroup's epilogue under the
// other's MMAs, so this asks what the TMA epilogue's shared memory (a pipeline stage more without it) and its
// barriers cost the short K loops (c512_k111, c64_stride2) it is the rule's pick for (NOTES.md, v50).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v50_pingpong_128x128x64_directstore() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cutlass::epilogue::collective::EpilogueTileAuto,
                                    sm90::EpilogueMath::bias_when_given, sm90::EpilogueStore::direct>;
  return sm90::persistent_variant<Conv>("dense_v50_pingpong_128x128x64_directstore",
                                        "v43 storing y straight from the accumulators (a pipeline stage more)",
                                        "src/dense/dense_v50_pingpong_128x128x64_directstore.cu");
}

}  // namespace kforge::dense
