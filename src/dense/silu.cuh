// silu(v) = v / (1 + e^-v) in float: the one definition the dense kernels apply (the direct fallback and the sm90
// epilogues' SiluWhenEnabled, sm90_conv_common.cuh); the fp64 reference has its own in reference/direct_conv.hpp.
// On the device it takes the fast intrinsics, two SFU operations (the exponential's ex2.approx and the quotient's
// rcp.approx, each within a few float ulps), where CUTLASS's SiLu divides in IEEE precision, which made c512_k111
// 2.6x slower (NOTES.md). For v below about -88, e^-v is inf and the quotient 0 (the true value is under 1e-36).
#pragma once

#include <cmath>

#include "kforge/types.hpp"

namespace kforge::dense {

KF_HOST_DEVICE inline float fast_silu(float v) {
#if defined(__CUDA_ARCH__)
  return __fdividef(v, 1.f + __expf(-v));
#else
  return v / (1.f + std::exp(-v));
#endif
}

}  // namespace kforge::dense
