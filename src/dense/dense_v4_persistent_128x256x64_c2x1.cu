// dense_v4_persistent_128x256x64_c2x1: v2 in 2x1 clusters: the two CTAs of a cluster share their filter (B) tile
// through TMA multicast, halving B's L2->SM traffic.
// Also v60: the same kernel walked to share the larger operand (tile_walk.hpp), registered from this translation
// unit so that both walks run one instantiation.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {
namespace {
using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_256, cute::Shape<cute::_64>>,
                                  cute::Shape<cute::_2, cute::_1, cute::_1>,
                                  cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler>;
constexpr const char* kSource = "src/dense/dense_v4_persistent_128x256x64_c2x1.cu";
}  // namespace

Variant v4_persistent_128x256x64_c2x1() {
  return sm90::persistent_variant<Conv>("dense_v4_persistent_128x256x64_c2x1",
                                        "v2 in 2x1 clusters: the filter tile is multicast to both CTAs", kSource);
}

Variant v60_persistent_128x256x64_c2x1_operandwalk() {
  return sm90::persistent_variant<Conv>(
      "dense_v60_persistent_128x256x64_c2x1_operandwalk",
      "v4 walked so that side-by-side CTAs share the larger operand (M tiles fastest where the filter outweighs x)",
      kSource, {.walk = TileWalk::share_larger_operand});
}

}  // namespace kforge::dense
