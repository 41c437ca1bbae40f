#include "cli_util.hpp"

#include <cuda_runtime_api.h>

#include <ctime>
#include <iostream>

namespace kforge::cli {

int require_gpu() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess && n > 0) return 0;
  std::cerr << "kforge: no CUDA GPU found (" << (e == cudaSuccess ? "0 devices" : cudaGetErrorName(e))
            << "): this command needs an NVIDIA GPU (sm_80+, tuned for H100/H200)\n";
  return 2;
}

std::string utc_stamp() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace kforge::cli
