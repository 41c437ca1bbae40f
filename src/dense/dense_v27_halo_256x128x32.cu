// dense_v27_halo_256x128x32: v26 with a 128-wide N tile, for K_out <= 128 (hunyuan_up3, c128_k333) and as one
// candidate of 128 channels per tile elsewhere.
#include "dense/halo_variant.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v27_halo_256x128x32() {
  return halo::halo_variant<128, 1>("dense_v27_halo_256x128x32",
                                 "v26 with a 128-wide N tile (K_out <= 128)",
                                 "src/dense/dense_v27_halo_256x128x32.cu");
}

}  // namespace kforge::dense
