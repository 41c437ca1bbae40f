// dense_v29_halo_256x128x32_c2x1: v27 in 2-CTA clusters over neighbouring output rows, B multicast (as v28).
#include "dense/halo_variant.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v29_halo_256x128x32_c2x1() {
  return halo::halo_variant<128, 2>("dense_v29_halo_256x128x32_c2x1",
                                    "v27 with B multicast to a 2-CTA cluster of neighbouring output rows",
                                    "src/dense/dense_v29_halo_256x128x32_c2x1.cu");
}

}  // namespace kforge::dense
