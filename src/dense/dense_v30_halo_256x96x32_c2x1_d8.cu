// dense_v30_halo_256x96x32_c2x1_d8: v28 with the tiles walked output plane first, in blocks of 8 planes
// (decode_tile): an input plane larger than L2 crosses DRAM -> L2 once instead of up to T times.
#include "dense/halo_variant.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v30_halo_256x96x32_c2x1_d8() {
  return halo::halo_variant<96, 2, 8>("dense_v30_halo_256x96x32_c2x1_d8",
                                      "v28 walking 8 output planes per tile column (input planes read once)",
                                      "src/dense/dense_v30_halo_256x96x32_c2x1_d8.cu");
}

}  // namespace kforge::dense
