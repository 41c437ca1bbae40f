// dense_v32_pingpong_64x256x64_c2x1: ping-pong with a 64x256 tile per consumer warpgroup, in 2x1 clusters (the
// filter tile multicast to two CTAs on neighbouring pixel tiles). v8's 128x128 tile per warpgroup hides each
// epilogue under the other warpgroup's MMAs but issues m64n128 wgmmas, which read 96 bytes of shared memory per
// cycle at full rate; m64n256 reads 80 (A's 2 KB + B's 8 KB per 262 k MACs), as the cooperative 128x256 tile does,
// while keeping ping-pong's overlap. Same 128 accumulators per thread as v8.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v32_pingpong_64x256x64_c2x1() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_64, cute::_256, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_2, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v32_pingpong_64x256x64_c2x1",
      "ping-pong, 64x256 per warpgroup (m64n256 wgmmas: fewer shared-memory bytes per MAC than v8), B multicast",
      "src/dense/dense_v32_pingpong_64x256x64_c2x1.cu");
}

}  // namespace kforge::dense
