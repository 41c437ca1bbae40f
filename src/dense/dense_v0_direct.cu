// dense_v0_direct: one thread per output element, any groups, strides, padding, dilation and element strides.
// The correctness fallback of the dense family (issue 4 brings the implicit-GEMM kernels); fp32 accumulation.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "core/cuda_check.hpp"
#include "dense/silu.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {
namespace {

template <typename T> __device__ float to_f32(T v) { return static_cast<float>(v); }
template <> __device__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
template <> __device__ float to_f32(__half v) { return __half2float(v); }
template <typename T> __device__ T from_f32(float v) { return static_cast<T>(v); }
template <> __device__ __nv_bfloat16 from_f32(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __half from_f32(float v) { return __float2half_rn(v); }

template <typename T>
__global__ void direct_kernel(ConvProblem p, const T* __restrict__ x, const T* __restrict__ w,
                              const T* __restrict__ bias, T* __restrict__ y) {
  const int64_t total = p.y_numel();
  const int64_t cpg = p.C / p.groups, kpg = p.K / p.groups;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    // Logical (n, k, od, oh, ow) with ow fastest; memory offsets come from the strides.
    int64_t r = i;
    const int64_t ow = r % p.Wo; r /= p.Wo;
    const int64_t oh = r % p.Ho; r /= p.Ho;
    const int64_t od = r % p.Do; r /= p.Do;
    const int64_t k = r % p.K;
    const int64_t n = r / p.K;
    const int64_t c0 = (k / kpg) * cpg;
    float acc = bias ? to_f32(bias[k]) : 0.f;
    for (int64_t c = 0; c < cpg; ++c) {
      for (int64_t t = 0; t < p.T; ++t) {
        const int64_t id = od * p.stride[0] - p.pad_lo[0] + t * p.dilation[0];
        if (id < 0 || id >= p.D) continue;
        for (int64_t rr = 0; rr < p.R; ++rr) {
          const int64_t ih = oh * p.stride[1] - p.pad_lo[1] + rr * p.dilation[1];
          if (ih < 0 || ih >= p.H) continue;
          for (int64_t s = 0; s < p.S; ++s) {
            const int64_t iw = ow * p.stride[2] - p.pad_lo[2] + s * p.dilation[2];
            if (iw < 0 || iw >= p.W) continue;
            const T xv = x[n * p.x_strides[0] + (c0 + c) * p.x_strides[1] + id * p.x_strides[2] +
                           ih * p.x_strides[3] + iw * p.x_strides[4]];
            const T wv = w[k * p.w_strides[0] + c * p.w_strides[1] + t * p.w_strides[2] + rr * p.w_strides[3] +
                           s * p.w_strides[4]];
            acc = fmaf(to_f32(xv), to_f32(wv), acc);
          }
        }
      }
    }
    if (p.activation == Activation::silu) acc = fast_silu(acc);
    y[n * p.y_strides[0] + k * p.y_strides[1] + od * p.y_strides[2] + oh * p.y_strides[3] + ow * p.y_strides[4]] =
        from_f32<T>(acc);
  }
}

template <typename T>
void launch_typed(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((p.y_numel() + threads - 1) / threads, int64_t(1) << 20);
  direct_kernel<T><<<static_cast<unsigned>(blocks), threads, 0, s>>>(
      p, static_cast<const T*>(a.x), static_cast<const T*>(a.w), static_cast<const T*>(a.bias), static_cast<T*>(a.y));
  KF_LAUNCH_CHECK();
}

}  // namespace

std::string v0_direct_accepts(const ConvProblem& p) {
  if (p.dtype == DType::fp8_e4m3) return "fp8 is not implemented by the direct kernel";
  return "";
}

void v0_direct_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  if (p.y_numel() == 0) return;
  switch (p.dtype) {
    case DType::f32: return launch_typed<float>(p, a, s);
    case DType::bf16: return launch_typed<__nv_bfloat16>(p, a, s);
    case DType::f16: return launch_typed<__half>(p, a, s);
    case DType::fp8_e4m3: break;
  }
  throw Error("dense_v0_direct: unsupported dtype " + std::string(dtype_name(p.dtype)));
}

}  // namespace kforge::dense
