// Device-side fills: fresh random inputs for every check, NaN poison for every output.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kforge/types.hpp"

namespace kforge {

// n elements of `dtype` at device pointer `data`, uniform in [lo, hi), a counter-based hash of (seed, index):
// the same seed gives the same values on any GPU and any launch shape.
void fill_uniform(void* data, DType dtype, int64_t n, uint64_t seed, float lo, float hi, cudaStream_t stream);

// Writes a quiet NaN into every element (fp8 e4m3: its NaN encoding 0x7f).
void fill_nan(void* data, DType dtype, int64_t n, cudaStream_t stream);

// Host mirror of fill_uniform's values, for CPU references and tests (same formula, bit-identical).
float uniform_value(uint64_t seed, int64_t index, float lo, float hi);

}  // namespace kforge
