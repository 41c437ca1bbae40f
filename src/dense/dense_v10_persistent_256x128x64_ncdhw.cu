// dense_v10_persistent_256x128x64_ncdhw: v3's kernel whose epilogue writes one image's NCDHW output directly: the
// column-major [M, K] view of y (M = Do*Ho*Wo), TMA-stored from a transposed shared-memory tile. PyTorch's default
// layout otherwise pays 2|y| bytes of staging after the kernel (NDHWC y -> NCDHW: c1024_k133 ~2 ms of 49,
// cog_spatialnorm 0.37 of 0.88 ms); x is still staged. Limits: v3's, plus N == 1, a packed NCDHW y and
// Do*Ho*Wo % 8 == 0 (output_order_refusal).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v10_persistent_256x128x64_ncdhw() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::ColumnMajor>;
  return sm90::persistent_variant<Conv>(
      "dense_v10_persistent_256x128x64_ncdhw",
      "v3 writing NCDHW y directly (column-major epilogue, N = 1): no output staging in PyTorch's layout",
      "src/dense/dense_v10_persistent_256x128x64_ncdhw.cu");
}

}  // namespace kforge::dense
