// dense_v20_persistent_256x128x64_c2x1: v3 in 2x1 clusters: two CTAs on neighbouring pixel tiles share the filter
// (B) tile through TMA multicast. For K_out <= 128 there is one N tile, so A cannot be shared (v19); B can.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v20_persistent_256x128x64_c2x1() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_2, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v20_persistent_256x128x64_c2x1", "v3 in 2x1 clusters: the filter tile is multicast to both CTAs",
      "src/dense/dense_v20_persistent_256x128x64_c2x1.cu");
}

}  // namespace kforge::dense
