// dense_v5_streamk_128x256x64: v2's tile on CUTLASS's stream-K scheduler: the last partial wave of output tiles
// is split along K across the idle SMs (fp32 partials reduced through a workspace).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v5_streamk_128x256x64() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_256, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::StreamKScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v5_streamk_128x256x64", "v2 on the stream-K scheduler: the tail wave is split along K",
      "src/dense/dense_v5_streamk_128x256x64.cu");
}

}  // namespace kforge::dense
