// dense_v64_pingpong_192x64x64_c1x2_e64x64_biaswhengiven: v63 in 1x2 clusters. A 192x64x64 stage is 24 KB of
// im2col rows (A) and 8 KB of filter (B); the two CTAs of a cluster compute neighbouring 64-wide N tiles of the same
// 192 rows, so A is multicast and each SM pulls 20 KB per stage from L2 instead of 32. Measured (NOTES.md, v64): a
// tie with v63 on c64_stride2, and slower where K_out is one N tile (the cluster's second CTA has none of its own).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v64_pingpong_192x64x64_c1x2_e64x64_biaswhengiven() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_192, cute::_64, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_2, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cute::Shape<cute::_64, cute::_64>,
                                    sm90::EpilogueMath::bias_when_given>;
  return sm90::persistent_variant<Conv>("dense_v64_pingpong_192x64x64_c1x2_e64x64_biaswhengiven",
                                        "v63 in 1x2 clusters: the im2col tile multicast to both N tiles",
                                        "src/dense/dense_v64_pingpong_192x64x64_c1x2_e64x64_biaswhengiven.cu");
}

}  // namespace kforge::dense
