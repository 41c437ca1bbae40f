// dense_v11_persistent_128x256x64_c2x1_ncdhw: v4's kernel (128x256 tiles in 2x1 clusters) with v10's epilogue,
// which writes one image's NCDHW y directly (column-major [M, K]). v10 measured: the direct write saves ~2|y| bytes
// of staging, but for K_out > 256 v4's tile is worth up to 4% (c2048_k333: v4 staged 69.9 ms, v10 72.9), so the
// NCDHW twin of the rule's K_out > 128 tile is this one. Limits: v4's and v10's.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v11_persistent_128x256x64_c2x1_ncdhw() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_256, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_2, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::ColumnMajor>;
  return sm90::persistent_variant<Conv>(
      "dense_v11_persistent_128x256x64_c2x1_ncdhw",
      "v4 writing NCDHW y directly (column-major epilogue, N = 1): the K_out > 128 tile without output staging",
      "src/dense/dense_v11_persistent_128x256x64_c2x1_ncdhw.cu");
}

}  // namespace kforge::dense
