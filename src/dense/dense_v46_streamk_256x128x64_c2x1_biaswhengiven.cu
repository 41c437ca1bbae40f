// dense_v46_streamk_256x128x64_c2x1_biaswhengiven: v45 in 2x1 clusters: the two CTAs of a cluster work on
// neighbouring pixel tiles over the same K range and share the filter tile by TMA multicast (as v20 does for v3):
// 20 instead of 24 KB from L2 per 1 M MACs, if L2 -> SM bytes are what holds the small grids.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v46_streamk_256x128x64_c2x1_biaswhengiven() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_2, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::StreamKScheduler,
                                    cutlass::layout::RowMajor, cutlass::epilogue::collective::EpilogueTileAuto,
                                    sm90::EpilogueMath::bias_when_given>;
  return sm90::persistent_variant<Conv>("dense_v46_streamk_256x128x64_c2x1_biaswhengiven",
                                        "v45 in 2x1 clusters: the filter tile multicast to both CTAs",
                                        "src/dense/dense_v46_streamk_256x128x64_c2x1_biaswhengiven.cu");
}

}  // namespace kforge::dense
