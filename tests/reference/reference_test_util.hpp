// Shared by the reference and metrics tests: host encoding of values into kforge dtypes, strided host buffers
// of logical values, and an owning device buffer.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstring>
#include <functional>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "kforge/types.hpp"

namespace kforge::testing {

// Writes v as element i of a `dtype` buffer, rounded to nearest even as the device conversions do
// (CUDA's conversion headers run on the host too).
inline void store_as(DType dtype, float v, void* base, int64_t i) {
  auto* bytes = static_cast<unsigned char*>(base);
  switch (dtype) {
    case DType::f32: std::memcpy(bytes + 4 * i, &v, 4); return;
    case DType::bf16: {
      const __nv_bfloat16 b = __float2bfloat16_rn(v);
      std::memcpy(bytes + 2 * i, &b, 2);
      return;
    }
    case DType::f16: {
      const __half h = __float2half_rn(v);
      std::memcpy(bytes + 2 * i, &h, 2);
      return;
    }
    case DType::fp8_e4m3: bytes[i] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3); return;
  }
}

// Elements a view with these sizes and strides spans (1 + the offset of its last element).
inline int64_t span_of(const std::array<int64_t, 5>& sizes, const std::array<int64_t, 5>& strides) {
  int64_t last = 0;
  for (int d = 0; d < 5; ++d) {
    if (sizes[d] == 0) return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return last + 1;
}

// Calls fn(index, logical_linear_index) for every index of a rank-5 shape, in row-major logical order.
inline void for_each_index(const std::array<int64_t, 5>& sizes,
                           const std::function<void(const std::array<int64_t, 5>&, int64_t)>& fn) {
  std::array<int64_t, 5> i{};
  int64_t linear = 0;
  for (i[0] = 0; i[0] < sizes[0]; ++i[0])
    for (i[1] = 0; i[1] < sizes[1]; ++i[1])
      for (i[2] = 0; i[2] < sizes[2]; ++i[2])
        for (i[3] = 0; i[3] < sizes[3]; ++i[3])
          for (i[4] = 0; i[4] < sizes[4]; ++i[4]) fn(i, linear++);
}

inline int64_t offset_of(const std::array<int64_t, 5>& index, const std::array<int64_t, 5>& strides) {
  int64_t off = 0;
  for (int d = 0; d < 5; ++d) off += index[d] * strides[d];
  return off;
}

// A `dtype` buffer laid out by `strides` whose element at logical linear index j holds value(j).
inline std::vector<unsigned char> strided_buffer(DType dtype, const std::array<int64_t, 5>& sizes,
                                                 const std::array<int64_t, 5>& strides,
                                                 const std::function<float(int64_t)>& value) {
  std::vector<unsigned char> buf(span_of(sizes, strides) * dtype_size(dtype));
  for_each_index(sizes, [&](const std::array<int64_t, 5>& i, int64_t j) {
    store_as(dtype, value(j), buf.data(), offset_of(i, strides));
  });
  return buf;
}

}  // namespace kforge::testing
