// dense_v18_persistent_256x96x32: v7 with a 32-channel K tile, for C % 64 in (0, 32] (Wan 2.1's up3, C = 96): the
// im2col mainloop walks C in K-tile chunks per filter tap, so a 64-channel tile over C = 96 makes every second chunk
// half zeros (a quarter of all MMAs); 32-channel chunks cover 96 exactly.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v18_persistent_256x96x32() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_96, cute::Shape<cute::_32>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
  return sm90::persistent_variant<Conv>(
      "dense_v18_persistent_256x96x32", "v7 with a 32-channel K tile: no half-zero chunks when C % 64 is in (0, 32]",
      "src/dense/dense_v18_persistent_256x96x32.cu");
}

}  // namespace kforge::dense
