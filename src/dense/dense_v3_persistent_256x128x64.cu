// dense_v3_persistent_256x128x64: v2's kernel with the tile transposed to 256x128: for K_out <= 128 (the
// high-resolution VAE stages) a 256-wide N tile would be half empty.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v3_persistent_256x128x64() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v3_persistent_256x128x64", "v2 with a 256x128 tile: no half-empty N tiles when K_out <= 128",
      "src/dense/dense_v3_persistent_256x128x64.cu");
}

}  // namespace kforge::dense
