// Element types, tensor views and CUDA error reporting.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "core/cuda_check.hpp"
#include "kforge/types.hpp"

namespace kforge {

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::bf16: return 2;
    case DType::f16: return 2;
    case DType::fp8_e4m3: return 1;
  }
  throw Error("unknown dtype " + std::to_string(static_cast<int>(t)));
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::fp8_e4m3: return "fp8_e4m3";
  }
  return "unknown";
}

DType parse_dtype(const std::string& s) {
  std::string l = s;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  if (l == "f32" || l == "float32" || l == "float") return DType::f32;
  if (l == "bf16" || l == "bfloat16") return DType::bf16;
  if (l == "f16" || l == "float16" || l == "half") return DType::f16;
  if (l == "fp8" || l == "e4m3" || l == "fp8_e4m3" || l == "float8_e4m3fn") return DType::fp8_e4m3;
  throw Error("unknown dtype '" + s + "': expected one of f32, bf16, f16, fp8_e4m3");
}

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= sizes[i];
  return n;
}

static TensorView make_view(void* data, DType dtype, std::initializer_list<int64_t> sizes, bool channels_last) {
  if (sizes.size() < 1 || sizes.size() > 5) throw Error("TensorView: expected rank 1..5, but got " + std::to_string(sizes.size()));
  TensorView v;
  v.data = data;
  v.dtype = dtype;
  v.rank = static_cast<int>(sizes.size());
  std::copy(sizes.begin(), sizes.end(), v.sizes.begin());
  // Memory order: channels-last puts dim 1 innermost and keeps the others in order.
  std::array<int, 5> order{};
  int k = 0;
  if (channels_last && v.rank > 2) {
    order[k++] = 0;
    for (int i = 2; i < v.rank; ++i) order[k++] = i;
    order[k++] = 1;
  } else {
    for (int i = 0; i < v.rank; ++i) order[k++] = i;
  }
  int64_t stride = 1;
  for (int i = v.rank - 1; i >= 0; --i) {
    v.strides[order[i]] = stride;
    stride *= v.sizes[order[i]];
  }
  return v;
}

TensorView TensorView::contiguous(void* data, DType dtype, std::initializer_list<int64_t> sizes) {
  return make_view(data, dtype, sizes, false);
}

TensorView TensorView::channels_last(void* data, DType dtype, std::initializer_list<int64_t> sizes) {
  return make_view(data, dtype, sizes, true);
}

namespace detail {
void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line) {
  throw CudaError(std::string("CUDA error ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ") in " + what +
              " at " + file + ":" + std::to_string(line));
}
}  // namespace detail

}  // namespace kforge
