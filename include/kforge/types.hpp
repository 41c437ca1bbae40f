// kforge public types: element types, tensor views with 64-bit sizes/strides, errors.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

// Marks inline functions usable in device code too (kernels may take a ConvProblem by value).
#if defined(__CUDACC__)
#define KF_HOST_DEVICE __host__ __device__
#else
#define KF_HOST_DEVICE
#endif

namespace kforge {

// Element types. Accumulation is always fp32 (fp64 in the references).
enum class DType : int { f32 = 0, bf16 = 1, f16 = 2, fp8_e4m3 = 3 };

std::size_t dtype_size(DType t);
const char* dtype_name(DType t);
// Parses "f32" | "float32" | "bf16" | "bfloat16" | "f16" | "float16" | "fp8" | "e4m3"; throws Error otherwise.
DType parse_dtype(const std::string& s);

// Every error kforge raises at its API boundary. Messages read like PyTorch's ("expected X, but got Y").
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// A valid problem that no kforge variant implements.
class UnsupportedError : public Error {
 public:
  using Error::Error;
};
// A failed CUDA call (the message names the call and file:line).
class CudaError : public Error {
 public:
  using Error::Error;
};

// A strided view of a tensor of rank 1..5. Sizes and strides are in elements and 64-bit, so tensors past
// 2^31 elements are described exactly. NCDHW and NDHWC are both just strides of a rank-5 view.
struct TensorView {
  void* data = nullptr;
  DType dtype = DType::bf16;
  int rank = 0;
  std::array<int64_t, 5> sizes{};
  std::array<int64_t, 5> strides{};

  int64_t numel() const;
  // Dense row-major ("contiguous") view of the given sizes.
  static TensorView contiguous(void* data, DType dtype, std::initializer_list<int64_t> sizes);
  // Dense channels-last view: logical sizes are still (N, C, spatial...), memory order is (N, spatial..., C).
  static TensorView channels_last(void* data, DType dtype, std::initializer_list<int64_t> sizes);
};

}  // namespace kforge
