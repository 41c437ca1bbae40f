// dense_v52_persistent_256x128x32_stages8: v44 with a 32-channel K block, so twice the stages (8 of 24 KiB instead
// of 4 of 48 KiB) in the same shared memory. A stage takes its next load once the wgmmas reading it complete, so
// only the K block under the tensor cores holds memory that is not in flight: v44 keeps 3 K blocks of loads (144
// KiB, ~3.1 k cycles of MMAs) ahead of the MMAs that need them, v52 7 half-size ones (168 KiB, ~3.6 k cycles).
// v44's stall samples on c1024_k311 (taps across three input planes, L2 hit 80%) wait for a stage's data in 15.8%
// of the samples, against 10.7% on c1024_k133 (92%). The cost: twice the barrier round trips per MAC.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v52_persistent_256x128x32_stages8() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_32>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cutlass::epilogue::collective::EpilogueTileAuto,
                                    sm90::EpilogueMath::bias_when_given>;
  static_assert(Conv::kStages == 8, "the depth this variant measures: 8 stages of 24 KiB");
  return sm90::persistent_variant<Conv>("dense_v52_persistent_256x128x32_stages8",
                                        "v44 with 32-channel K blocks: 8 stages of 24 KiB, 7 K blocks of loads in flight",
                                        "src/dense/dense_v52_persistent_256x128x32_stages8.cu");
}

}  // namespace kforge::dense
