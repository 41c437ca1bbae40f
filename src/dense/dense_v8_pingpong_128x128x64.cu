// dense_v8_pingpong_128x128x64: the persistent kernel with the ping-pong schedule: each consumer warpgroup owns a
// whole 128x128 tile and the two alternate, so one warpgroup's epilogue runs under the other's mainloop. For short
// K loops (pointwise convs, few input channels) the cooperative kernel spends a large share of each tile in its
// epilogue with the tensor cores idle.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v8_pingpong_128x128x64() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v8_pingpong_128x128x64",
      "ping-pong: one warpgroup's epilogue under the other's mainloop (short K loops: pointwise, few channels)",
      "src/dense/dense_v8_pingpong_128x128x64.cu");
}

}  // namespace kforge::dense
