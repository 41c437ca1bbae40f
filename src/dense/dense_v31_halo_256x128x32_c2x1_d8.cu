// dense_v31_halo_256x128x32_c2x1_d8: v29 walking 8 output planes per tile column (as v30).
#include "dense/halo_variant.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v31_halo_256x128x32_c2x1_d8() {
  return halo::halo_variant<128, 2, 8>("dense_v31_halo_256x128x32_c2x1_d8",
                                       "v29 walking 8 output planes per tile column (input planes read once)",
                                       "src/dense/dense_v31_halo_256x128x32_c2x1_d8.cu");
}

}  // namespace kforge::dense
