// dense_v45_streamk_256x128x64_biaswhengiven: v44's cooperative 256x128 tile on CUTLASS's stream-K scheduler, for
// small grids with long K loops. c64_stride2 (M 36864, K_out 128, 27 K-blocks) makes 144 such tiles: data-parallel,
// 12 SMs run a second one and set the time (v3 0.0475 ms); ping-pong 128x128 (v43, the rule's pick) leaves 24 of 132
// SMs a third tile (ncu: SMs active 64% of the elapsed cycles). Stream-K hands each SM 29.45 of the 3888 K-blocks.
// v39 (stream-K over 128x128) did not pay; this tile reads a quarter fewer L2 bytes per MAC (24 against 32 KB per
// 1 M MACs).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v45_streamk_256x128x64_biaswhengiven() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::StreamKScheduler,
                                    cutlass::layout::RowMajor, cutlass::epilogue::collective::EpilogueTileAuto,
                                    sm90::EpilogueMath::bias_when_given>;
  return sm90::persistent_variant<Conv>("dense_v45_streamk_256x128x64_biaswhengiven",
                                        "v44 on stream-K: equal K-blocks per SM where 256x128 tiles underfill a wave",
                                        "src/dense/dense_v45_streamk_256x128x64_biaswhengiven.cu");
}

}  // namespace kforge::dense
