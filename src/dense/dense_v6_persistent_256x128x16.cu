// dense_v6_persistent_256x128x16: v3's kernel with a 16-channel K tile, for inputs of few channels (RGB stems,
// C <= 16 pointwise convs): a 64-channel tile over C = 3 (padded to 8) or C = 16 would multiply zeros 8x or 4x.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v6_persistent_256x128x16() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_16>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v6_persistent_256x128x16", "v3 with a 16-channel K tile: no 64-channel tiles of zeros when C <= 16",
      "src/dense/dense_v6_persistent_256x128x16.cu");
}

}  // namespace kforge::dense
