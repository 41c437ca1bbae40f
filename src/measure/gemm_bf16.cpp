#include "measure/gemm_bf16.hpp"

#include "core/random.hpp"
#include "measure/cublas_check.hpp"

namespace kforge {

GemmBf16::GemmBf16(int64_t n, cudaStream_t stream)
    : n_(n),
      a_(static_cast<size_t>(n * n) * dtype_size(DType::bf16)),
      b_(static_cast<size_t>(n * n) * dtype_size(DType::bf16)),
      c_(static_cast<size_t>(n * n) * dtype_size(DType::bf16)) {
  fill_uniform(a_.get(), DType::bf16, n * n, /*seed=*/1, -1.0f, 1.0f, stream);
  fill_uniform(b_.get(), DType::bf16, n * n, /*seed=*/2, -1.0f, 1.0f, stream);
  KF_CUBLAS_CHECK(cublasCreate(&handle_));
}

GemmBf16::~GemmBf16() { cublasDestroy(handle_); }

void GemmBf16::run(cudaStream_t stream) {
  const float alpha = 1.0f, beta = 0.0f;
  const int m = static_cast<int>(n_);
  KF_CUBLAS_CHECK(cublasSetStream(handle_, stream));
  KF_CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha, a_.get(), CUDA_R_16BF, m, b_.get(),
                               CUDA_R_16BF, m, &beta, c_.get(), CUDA_R_16BF, m, CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT));
}

}  // namespace kforge
