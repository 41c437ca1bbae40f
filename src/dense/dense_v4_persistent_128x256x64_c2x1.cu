// dense_v4_persistent_128x256x64_c2x1: v2 in 2x1 clusters: the two CTAs of a cluster share their filter (B) tile
// through TMA multicast, halving B's L2->SM traffic.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v4_persistent_128x256x64_c2x1() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_256, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_2, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v4_persistent_128x256x64_c2x1", "v2 in 2x1 clusters: the filter tile is multicast to both CTAs",
      "src/dense/dense_v4_persistent_128x256x64_c2x1.cu");
}

}  // namespace kforge::dense
