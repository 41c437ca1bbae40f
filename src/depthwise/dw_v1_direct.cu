// dw_v1_direct: one thread per output element, direct loops over the taps: the depthwise correctness fallback.
// Fully general: any element strides for x, w and y (NCDHW, NDHWC, strided views), stride, dilation, asymmetric
// padding, depth multiplier, bias. Also defines common_refusal, the first check of every depthwise variant.
#include <algorithm>
#include <array>

#include "depthwise/dw_common.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {
namespace {

constexpr int kThreads = 256;

// Element strides of the output's logical index (n, k, od, oh, ow) when the outputs are numbered in y's memory
// order: consecutive threads then write consecutive addresses whatever the layout (ow-fastest for NCDHW,
// k-fastest for NDHWC), and their input reads follow.
struct OutputOrder {
  int64_t inner[5];  // output i has logical coordinate (i / inner[d]) % size[d] in dimension d
};

OutputOrder output_order(const ConvProblem& p) {
  const std::array<int64_t, 5> size{p.N, p.K, p.Do, p.Ho, p.Wo};
  std::array<int, 5> dims{0, 1, 2, 3, 4};
  // Fastest-varying dimension last; ties (unit or aliased dimensions) keep the logical order.
  std::stable_sort(dims.begin(), dims.end(), [&](int a, int b) { return p.y_strides[a] > p.y_strides[b]; });
  OutputOrder order{};
  int64_t inner = 1;
  for (int i = 4; i >= 0; --i) {
    order.inner[dims[i]] = inner;
    inner *= size[dims[i]];
  }
  return order;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
direct_kernel(const Geometry g, const OutputOrder order, const T* __restrict__ x, const T* __restrict__ w,
              const T* __restrict__ bias, T* __restrict__ y) {
  const int64_t total = g.N * g.K * g.Do * g.Ho * g.Wo;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t n = i / order.inner[0] % g.N;
    const int64_t k = i / order.inner[1] % g.K;
    const int64_t od = i / order.inner[2] % g.Do;
    const int64_t oh = i / order.inner[3] % g.Ho;
    const int64_t ow = i / order.inner[4] % g.Wo;
    const T* x_plane = x + n * g.xs[0] + (k / g.multiplier) * g.xs[1];
    float acc = bias ? to_float(bias[k]) : 0.f;
    for (int64_t t = 0; t < g.T; ++t) {
      const int64_t id = od * g.stride[0] - g.pad_lo[0] + t * g.dilation[0];
      if (id < 0 || id >= g.D) continue;  // padding contributes zero
      for (int64_t r = 0; r < g.R; ++r) {
        const int64_t ih = oh * g.stride[1] - g.pad_lo[1] + r * g.dilation[1];
        if (ih < 0 || ih >= g.H) continue;
        for (int64_t s = 0; s < g.S; ++s) {
          const int64_t iw = ow * g.stride[2] - g.pad_lo[2] + s * g.dilation[2];
          if (iw < 0 || iw >= g.W) continue;
          const float xv = to_float(x_plane[id * g.xs[2] + ih * g.xs[3] + iw * g.xs[4]]);
          acc = fmaf(xv, weight_at(g, w, k, t, r, s), acc);
        }
      }
    }
    y[n * g.ys[0] + k * g.ys[1] + od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4]] = from_float<T>(acc);
  }
}

}  // namespace

std::string common_refusal(const ConvProblem& p) {
  if (p.groups != p.C || p.K % p.C != 0) {
    return "expected groups == C and K % C == 0 (a depthwise convolution), but got groups=" +
           std::to_string(p.groups) + ", C=" + std::to_string(p.C) + ", K=" + std::to_string(p.K);
  }
  if (p.dtype == DType::fp8_e4m3) return "fp8 depthwise is not implemented";
  return "";
}

std::string v1_direct_accepts(const ConvProblem& p) { return common_refusal(p); }

void v1_direct_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  if (p.y_numel() == 0) return;
  dispatch_element_type(p.dtype, "dw_v1_direct", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // A grid-stride loop over at most 16 CTAs per SM: enough to cover latency, never a grid-size overflow.
    const int64_t blocks = std::min<int64_t>(ceil_div(p.y_numel(), kThreads), int64_t(current_sm_count()) * 16);
    direct_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(
        make_geometry(p), output_order(p), static_cast<const T*>(a.x), static_cast<const T*>(a.w),
        p.has_bias ? static_cast<const T*>(a.bias) : nullptr, static_cast<T*>(a.y));
    KF_LAUNCH_CHECK();
  });
}

}  // namespace kforge::depthwise
