// dense_v39_streamk_128x128x64_e128x64_biasadd: the cooperative kernel with a 128x128 tile on CUTLASS's stream-K
// scheduler, for small grids with long K loops (c64_stride2: 288 tiles of 27 K-blocks on 132 SMs). Ping-pong
// (v37, the rule's pick there) cannot take stream-K in CUTLASS 4.2; data-parallel, 288 tiles are 2.18 waves, so
// the SMs with a third tile set the time. Stream-K hands every SM the same number of K-blocks (59 of 7776) and
// reduces the split tiles' fp32 partials through a workspace. Epilogue as v38 (act(acc + bias), 128x64 sub-tiles).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v39_streamk_128x128x64_e128x64_biasadd() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::StreamKScheduler,
                                    cutlass::layout::RowMajor, cute::Shape<cute::_128, cute::_64>,
                                    sm90::EpilogueMath::bias_add>;
  return sm90::persistent_variant<Conv>("dense_v39_streamk_128x128x64_e128x64_biasadd",
                                        "cooperative 128x128 on stream-K: equal K-blocks per SM on small grids",
                                        "src/dense/dense_v39_streamk_128x128x64_e128x64_biasadd.cu");
}

}  // namespace kforge::dense
