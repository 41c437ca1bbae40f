// Checked CUDA calls for kforge internals: a failure throws kforge::Error naming the subsystem and file:line.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "kforge/types.hpp"

namespace kforge::detail {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line);

}  // namespace kforge::detail

#define KF_CUDA_CHECK(expr)                                                                 \
  do {                                                                                      \
    cudaError_t kf_err_ = (expr);                                                           \
    if (kf_err_ != cudaSuccess) ::kforge::detail::throw_cuda_error(kf_err_, #expr, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: catches bad launch configurations at once (asynchronous faults surface later).
#define KF_LAUNCH_CHECK() KF_CUDA_CHECK(cudaGetLastError())

// Internal invariant (not user input): names file:line.
#define KF_CHECK(cond, msg)                                                                         \
  do {                                                                                              \
    if (!(cond))                                                                                    \
      throw ::kforge::Error(std::string("kforge internal check failed at ") + __FILE__ + ":" +     \
                            std::to_string(__LINE__) + ": " + (msg));                              \
  } while (0)
