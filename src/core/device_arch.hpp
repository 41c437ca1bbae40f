// What the current GPU is: whether variants built only for Hopper (sm_90a: wgmma, TMA) run here, its SM count.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/cuda_check.hpp"
#include "kforge/conv.hpp"

namespace kforge {

// "" on Hopper (or when no GPU can be asked: CPU-only tests of accepts()), else why a kernel built for sm_90a only
// cannot run here. Asked once per process.
inline std::string sm90a_refusal() {
  static const std::string why = [] {
    int device = 0, major = 0, minor = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
      cudaGetLastError();  // no device: leave no sticky error behind
      return std::string();
    }
    if (major == 9 && minor == 0) return std::string();
    return "built for sm_90a (Hopper) only, but this GPU is sm_" + std::to_string(major) + std::to_string(minor);
  }();
  return why;
}

// What every wgmma kernel of the dense family needs before its own limits: bf16 operands and an sm_90a device.
inline std::string bf16_sm90a_refusal(const ConvProblem& p) {
  if (p.dtype != DType::bf16) return "bf16 only (got " + std::string(dtype_name(p.dtype)) + ")";
  return sm90a_refusal();
}

// SMs of the current GPU (a CUDA error when none can be asked).
inline int current_sm_count() {
  int device = 0, sms = 0;
  KF_CUDA_CHECK(cudaGetDevice(&device));
  KF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

}  // namespace kforge
