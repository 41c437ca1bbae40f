// One cuBLAS bf16 GEMM (n x n x n, fp32 accumulation, random inputs): the bf16 ceiling of `kforge ceilings` and
// the compute-bound reference of `kforge profile --probe gemm`. Limits: square, column-major, no transposes.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/device_buffer.hpp"

namespace kforge {

class GemmBf16 {
 public:
  // Allocates A, B and C and fills A and B on `stream` (uniform in [-1, 1)).
  GemmBf16(int64_t n, cudaStream_t stream);
  ~GemmBf16();
  GemmBf16(const GemmBf16&) = delete;
  GemmBf16& operator=(const GemmBf16&) = delete;

  // C = A * B on `stream`.
  void run(cudaStream_t stream);
  double flops() const { return 2.0 * static_cast<double>(n_) * static_cast<double>(n_) * static_cast<double>(n_); }

 private:
  int64_t n_;
  DeviceBuffer a_, b_, c_;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace kforge
