// dense_v9_persistent_128x192x64: the cooperative persistent kernel with a 192-wide N tile, for K_out a multiple
// of 192 but not of 256 (Wan 2.1's up2 stage, K_out = 192): a 256-wide tile leaves a quarter of every MMA and
// epilogue on padding there.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v9_persistent_128x192x64() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_192, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v9_persistent_128x192x64", "a 192-wide N tile: no padded quarter when K_out = 192 (or 384, 576)",
      "src/dense/dense_v9_persistent_128x192x64.cu");
}

}  // namespace kforge::dense
