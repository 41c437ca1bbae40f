// Float64 GPU reference of the convolution: one thread per output element (grid-stride), the same math as the
// CPU reference (reference/direct_conv.hpp). Limits: a correctness oracle, not a fast kernel; no tiling or reuse.
#include <algorithm>

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

template <typename Elem>
void launch_reference(const ConvProblem& p, const void* x, const void* w, const void* bias, double* y_ref,
                      cudaStream_t stream) {
  const int64_t total = p.y_numel();
  const auto blocks =
      static_cast<unsigned>(std::min<int64_t>((total + kReferenceThreads - 1) / kReferenceThreads, kMaxReferenceBlocks));
  reference_conv_kernel<Elem><<<blocks, kReferenceThreads, 0, stream>>>(
      p, static_cast<const Elem*>(x), static_cast<const Elem*>(w),
      p.has_bias ? static_cast<const Elem*>(bias) : nullptr, y_ref, total);
  KF_LAUNCH_CHECK();
}

}  // namespace

void reference_conv_gpu(const ConvProblem& p, const void* x, const void* w, const void* bias, double* y_ref,
                        cudaStream_t stream) {
  reference_detail::check_reference_args(p, x, w, bias, y_ref, "reference_conv_gpu");
  if (p.y_numel() == 0) return;
  switch (p.dtype) {
    case DType::f32: return launch_reference<float>(p, x, w, bias, y_ref, stream);
    case DType::bf16: return launch_reference<__nv_bfloat16>(p, x, w, bias, y_ref, stream);
    case DType::f16: return launch_reference<__half>(p, x, w, bias, y_ref, stream);
    case DType::fp8_e4m3: return launch_reference<__nv_fp8_e4m3>(p, x, w, bias, y_ref, stream);
  }
  throw Error("reference_conv_gpu: unknown dtype " + std::to_string(static_cast<int>(p.dtype)));
}

}  // namespace kforge
