// dense_v23_pingpong_128x128x64_c2x1: v8 in 2x1 clusters, the filter (B) tile multicast to two CTAs on
// neighbouring pixel tiles. A 128x128x64 K block moves 32 KB from L2 for 1 M MACs, about 38 bytes per SM cycle at
// v8's measured rate on c512_k111 and hunyuan_up3, which is the L2 -> SM rate v21's profile saturated (93% at ~38
// bytes per cycle); multicast makes it 24 KB while ping-pong keeps each epilogue under the other warpgroup's MMAs.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v23_pingpong_128x128x64_c2x1() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_2, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v23_pingpong_128x128x64_c2x1", "v8 in 2x1 clusters: the filter tile is multicast to both CTAs",
      "src/dense/dense_v23_pingpong_128x128x64_c2x1.cu");
}

}  // namespace kforge::dense
