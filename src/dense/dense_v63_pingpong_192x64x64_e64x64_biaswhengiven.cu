// dense_v63_pingpong_192x64x64_e64x64_biaswhengiven: v43's kernel with 192x64 tiles (three m64n64 wgmmas per K
// step, 96 accumulators per thread). Why: small grids quantize badly on 132 SMs. c64_stride2 (M 36864, K_out 128)
// is 288 tiles of 128x128: 24 SMs take a third tile and the other SMs wait for them (v43: SMs active 65-69% of
// the elapsed cycles). The same problem is 384 tiles of 192x64: 120 SMs take three and 12 take two. The busiest
// SM then computes 3 x 192 x 64 outputs instead of 3 x 128 x 128 (0.75x). The cost is 36% more shared-memory
// bytes per MAC, because every wgmma rereads its B block. A 64-wide N tile also covers K_out = 64 without padding.
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v63_pingpong_192x64x64_e64x64_biaswhengiven() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_192, cute::_64, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cute::Shape<cute::_64, cute::_64>,
                                    sm90::EpilogueMath::bias_when_given>;
  return sm90::persistent_variant<Conv>("dense_v63_pingpong_192x64x64_e64x64_biaswhengiven",
                                        "v43 with 192x64 tiles: small grids spread over the SMs more evenly",
                                        "src/dense/dense_v63_pingpong_192x64x64_e64x64_biaswhengiven.cu");
}

}  // namespace kforge::dense
