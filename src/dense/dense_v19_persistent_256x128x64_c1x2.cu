// dense_v19_persistent_256x128x64_c1x2: v3 in 1x2 clusters: the two CTAs of a cluster compute neighbouring
// output-channel tiles of the same pixels and share their im2col (A) tile through TMA multicast; A is two thirds
// of a 256x128 tile's loads (v4 multicasts B, the larger operand of its 128x256 tile).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v19_persistent_256x128x64_c1x2() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_2, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v19_persistent_256x128x64_c1x2", "v3 in 1x2 clusters: the im2col tile is multicast to both CTAs",
      "src/dense/dense_v19_persistent_256x128x64_c1x2.cu");
}

}  // namespace kforge::dense
