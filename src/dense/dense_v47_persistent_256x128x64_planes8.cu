// dense_v47_persistent_256x128x64_planes8: v44 (v3's tile, the bias only when given) walking its output tiles
// eight output planes side by side (plane_order.hpp): the T output planes that read an input plane run together,
// so that plane crosses DRAM -> L2 about 10/8 times instead of up to T (c1024_k311: 10.9 GB read for a 3.5 GB x).
// Measured: 6.3 GB, and 1.3-1.6% slower than v44 (NOTES.md): DRAM bytes were not what held v44 there.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v47_persistent_256x128x64_planes8() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, sm90::PlaneOrderedScheduler,
                                    cutlass::layout::RowMajor, cutlass::epilogue::collective::EpilogueTileAuto,
                                    sm90::EpilogueMath::bias_when_given>;
  return sm90::persistent_variant<Conv>("dense_v47_persistent_256x128x64_planes8",
                                        "v44 walking eight output planes side by side: input planes re-read from DRAM less",
                                        "src/dense/dense_v47_persistent_256x128x64_planes8.cu", {.plane_block = 8});
}

}  // namespace kforge::dense
