// dense_v26_halo_256x96x32: the halo-row kernel (halo_conv.cuh) with a 96-wide N tile, for K_out <= 96 (wan21_up3,
// C = K = 96). v21's profile there: the memory system at 95% with DRAM at 25%, i.e. the im2col mainloop's L2 -> SM
// bytes (every input pixel read once per filter tap); here each input row is staged once for its S taps.
#include "dense/halo_variant.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v26_halo_256x96x32() {
  return halo::halo_variant<96, 1>("dense_v26_halo_256x96x32",
                                "one input row's halo staged once for all S taps along W (im2col stages it S times)",
                                "src/dense/dense_v26_halo_256x96x32.cu");
}

}  // namespace kforge::dense
