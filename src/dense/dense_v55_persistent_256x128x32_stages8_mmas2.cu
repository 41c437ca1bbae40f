// dense_v55_persistent_256x128x32_stages8_mmas2: v52 with two K blocks of wgmma left queued behind each issue
// instead of one. v52's 32-channel K block halves the work the tensor cores hold while a consumer waits for its
// next stage (~0.5 k cycles against v44's ~1 k); v55 restores v44's depth, at one stage fewer of loads in flight.
// The control for v52: if v52 loses to v44 and v55 does not, the shallow queue was the cost.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v55_persistent_256x128x32_stages8_mmas2() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_32>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cutlass::epilogue::collective::EpilogueTileAuto,
                                    sm90::EpilogueMath::bias_when_given, sm90::EpilogueStore::tma, 2>;
  static_assert(Conv::kStages == 8, "the depth this variant measures: 8 stages of 24 KiB");
  return sm90::persistent_variant<Conv>("dense_v55_persistent_256x128x32_stages8_mmas2",
                                        "v52 with two K blocks of wgmma queued behind each issue (v44's depth)",
                                        "src/dense/dense_v55_persistent_256x128x32_stages8_mmas2.cu");
}

}  // namespace kforge::dense
