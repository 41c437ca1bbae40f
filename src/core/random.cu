// Device-side fills: counter-based uniform random values and NaN poison, for every kforge dtype.
// Limits: `data` must be aligned to its element size; n may exceed 2^31 (64-bit grid-stride loops).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/cuda_check.hpp"
#include "core/random.hpp"

namespace kforge {
namespace {

constexpr int kFillThreads = 256;
// Grid-stride loops cover any n; the cap only bounds the launch.
constexpr int64_t kMaxFillBlocks = 8192;

// splitmix64's finalizer: a bijective avalanche mix of 64 bits.
__host__ __device__ inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The one formula behind fill_uniform and uniform_value. The seed is mixed first so that nearby seeds give
// unrelated streams; the index then walks the splitmix64 sequence of that stream. 24 random bits make every
// u exact in float, and the explicit fmaf keeps host and device rounding identical (no compiler contraction
// choice in between).
__host__ __device__ inline float uniform_from_hash(uint64_t seed, int64_t index, float lo, float hi) {
  const uint64_t stream = mix64(seed + 0x9e3779b97f4a7c15ULL);
  const uint64_t h = mix64(stream + static_cast<uint64_t>(index) * 0x9e3779b97f4a7c15ULL);
  const float u = static_cast<float>(h >> 40) * 0x1p-24f;  // [0, 1 - 2^-24]
  const float v = fmaf(hi - lo, u, lo);
  // Rounding can land exactly on hi; keep the interval half-open.
  return v < hi ? v : nextafterf(hi, lo);
}

template <typename T>
__device__ inline T convert_from_float(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else {
    return __nv_fp8_e4m3(v);  // round to nearest even, saturating to +-448
  }
}

template <typename T>
__global__ void fill_uniform_kernel(T* data, int64_t n, uint64_t seed, float lo, float hi) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    data[i] = convert_from_float<T>(uniform_from_hash(seed, i, lo, hi));
  }
}

// NaN is a bit pattern per dtype; writing it as an unsigned word of the element size covers all dtypes.
template <typename Bits>
__global__ void fill_bits_kernel(Bits* data, int64_t n, Bits pattern) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) data[i] = pattern;
}

unsigned fill_blocks(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kFillThreads - 1) / kFillThreads, kMaxFillBlocks));
}

template <typename T>
void launch_fill_uniform(void* data, int64_t n, uint64_t seed, float lo, float hi, cudaStream_t stream) {
  fill_uniform_kernel<T><<<fill_blocks(n), kFillThreads, 0, stream>>>(static_cast<T*>(data), n, seed, lo, hi);
  KF_LAUNCH_CHECK();
}

template <typename Bits>
void launch_fill_bits(void* data, int64_t n, Bits pattern, cudaStream_t stream) {
  fill_bits_kernel<Bits><<<fill_blocks(n), kFillThreads, 0, stream>>>(static_cast<Bits*>(data), n, pattern);
  KF_LAUNCH_CHECK();
}

void check_fill_args(const void* data, int64_t n, const char* what) {
  if (n < 0) throw Error(std::string(what) + ": expected a non-negative element count, but got " + std::to_string(n));
  if (n > 0 && data == nullptr) throw Error(std::string(what) + ": expected a device pointer, but got null");
}

}  // namespace

void fill_uniform(void* data, DType dtype, int64_t n, uint64_t seed, float lo, float hi, cudaStream_t stream) {
  check_fill_args(data, n, "fill_uniform");
  if (!(lo < hi)) {
    throw Error("fill_uniform: expected lo < hi, but got lo=" + std::to_string(lo) + " hi=" + std::to_string(hi));
  }
  if (n == 0) return;
  switch (dtype) {
    case DType::f32: return launch_fill_uniform<float>(data, n, seed, lo, hi, stream);
    case DType::bf16: return launch_fill_uniform<__nv_bfloat16>(data, n, seed, lo, hi, stream);
    case DType::f16: return launch_fill_uniform<__half>(data, n, seed, lo, hi, stream);
    case DType::fp8_e4m3: return launch_fill_uniform<__nv_fp8_e4m3>(data, n, seed, lo, hi, stream);
  }
  throw Error("fill_uniform: unknown dtype " + std::to_string(static_cast<int>(dtype)));
}

void fill_nan(void* data, DType dtype, int64_t n, cudaStream_t stream) {
  check_fill_args(data, n, "fill_nan");
  if (n == 0) return;
  switch (dtype) {
    case DType::f32: return launch_fill_bits<uint32_t>(data, n, 0x7fc00000u, stream);
    case DType::bf16: return launch_fill_bits<uint16_t>(data, n, 0x7fc0u, stream);
    case DType::f16: return launch_fill_bits<uint16_t>(data, n, 0x7e00u, stream);
    case DType::fp8_e4m3: return launch_fill_bits<uint8_t>(data, n, 0x7fu, stream);
  }
  throw Error("fill_nan: unknown dtype " + std::to_string(static_cast<int>(dtype)));
}

float uniform_value(uint64_t seed, int64_t index, float lo, float hi) {
  return uniform_from_hash(seed, index, lo, hi);
}

}  // namespace kforge
