// Exact element -> double conversion on the device for every kforge storage type (CUDA headers' conversions).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace kforge::reference_detail {

// Each narrower format converts to float exactly, and float to double exactly.
struct DeviceDecode {
  __device__ double operator()(double v) const { return v; }
  __device__ double operator()(float v) const { return v; }
  __device__ double operator()(__nv_bfloat16 v) const { return __bfloat162float(v); }
  __device__ double operator()(__half v) const { return __half2float(v); }
  __device__ double operator()(__nv_fp8_e4m3 v) const { return static_cast<float>(v); }
};

}  // namespace kforge::reference_detail
