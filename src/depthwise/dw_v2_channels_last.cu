// dw_v2_channels_last: depthwise conv for dense NDHWC x and y. Consecutive threads take consecutive channels of
// one output position, so every warp reads and writes contiguous memory. Each thread owns kVec = 4 input channels
// (one 8-byte bf16/f16 or 16-byte f32 load) and computes kOutputsPerThread = 8 outputs along W, sliding a register
// window over the input row when the W stride and dilation are 1 and S is 3, 5 or 7 (one new load per tap). Weights are staged once
// per CTA in shared memory as [tap][channel], so a thread reads its 4 weights of a tap with one LDS.128.
// Why 4 channels x 8 outputs rather than 8 x 4: per tap it is 1 LDS.128 + 1 LDG for 32 FMAs (8 x 4 would need
// 2 LDS.128, making the weight reads, not the FMAs, the limit) with the same 64 live floats.
// Limits: x and y dense NDHWC (weights any strides); T*R*S <= kSmemBudgetBytes / 4 taps.
#include <algorithm>

#include "depthwise/dw_common.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {
namespace {

constexpr int kThreads = 256;
constexpr int kOutputsPerThread = 8;  // along W
constexpr int kMaxChannelThreads = 32;

// A thread owns "unit" u: input channels c0..c0+VEC-1 with c0 = (u / m) * VEC and, of each input channel c, the
// output channel c*m + (u % m). With m == 1 that is VEC consecutive output channels (one packed store); with
// m > 1 the m units of one c0 sit in adjacent threads, so a warp still writes contiguous output channels.
// first_output_channel(u) + v*m is the output channel of the thread's lane v.
__device__ __forceinline__ int64_t first_output_channel(int64_t unit, int vec, int64_t m) {
  return unit / m * vec * m + unit % m;
}

template <typename T, int VEC>
__device__ __forceinline__ void load_input(const T* row, int64_t iw, const Geometry& g, float (&out)[VEC]) {
  if (iw >= 0 && iw < g.W) {
    load_packed<T, VEC>(row + iw * g.xs[4], out);
  } else {
#pragma unroll
    for (int v = 0; v < VEC; ++v) out[v] = 0.f;  // padding
  }
}

// acc[j] += sum over s of input(row, iw0 + j*stride + s*dilation) * weight(s), for one input row (n, id, ih).
// KS > 0: S known at compile time; with unit W stride and dilation, output j at tap s+1 reads what output j+1
// read at tap s, so window[(j + s) % kOutputsPerThread] is output j's input and each tap loads one new vector into
// the slot output 0 just released (full unrolling keeps every slot index static). Otherwise each tap loads the
// kOutputsPerThread inputs it needs (L1 hits) -- KS == 0 is the runtime-S instantiation.
template <typename T, int VEC, int KS>
__device__ __forceinline__ void accumulate_row(const Geometry& g, const T* row, int64_t iw0, const float* w_row,
                                               int w_tap_stride, float (&acc)[kOutputsPerThread][VEC]) {
  if (KS > 0 && g.stride[2] == 1 && g.dilation[2] == 1) {
    float window[kOutputsPerThread][VEC];
#pragma unroll
    for (int j = 0; j < kOutputsPerThread; ++j) load_input<T, VEC>(row, iw0 + j, g, window[j]);
#pragma unroll
    for (int s = 0; s < KS; ++s) {
      float wv[VEC];
      load_smem_floats<VEC>(w_row + s * w_tap_stride, wv);
#pragma unroll
      for (int j = 0; j < kOutputsPerThread; ++j) {
#pragma unroll
        for (int v = 0; v < VEC; ++v) acc[j][v] = fmaf(window[(j + s) % kOutputsPerThread][v], wv[v], acc[j][v]);
      }
      if (s + 1 < KS) load_input<T, VEC>(row, iw0 + kOutputsPerThread + s, g, window[s % kOutputsPerThread]);
    }
    return;
  }
  // Not unrolled over s: hoisting every tap's loads would only add register pressure.
#pragma unroll 1
  for (int s = 0; s < g.S; ++s) {
    float wv[VEC];
    load_smem_floats<VEC>(w_row + s * w_tap_stride, wv);
#pragma unroll
    for (int j = 0; j < kOutputsPerThread; ++j) {
      float in[VEC];
      load_input<T, VEC>(row, iw0 + j * g.stride[2] + s * g.dilation[2], g, in);
#pragma unroll
      for (int v = 0; v < VEC; ++v) acc[j][v] = fmaf(in[v], wv[v], acc[j][v]);
    }
  }
}

// grid.x: groups of blockDim.x units; grid.y: a grid-stride loop over output positions (n, od, oh, W-group).
// Dynamic shared memory: the weights of this CTA's units, [tap][blockDim.x][VEC] floats. KS: see accumulate_row.
template <typename T, int VEC, int KS>
__global__ void __launch_bounds__(kThreads, 2)
channels_last_kernel(const Geometry g, const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ bias,
                     T* __restrict__ y, int64_t units, int64_t position_groups) {
  extern __shared__ float4 smem_words[];
  float* w_smem = reinterpret_cast<float*>(smem_words);
  const int taps = static_cast<int>(g.T * g.R * g.S);
  const int channels_per_cta = blockDim.x * VEC;
  const int64_t m = g.multiplier;
  const int64_t first_unit = int64_t(blockIdx.x) * blockDim.x;

  // Global reads walk the taps of one output channel (contiguous for dense weights); padding units read zero.
  for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < taps * channels_per_cta; i += kThreads) {
    const int tap = i % taps, slot = i / taps;
    const int64_t unit = first_unit + slot / VEC;
    float v = 0.f;
    if (unit < units) {
      const int s = tap % g.S, r = tap / g.S % g.R, t = tap / (g.S * g.R);
      v = weight_at(g, w, first_output_channel(unit, VEC, m) + slot % VEC * m, t, r, s);
    }
    w_smem[tap * channels_per_cta + slot] = v;
  }
  __syncthreads();
  const int64_t unit = first_unit + threadIdx.x;
  if (unit >= units) return;  // no barrier below

