// dense_v42_pingpong_64x128x64_e64x64_biasadd: v38 with 64x128 tiles, for small grids with long K loops. ncu on
// v37 over c64_stride2 (2026-12-02 18:46 UTC): SMs active 64% of the elapsed cycles: its 288 tiles of 128x128 give
// 24 SMs a third tile while 108 have two (ping-pong runs an SM's mainloops one after another), and stream-K (v39)
// did not pay. Half-height tiles make 576: at most 5 per SM against 4.36 on average. Each m64n128k16 wgmma reads
// as many shared-memory bytes per MAC as v37's pair of them (A 2 KiB + B 4 KiB for 131 k MACs).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v42_pingpong_64x128x64_e64x64_biasadd() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_64, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cute::Shape<cute::_64, cute::_64>,
                                    sm90::EpilogueMath::bias_add>;
  return sm90::persistent_variant<Conv>("dense_v42_pingpong_64x128x64_e64x64_biasadd",
                                        "v38 with 64x128 tiles: finer work units for grids of a few waves",
                                        "src/dense/dense_v42_pingpong_64x128x64_e64x64_biasadd.cu");
}

}  // namespace kforge::dense
