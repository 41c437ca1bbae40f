// dense_v28_halo_256x96x32_c2x1: v26 in 2-CTA clusters over neighbouring output rows, the filter slices (B, half of
// a v26 stage's L2 -> SM bytes) multicast into both: v21's step over v18, on the halo mainloop.
#include "dense/halo_variant.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v28_halo_256x96x32_c2x1() {
  return halo::halo_variant<96, 2>("dense_v28_halo_256x96x32_c2x1",
                                   "v26 with B multicast to a 2-CTA cluster of neighbouring output rows",
                                   "src/dense/dense_v28_halo_256x96x32_c2x1.cu");
}

}  // namespace kforge::dense