  const T* x_thread = x + unit / m * VEC * g.xs[1];
  const int64_t k0 = first_output_channel(unit, VEC, m);
  const float* w_thread = w_smem + threadIdx.x * VEC;
  const int64_t w_groups = ceil_div(g.Wo, kOutputsPerThread);

  for (int64_t pos = int64_t(blockIdx.y) * blockDim.y + threadIdx.y; pos < position_groups;
       pos += int64_t(gridDim.y) * blockDim.y) {
    const int64_t ow0 = pos % w_groups * kOutputsPerThread;
    const int64_t oh = pos / w_groups % g.Ho;
    const int64_t od = pos / (w_groups * g.Ho) % g.Do;
    const int64_t n = pos / (w_groups * g.Ho * g.Do);
    const T* x_image = x_thread + n * g.xs[0];
    const int64_t iw0 = ow0 * g.stride[2] - g.pad_lo[2];

    float acc[kOutputsPerThread][VEC] = {};
    for (int t = 0; t < g.T; ++t) {
      const int64_t id = od * g.stride[0] - g.pad_lo[0] + t * g.dilation[0];
      if (id < 0 || id >= g.D) continue;
      for (int r = 0; r < g.R; ++r) {
        const int64_t ih = oh * g.stride[1] - g.pad_lo[1] + r * g.dilation[1];
        if (ih < 0 || ih >= g.H) continue;
        accumulate_row<T, VEC, KS>(g, x_image + id * g.xs[2] + ih * g.xs[3], iw0,
                                   w_thread + (t * g.R + r) * g.S * channels_per_cta, channels_per_cta, acc);
      }
    }

    float bias_v[VEC];
#pragma unroll
    for (int v = 0; v < VEC; ++v) bias_v[v] = bias ? to_float(bias[k0 + v * m]) : 0.f;
    T* out = y + n * g.ys[0] + od * g.ys[2] + oh * g.ys[3] + k0 * g.ys[1];
#pragma unroll
    for (int j = 0; j < kOutputsPerThread; ++j) {
      if (ow0 + j >= g.Wo) break;
      float v_out[VEC];
#pragma unroll
      for (int v = 0; v < VEC; ++v) v_out[v] = acc[j][v] + bias_v[v];
      T* at = out + (ow0 + j) * g.ys[4];
      if (VEC > 1 && m == 1) {
        store_packed<T, VEC>(at, v_out);
      } else {
#pragma unroll
        for (int v = 0; v < VEC; ++v) at[v * m * g.ys[1]] = from_float<T>(v_out[v]);
      }
    }
  }
}

// Dense NDHWC. A tensor with one channel or one spatial element is dense in both orders and classified ncdhw.
bool dense_channels_last(Layout layout, int64_t channels, int64_t spatial) {
  return layout == Layout::ndhwc || (layout == Layout::ncdhw && (channels == 1 || spatial == 1));
}

