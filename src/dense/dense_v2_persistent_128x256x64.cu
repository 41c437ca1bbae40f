// dense_v2_persistent_128x256x64: our persistent composition (sm90_conv_persistent.cuh): the im2col TMA mainloop in
// the persistent cooperative GEMM kernel, two consumer warpgroups on a 128x256x64 tile, cluster 1x1.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v2_persistent_128x256x64() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_256, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v2_persistent_128x256x64",
      "persistent cooperative kernel (2 consumer warpgroups, 128x256 tile) around CUTLASS's im2col mainloop",
      "src/dense/dense_v2_persistent_128x256x64.cu");
}

}  // namespace kforge::dense
