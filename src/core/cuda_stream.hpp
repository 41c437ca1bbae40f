// An owned non-blocking CUDA stream, destroyed on every path (a checked call that throws leaks nothing).
#pragma once

#include <cuda_runtime_api.h>

#include "core/cuda_check.hpp"

namespace kforge {

class CudaStream {
 public:
  CudaStream() { KF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() { static_cast<void>(cudaStreamDestroy(stream_)); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace kforge
