// dense_v22_persistent_256x96x32_c4x1: v21 in 4x1 clusters: the filter tile shared by four CTAs on neighbouring
// pixel tiles. v21 (2x1) took wan21_up3 from 3.10 to 2.81 ms and ncu still reads the memory system at 95%; four
// CTAs take B's share of the L2 -> SM bytes per stage from 3 KB to 1.5 KB (19 -> 17.5 KB with A's 16).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v22_persistent_256x96x32_c4x1() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_96, cute::Shape<cute::_32>>,
                                    cute::Shape<cute::_4, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v22_persistent_256x96x32_c4x1", "v21 in 4x1 clusters: the filter tile is multicast to four CTAs",
      "src/dense/dense_v22_persistent_256x96x32_c4x1.cu");
}

}  // namespace kforge::dense
