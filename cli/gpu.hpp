// Whether a CUDA GPU is usable: the one check every GPU command makes first (CI and development machines have none).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace kforge::cli {

// "" when a CUDA GPU is usable, else "no CUDA GPU found (<why>)".
inline std::string gpu_unavailable() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess && n > 0) return "";
  return std::string("no CUDA GPU found (") + (e == cudaSuccess ? "0 devices" : cudaGetErrorName(e)) + ")";
}

}  // namespace kforge::cli
