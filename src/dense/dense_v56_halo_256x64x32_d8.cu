// dense_v56_halo_256x64x32_d8: v53 with a 64-wide N tile, for 32 < K_out <= 64 (LTX-Video's head: 3 colors x a
// 4x4 patch = 48), where a 96-wide tile is half zero filters. (m64n48 wgmma is among CUTLASS's extended shapes,
// which cute leaves out by default.)
#include "dense/halo_variant.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v56_halo_256x64x32_d8() {
  return halo::halo_variant<64, 1, 8>("dense_v56_halo_256x64x32_d8",
                                      "v53 with a 64-wide N tile, for 32 < K_out <= 64 (LTX-Video's head)",
                                      "src/dense/dense_v56_halo_256x64x32_d8.cu");
}

}  // namespace kforge::dense