// Shared-memory bytes of the weight stage for `channel_threads` threads of `vec` channels each.
size_t weight_stage_bytes(const ConvProblem& p, int vec, int channel_threads) {
  return static_cast<size_t>(p.T * p.R * p.S) * channel_threads * vec * sizeof(float);
}

template <typename T, int VEC, int KS>
void launch_config(const ConvProblem& p, const ConvArgs& a, cudaStream_t stream) {
  const int64_t units = p.C / VEC * (p.K / p.C);
  // As many channel threads per CTA as there are units (up to a warp), fewer when the weight stage would not fit.
  int channel_threads = 1;
  while (channel_threads < kMaxChannelThreads && channel_threads < units &&
         weight_stage_bytes(p, VEC, channel_threads * 2) <= kSmemBudgetBytes) {
    channel_threads *= 2;
  }
  const size_t smem = weight_stage_bytes(p, VEC, channel_threads);
  const dim3 block(channel_threads, kThreads / channel_threads);
  auto kernel = channels_last_kernel<T, VEC, KS>;
  allow_dynamic_smem(kernel, smem);

  // One wave of resident CTAs; the grid-stride loop over positions amortizes the weight stage.
  int ctas_per_sm = 0;
  KF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas_per_sm, kernel, kThreads, smem));
  const int64_t channel_ctas = ceil_div(units, channel_threads);
  KF_CHECK(channel_ctas <= 0x7fffffff, "dw_v2_channels_last: channel grid overflows gridDim.x");
  const int64_t position_groups = p.N * p.Do * p.Ho * ceil_div(p.Wo, kOutputsPerThread);
  const int64_t wave = int64_t(current_sm_count()) * std::max(ctas_per_sm, 1);
  const int64_t position_ctas =
      std::clamp<int64_t>(std::min(ceil_div(position_groups, block.y), ceil_div(wave, channel_ctas)), 1, 65535);
  kernel<<<dim3(static_cast<unsigned>(channel_ctas), static_cast<unsigned>(position_ctas)), block, smem, stream>>>(
      make_geometry(p), static_cast<const T*>(a.x), static_cast<const T*>(a.w),
      p.has_bias ? static_cast<const T*>(a.bias) : nullptr, static_cast<T*>(a.y), units, position_groups);
  KF_LAUNCH_CHECK();
}

template <typename T, int VEC>
void launch_vec(const ConvProblem& p, const ConvArgs& a, cudaStream_t stream) {
  // The common filter widths get a compile-time S (register window); any other width the runtime-S kernel.
  switch (p.S) {
    case 3: return launch_config<T, VEC, 3>(p, a, stream);
    case 5: return launch_config<T, VEC, 5>(p, a, stream);
    case 7: return launch_config<T, VEC, 7>(p, a, stream);
    default: return launch_config<T, VEC, 0>(p, a, stream);
  }
}

}  // namespace

std::string v2_channels_last_accepts(const ConvProblem& p) {
  if (std::string why = common_refusal(p); !why.empty()) return why;
  if (!dense_channels_last(p.x_layout(), p.C, p.D * p.H * p.W)) {
    return std::string("expected a dense ndhwc input, but got ") + layout_name(p.x_layout());
  }
  if (!dense_channels_last(p.y_layout(), p.K, p.Do * p.Ho * p.Wo)) {
    return std::string("expected a dense ndhwc output, but got ") + layout_name(p.y_layout());
  }
  if (weight_stage_bytes(p, 1, 1) > kSmemBudgetBytes) {
    return "expected at most " + std::to_string(kSmemBudgetBytes / sizeof(float)) +
           " filter taps (the shared-memory weight stage), but got T*R*S=" + std::to_string(p.T * p.R * p.S);
  }
  return "";
}

void v2_channels_last_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  if (p.y_numel() == 0) return;
  dispatch_element_type(p.dtype, "dw_v2_channels_last", [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int kVec = 4;
    // Packed accesses need whole vectors of channels (C % kVec; then every NDHWC offset is a multiple of kVec)
    // and aligned base pointers; otherwise the scalar instantiation of the same kernel.
    const bool vectorized = p.C % kVec == 0 && is_aligned(a.x, kVec * sizeof(T)) &&
                            is_aligned(a.y, kVec * sizeof(T)) && weight_stage_bytes(p, kVec, 1) <= kSmemBudgetBytes;
    if (vectorized) return launch_vec<T, kVec>(p, a, s);
    launch_vec<T, 1>(p, a, s);
  });
}

}  // namespace kforge::depthwise
