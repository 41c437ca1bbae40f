// dense_v1_cutlass_128x128x64: CUTLASS 4.2's sm90 ConvUniversal as shipped (128x128x64 tile, 2x1 cluster,
// non-persistent, one consumer warpgroup): the anchor our own kernels must beat. Limits: see sm90_conv_common.cuh.
#include "dense/sm90_conv_as_shipped.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v1_cutlass_as_shipped() {
  using Conv = sm90::AsShippedConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                   cute::Shape<cute::_2, cute::_1, cute::_1>>;
  return sm90::make_variant<Conv>(
      "dense_v1_cutlass_128x128x64", "CUTLASS 4.2 ConvUniversal as shipped: TMA im2col + wgmma, non-persistent",
      "src/dense/dense_v1_cutlass_128x128x64.cu", OutputOrder::ndhwc,
      [](const ConvProblem& in, const void* x, const void* w, const void* b, void* y,
         const cutlass::KernelHardwareInfo& hw) { return sm90::as_shipped_arguments<Conv>(in, x, w, b, y, hw);
      });
}

}  // namespace kforge::dense
