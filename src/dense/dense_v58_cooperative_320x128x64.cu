// dense_v58_cooperative_320x128x64: v57's kernel with tiles of five 64-row blocks (three for the first consumer
// warpgroup, two for the second), one tile per CTA with y stored after its K loop, for grids that one wave of
// 320-row tiles covers where 256-row tiles spill into a second (c64_stride2: 116 tiles on 132 SMs against 144)
// (overlapped_epilogue_conv.cuh).
#include "dense/overlapped_epilogue_conv.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v58_cooperative_320x128x64() {
  using Conv = sm90::OverlappedEpilogueConv<cute::Shape<cute::Int<320>, cute::_128, cute::Shape<cute::_64>>>;
  static_assert(Conv::kStages == 3 && !Conv::kPersistent, "3 stages of 56 KiB beside the epilogue's 40 KiB");
  return sm90::overlapped_epilogue_variant<Conv>(
      "dense_v58_cooperative_320x128x64",
      "320x128 tiles (3 + 2 64-row blocks per consumer warpgroup), one per CTA: one wave covers a grid that 256x128 "
      "tiles spill into a second",
      "src/dense/dense_v58_cooperative_320x128x64.cu");
}

}  // namespace kforge::dense
