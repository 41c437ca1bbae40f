// Float64 GPU reference of the convolution: one thread per output element (grid-stride), the same math as the
// CPU reference (reference/direct_conv.hpp). Limits: a correctness oracle, not a fast kernel; no tiling or reuse.
#include <algorithm>
#include <string>

#include "core/cuda_check.hpp"
#include "reference/device_decode.cuh"
#include "reference/direct_conv.hpp"
#include "reference/reference.hpp"

namespace kforge {
namespace {

constexpr int kReferenceThreads = 256;
// Grid-stride loops cover any output size; the cap only bounds the launch.
constexpr int64_t kMaxReferenceBlocks = 1 << 16;

template <typename Elem>
__global__ void reference_conv_kernel(const ConvProblem p, const Elem* __restrict__ x, const Elem* __restrict__ w,
                                      const Elem* __restrict__ bias, double* __restrict__ y_ref, int64_t total) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    // Logical (n, k, od, oh, ow) order, ow fastest: neighbouring threads share most of their input reads.
    int64_t rest = i;
    const int64_t ow = rest % p.Wo;
    rest /= p.Wo;
    const int64_t oh = rest % p.Ho;
    rest /= p.Ho;
    const int64_t od = rest % p.Do;
    rest /= p.Do;
    const int64_t k = rest % p.K;
    const int64_t n = rest / p.K;
    y_ref[reference_detail::y_offset(p, n, k, od, oh, ow)] =
        reference_detail::direct_conv_element(p, x, w, bias, n, k, od, oh, ow, reference_detail::DeviceDecode{});
  }
}

// Element i of a sampled check: output channel i % K at the output position positions[i / K] (linear over
// N, Do, Ho, Wo).
struct SampledOutput {
  int64_t n, k, od, oh, ow;
};
__device__ SampledOutput sampled_output(const ConvProblem& p, const int64_t* positions, int64_t i) {
  int64_t rest = positions[i / p.K];
  SampledOutput o;
  o.k = i % p.K;
  o.ow = rest % p.Wo;
  rest /= p.Wo;
  o.oh = rest % p.Ho;
  rest /= p.Ho;
  o.od = rest % p.Do;
  o.n = rest / p.Do;
  return o;
}

// Sample i is the output position positions[i] (linear over N, Do, Ho, Wo) at every output channel k:
// y_ref[i * K + k]. The same order as gather_outputs_kernel, so the two compare element by element.
template <typename Elem>
__global__ void reference_sampled_kernel(const ConvProblem p, const Elem* __restrict__ x, const Elem* __restrict__ w,
                                         const Elem* __restrict__ bias, const int64_t* __restrict__ positions,
                                         int64_t total, double* __restrict__ y_ref) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const SampledOutput o = sampled_output(p, positions, i);
    y_ref[i] = reference_detail::direct_conv_element(p, x, w, bias, o.n, o.k, o.od, o.oh, o.ow,
                                                     reference_detail::DeviceDecode{});
  }
}

template <typename Elem>
__global__ void gather_outputs_kernel(const ConvProblem p, const Elem* __restrict__ y,
                                      const int64_t* __restrict__ positions, int64_t total, Elem* __restrict__ out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const SampledOutput o = sampled_output(p, positions, i);
    out[i] = y[reference_detail::y_offset(p, o.n, o.k, o.od, o.oh, o.ow)];
  }
}

unsigned reference_blocks(int64_t total) {
  return static_cast<unsigned>(
      std::clamp<int64_t>((total + kReferenceThreads - 1) / kReferenceThreads, 1, kMaxReferenceBlocks));
}

// Calls f(Elem{}) with the storage type of `dtype`.
template <typename F>
void with_elem(DType dtype, const char* who, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::bf16: return f(__nv_bfloat16{});
    case DType::f16: return f(__half{});
    case DType::fp8_e4m3: return f(__nv_fp8_e4m3{});
  }
  throw Error(std::string(who) + ": unknown dtype " + std::to_string(static_cast<int>(dtype)));
}

}  // namespace

void reference_conv_gpu_sampled(const ConvProblem& p, const void* x, const void* w, const void* bias,
                                const int64_t* positions, int64_t count, double* y_ref, cudaStream_t stream) {
  reference_detail::check_reference_args(p, x, w, bias, y_ref, "reference_conv_gpu_sampled");
  const int64_t total = count * p.K;
  if (total == 0) return;
  with_elem(p.dtype, "reference_conv_gpu_sampled", [&](auto e) {
    using Elem = decltype(e);
    reference_sampled_kernel<Elem><<<reference_blocks(total), kReferenceThreads, 0, stream>>>(
        p, static_cast<const Elem*>(x), static_cast<const Elem*>(w),
        p.has_bias ? static_cast<const Elem*>(bias) : nullptr, positions, total, y_ref);
    KF_LAUNCH_CHECK();
  });
}

void gather_outputs(const ConvProblem& p, const void* y, const int64_t* positions, int64_t count, void* out,
                    cudaStream_t stream) {
  const int64_t total = count * p.K;
  if (total == 0) return;
  with_elem(p.dtype, "gather_outputs", [&](auto e) {
    using Elem = decltype(e);
    gather_outputs_kernel<Elem><<<reference_blocks(total), kReferenceThreads, 0, stream>>>(
        p, static_cast<const Elem*>(y), positions, total, static_cast<Elem*>(out));
    KF_LAUNCH_CHECK();
  });
}

void reference_conv_gpu(const ConvProblem& p, const void* x, const void* w, const void* bias, double* y_ref,
                        cudaStream_t stream) {
  reference_detail::check_reference_args(p, x, w, bias, y_ref, "reference_conv_gpu");
  const int64_t total = p.y_numel();
  if (total == 0) return;
  with_elem(p.dtype, "reference_conv_gpu", [&](auto e) {
    using Elem = decltype(e);
    reference_conv_kernel<Elem><<<reference_blocks(total), kReferenceThreads, 0, stream>>>(
        p, static_cast<const Elem*>(x), static_cast<const Elem*>(w),
        p.has_bias ? static_cast<const Elem*>(bias) : nullptr, y_ref, total);
    KF_LAUNCH_CHECK();
  });
}

}  // namespace kforge
