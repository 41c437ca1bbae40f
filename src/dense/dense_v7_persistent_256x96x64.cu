// dense_v7_persistent_256x96x64: v3's kernel with a 96-wide N tile, for K_out = 96 (Wan 2.1's up3 stage): a
// 128-wide N tile leaves a quarter of every MMA and epilogue on padding there.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v7_persistent_256x96x64() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_96, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v7_persistent_256x96x64", "v3 with a 96-wide N tile: no padded quarter when K_out = 96",
      "src/dense/dense_v7_persistent_256x96x64.cu");
}

}  // namespace kforge::dense
