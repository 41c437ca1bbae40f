// dense_v25_pingpong_128x128x64_c2x2: v8 in 2x2 clusters, both operands multicast: the filter tile to the two CTAs
// of a cluster column, the im2col tile to the two of a row, so a 128x128x64 K block takes 16 KB from L2 per CTA
// (v8 32, v23 / v24 24). Like v24 it can pay only where K_out > 128.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v25_pingpong_128x128x64_c2x2() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_2, cute::_2, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v25_pingpong_128x128x64_c2x2", "v8 in 2x2 clusters: each tile multicast along its cluster row or column",
      "src/dense/dense_v25_pingpong_128x128x64_c2x2.cu");
}

}  // namespace kforge::dense
