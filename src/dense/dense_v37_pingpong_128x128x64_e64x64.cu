// dense_v37_pingpong_128x128x64_e64x64: v8 (ping-pong 128x128, the rule's pick for short K loops and small grids)
// with 64x64 epilogue sub-tiles: y's rows leave in 128-byte pieces instead of 64, 4 store rounds per tile instead
// of 8. The same change took the cooperative pointwise GEMM v13 -> v34 from 0.197 to 0.192 ms on c512_k111.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v37_pingpong_128x128x64_e64x64() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cute::Shape<cute::_64, cute::_64>>;
  return sm90::persistent_variant<Conv>("dense_v37_pingpong_128x128x64_e64x64",
                                        "v8 with 64x64 epilogue sub-tiles: y written in 128-byte rows",
                                        "src/dense/dense_v37_pingpong_128x128x64_e64x64.cu");
}

}  // namespace kforge::dense
