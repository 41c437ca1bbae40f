// dense_v24_pingpong_128x128x64_c1x2: v8 in 1x2 clusters, the im2col (A) tile multicast to two CTAs on
// neighbouring output-channel tiles: v23's saving on the other operand. It can pay only where K_out > 128 (with
// one N tile, as in hunyuan_up3, one CTA of each cluster has no tile).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v24_pingpong_128x128x64_c1x2() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_2, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v24_pingpong_128x128x64_c1x2", "v8 in 1x2 clusters: the im2col tile is multicast to both CTAs",
      "src/dense/dense_v24_pingpong_128x128x64_c1x2.cu");
}

}  // namespace kforge::dense
