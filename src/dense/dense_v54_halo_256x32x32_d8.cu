// dense_v54_halo_256x32x32_d8: v53 with a 32-wide N tile, for 16 < K_out <= 32 (an encoder's head: twice the
// latent channels, e.g. 32 for a 16-channel latent).
#include "dense/halo_variant.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v54_halo_256x32x32_d8() {
  return halo::halo_variant<32, 1, 8>("dense_v54_halo_256x32x32_d8",
                                      "v53 with a 32-wide N tile, for 16 < K_out <= 32 (an encoder's head)",
                                      "src/dense/dense_v54_halo_256x32x32_d8.cu");
}

}  // namespace kforge::dense
