// dense_v59_persistent_128x256x64_overlapped_epilogue: v57's kernel (overlapped_epilogue_conv.cuh) with v4's
// 128x256 tile: one 64-row block per consumer warpgroup, each K block's MMAs as m64n256 wgmmas (half of v57's
// m64n128 instructions and their descriptor arithmetic for the same MACs, 17% fewer shared-memory bytes per MAC),
// and y stored in eight 32-column chunks under the next tile's first eight K blocks.
// Also v61: the same kernel walked to share the larger operand (tile_walk.hpp; v60 is v4 so walked).
#include "dense/overlapped_epilogue_conv.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {
namespace {
using Conv = sm90::OverlappedEpilogueConv<cute::Shape<cute::_128, cute::_256, cute::Shape<cute::_64>>>;
static_assert(Conv::kStages == 4 && Conv::kPersistent, "v4's depth: 4 stages of 48 KiB beside the epilogue's 16 KiB");
constexpr const char* kSource = "src/dense/dense_v59_persistent_128x256x64_overlapped_epilogue.cu";
}  // namespace

Variant v59_persistent_128x256x64_overlapped_epilogue() {
  return sm90::overlapped_epilogue_variant<Conv>(
      "dense_v59_persistent_128x256x64_overlapped_epilogue",
      "v57's overlapped epilogue on v4's 128x256 tile: m64n256 wgmmas, half the MMA instructions per MAC", kSource);
}

Variant v61_persistent_128x256x64_overlapped_epilogue_operandwalk() {
  return sm90::overlapped_epilogue_variant<Conv>(
      "dense_v61_persistent_128x256x64_overlapped_epilogue_operandwalk",
      "v59 walked so that side-by-side CTAs share the larger operand (as v60)", kSource,
      TileWalk::share_larger_operand);
}

}  // namespace kforge::dense
