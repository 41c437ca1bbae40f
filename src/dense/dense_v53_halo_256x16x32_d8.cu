// dense_v53_halo_256x16x32_d8: v30's halo-row mainloop with a 16-wide N tile, for few output channels (a decoder's
// RGB head, K = 3, padded to 8 by the channels-last plan). A 96-wide tile there multiplies 88 zero filters per 8
// real ones; here the MMAs shrink 6x and the kernel is bound by the input rows it stages (each once for its S taps).
// No cluster: B is 1 KiB a stage, nothing worth multicasting.
#include "dense/halo_variant.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v53_halo_256x16x32_d8() {
  return halo::halo_variant<16, 1, 8>("dense_v53_halo_256x16x32_d8",
                                      "v30's halo rows with a 16-wide N tile, for K_out <= 16 (an RGB head)",
                                      "src/dense/dense_v53_halo_256x16x32_d8.cu");
}

}  // namespace kforge::dense
