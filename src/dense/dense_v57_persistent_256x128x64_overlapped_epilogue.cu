// dense_v57_persistent_256x128x64_overlapped_epilogue: v44's tile and im2col mainloop in our own persistent
// kernel, whose consumers store a tile's y under the next tile's first four K blocks of wgmma
// (overlapped_epilogue_conv.cuh) instead of between the two tiles.
#include "dense/overlapped_epilogue_conv.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v57_persistent_256x128x64_overlapped_epilogue() {
  using Conv = sm90::OverlappedEpilogueConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>>;
  static_assert(Conv::kStages == 4, "v44's depth: 4 stages of 48 KiB beside the epilogue's 32 KiB");
  return sm90::overlapped_epilogue_variant<Conv>(
      "dense_v57_persistent_256x128x64_overlapped_epilogue",
      "v44's tile storing y under the next tile's first K blocks: the tensor cores do not wait for the epilogue",
      "src/dense/dense_v57_persistent_256x128x64_overlapped_epilogue.cu");
}

}  // namespace kforge::dense
