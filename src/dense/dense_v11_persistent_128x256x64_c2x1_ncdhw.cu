// dense_v11_persistent_128x256x64_c2x1_ncdhw: v4's kernel (128x256 tiles in 2x1 clusters) with v10's epilogue,
// which writes one image's NCDHW y directly (column-major [M, K]). v10 measured: the direct write saves ~2|y| bytes
// of staging, but for K_out > 256 v4's tile is worth up to 4% (c2048_k333: v4 staged 69.9 ms, v10 72.9), so the
// NCDHW twin of the rule's K_out > 128 tile is this one. Limits: v4's and v10's.
// Also v62: the same kernel walked to share the larger operand (tile_walk.hpp; v60 is v4 so walked).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {
namespace {
using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_256, cute::Shape<cute::_64>>,
                                  cute::Shape<cute::_2, cute::_1, cute::_1>,
                                  cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler,
                                  cutlass::layout::ColumnMajor>;
constexpr const char* kSource = "src/dense/dense_v11_persistent_128x256x64_c2x1_ncdhw.cu";
}  // namespace

Variant v11_persistent_128x256x64_c2x1_ncdhw() {
  return sm90::persistent_variant<Conv>(
      "dense_v11_persistent_128x256x64_c2x1_ncdhw",
      "v4 writing NCDHW y directly (column-major epilogue, N = 1): the K_out > 128 tile without output staging",
      kSource);
}

Variant v62_persistent_128x256x64_c2x1_operandwalk_ncdhw() {
  return sm90::persistent_variant<Conv>("dense_v62_persistent_128x256x64_c2x1_operandwalk_ncdhw",
                                        "v11 walked so that side-by-side CTAs share the larger operand (as v60)",
                                        kSource, {.walk = TileWalk::share_larger_operand});
}

}  // namespace kforge::dense
