// Shared by GPU tests: skip with a visible reason when no CUDA device is present.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace kforge::testing {

// "" when a device is usable, else why not.
inline std::string gpu_unavailable_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no CUDA device (") + cudaGetErrorString(e) + ")";
  if (n == 0) return "no CUDA device";
  return "";
}

}  // namespace kforge::testing

#define KF_REQUIRE_GPU()                                                            \
  do {                                                                              \
    const std::string kf_why_ = ::kforge::testing::gpu_unavailable_reason();        \
    if (!kf_why_.empty()) GTEST_SKIP() << "GPU test skipped: " << kf_why_;          \
  } while (0)
