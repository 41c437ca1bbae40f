// dense_v21_persistent_256x96x32_c2x1: v18 in 2x1 clusters, the filter (B) tile multicast to two CTAs on
// neighbouring pixel tiles. v18's profile on wan21_up3: L2 -> SM traffic is the limit (ncu memory throughput 93%,
// tensor pipes 73%), because a 96-wide N tile moves 25% more bytes per MAC than a 128-wide one; multicast takes
// B's share (6 of 22 KB per stage) down by half.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v21_persistent_256x96x32_c2x1() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_96, cute::Shape<cute::_32>>,
                                    cute::Shape<cute::_2, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v21_persistent_256x96x32_c2x1", "v18 in 2x1 clusters: the filter tile is multicast to both CTAs",
      "src/dense/dense_v21_persistent_256x96x32_c2x1.cu");
}

}  // namespace kforge::dense
