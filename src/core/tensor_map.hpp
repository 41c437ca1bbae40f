// TMA tensor maps (CUtensorMap) for hand-written kernels, encoded through the CUDA runtime's driver entry point,
// so nothing links libcuda directly.
#pragma once

#include <cuda.h>

#include <array>
#include <cstdint>

namespace kforge {

// A tiled map of a 16-bit tensor of `Rank` dimensions, innermost first: dims[i] elements, byte strides of
// dimensions 1.. (multiples of 16), boxes of box[i] elements (box[0] * 2 bytes a multiple of 16). Reads outside the
// tensor fill zeros. `swizzle`: how the box lands in shared memory (the wgmma operand layouts want SWIZZLE_64B or
// 128B; box[0] * 2 bytes must not exceed the swizzle span). Throws kforge::Error with the driver's reason when
// the encoding is refused.
template <int Rank>
CUtensorMap tiled_map_16bit(const void* base, const std::array<uint64_t, Rank>& dims,
                            const std::array<uint64_t, Rank - 1>& byte_strides, const std::array<uint32_t, Rank>& box,
                            CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE);

}  // namespace kforge
