// Shared by the CUDA-core depthwise kernels (dw_v1..v3b): element <-> float conversion, packed vector access,
// the problem geometry every kernel takes by value, the shared-memory tile building blocks of v3/v3b (filter
// staging, register-window accumulation, output rows), dtype dispatch and launch helpers.
// Limits: element types float, __nv_bfloat16, __half (fp8 is refused by common_refusal before any launch).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_arch.hpp"
#include "kforge/conv.hpp"

namespace kforge::depthwise {

__host__ __device__ constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Dynamic shared memory a v2/v3 CTA may use. A fixed number, not the device's opt-in maximum, so accepts() is a
// pure function of the problem and the kernels fit every sm_80+ part while keeping >= 2 CTAs per H200 SM.
constexpr size_t kSmemBudgetBytes = 96 * 1024;

// ---- element conversion (fp32 accumulation everywhere) ----

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

// N contiguous elements moved as one aligned access (LDG/STG.64/.128). The caller guarantees the alignment.
template <typename T, int N>
struct alignas(sizeof(T) * N) Packed {
  T v[N];
};

template <typename T, int N>
__device__ __forceinline__ void load_packed(const T* p, float (&out)[N]) {
  const Packed<T, N> pk = *reinterpret_cast<const Packed<T, N>*>(p);
#pragma unroll
  for (int i = 0; i < N; ++i) out[i] = to_float(pk.v[i]);
}

template <typename T, int N>
__device__ __forceinline__ void store_packed(T* p, const float (&in)[N]) {
  Packed<T, N> pk;
#pragma unroll
  for (int i = 0; i < N; ++i) pk.v[i] = from_float<T>(in[i]);
  *reinterpret_cast<Packed<T, N>*>(p) = pk;
}

// N floats from 16-byte-aligned shared memory with the widest accesses that fit (LDS.128, then .64, then .32).
template <int N>
__device__ __forceinline__ void load_smem_floats(const float* p, float (&out)[N]) {
#pragma unroll
  for (int i = 0; i + 4 <= N; i += 4) {
    const float4 q = *reinterpret_cast<const float4*>(p + i);
    out[i] = q.x, out[i + 1] = q.y, out[i + 2] = q.z, out[i + 3] = q.w;
  }
  constexpr int tail = N / 4 * 4;
  if constexpr (N - tail >= 2) {
    const float2 q = *reinterpret_cast<const float2*>(p + tail);
    out[tail] = q.x, out[tail + 1] = q.y;
  }
  if constexpr ((N - tail) % 2 == 1) out[N - 1] = p[N - 1];
}

__host__ __device__ inline bool is_aligned(const void* p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

// ---- problem geometry ----

// What the kernels need of a ConvProblem, as plain 64-bit fields (index products can pass 2^31).
// Dimension order of the arrays is (d, h, w) for the hyper-parameters and the rank-5 order for strides.
struct Geometry {
  int64_t N, C, K, multiplier;  // multiplier m = K / C: output channel k reads input channel k / m
  int64_t D, H, W, T, R, S, Do, Ho, Wo;
  int64_t stride[3], pad_lo[3], dilation[3];
  int64_t xs[5], ws[5], ys[5];
};

inline Geometry make_geometry(const ConvProblem& p) {
  Geometry g{};
  g.N = p.N, g.C = p.C, g.K = p.K, g.multiplier = p.K / p.C;
  g.D = p.D, g.H = p.H, g.W = p.W, g.T = p.T, g.R = p.R, g.S = p.S, g.Do = p.Do, g.Ho = p.Ho, g.Wo = p.Wo;
  for (int i = 0; i < 3; ++i) g.stride[i] = p.stride[i], g.pad_lo[i] = p.pad_lo[i], g.dilation[i] = p.dilation[i];
  for (int i = 0; i < 5; ++i) g.xs[i] = p.x_strides[i], g.ws[i] = p.w_strides[i], g.ys[i] = p.y_strides[i];
  return g;
}

// Weight of output channel k at tap (t, r, s), any weight strides (dimension 1 has size 1).
template <typename T>
__device__ __forceinline__ float weight_at(const Geometry& g, const T* w, int64_t k, int64_t t, int64_t r,
                                           int64_t s) {
  return to_float(w[k * g.ws[0] + t * g.ws[2] + r * g.ws[3] + s * g.ws[4]]);
}

// ---- shared-memory tile building blocks (dw_v3_smem_tile, dw_v3b_smem_occupancy) ----

// The filter of output channel k as fp32 in shared memory, [t][r][s] order; the caller syncs before reading it.
template <typename T>
__device__ __forceinline__ void stage_filter(const Geometry& g, const T* w, int64_t k, int kt, int kr, int ks,
                                             float* w_smem) {
  for (int i = threadIdx.x; i < kt * kr * ks; i += blockDim.x) {
    w_smem[i] = weight_at(g, w, k, i / (kr * ks), i / ks % kr, i % ks);
  }
}

// One depth tap of a kRows x kCols output block (rows along H, consecutive columns along W) from an fp32 tile in
// shared memory: acc[j][c] += in[(j*SH + r*DH) * pitch + c*SW + s*DW] * w_t[r*KS + s] over the KR x KS taps.
// Everything is compile-time, so each input row i the block touches is read once into a register window
// (aligned vector loads: `in` 16-byte aligned, pitch a multiple of 4) and feeds every (output row j, filter row r)
// pair with j*SH + r*DH == i: FMA-bound rather than shared-memory-bound. Rows no pair reads (stride and
// dilation both even) are never loaded.
template <int kRows, int kCols, int KR, int KS, int SH, int SW, int DH, int DW>
__device__ __forceinline__ void accumulate_window(const float* in, int pitch, const float* w_t,
                                                  float (&acc)[kRows][kCols]) {
  constexpr int kInRows = (kRows - 1) * SH + (KR - 1) * DH + 1;
  constexpr int kWindow = (kCols - 1) * SW + (KS - 1) * DW + 1;
#pragma unroll
  for (int i = 0; i < kInRows; ++i) {
    float window[kWindow];
    load_smem_floats<kWindow>(in + i * pitch, window);
#pragma unroll
    for (int r = 0; r < KR; ++r) {
      const int row_offset = i - r * DH;  // j * SH for the output row j this (i, r) pair feeds
      if (row_offset < 0 || row_offset % SH != 0 || row_offset / SH >= kRows) continue;
      const int j = row_offset / SH;
#pragma unroll
      for (int s = 0; s < KS; ++s) {
        const float wv = w_t[r * KS + s];
#pragma unroll
        for (int c = 0; c < kCols; ++c) acc[j][c] = fmaf(window[c * SW + s * DW], wv, acc[j][c]);
      }
    }
  }
}

// The same for runtime filter sizes, strides and dilations: each tap reads shared memory directly. The taps are
// the outer loops so each weight read feeds kRows * kCols FMAs.
template <int kRows, int kCols>
__device__ __forceinline__ void accumulate_any_taps(const float* in, int pitch, const float* w_t, int R, int S,
                                                    int sh, int sw, int dh, int dw, float (&acc)[kRows][kCols]) {
  const int row_step = sh * pitch;
#pragma unroll 1
  for (int r = 0; r < R; ++r) {
#pragma unroll 1
    for (int s = 0; s < S; ++s) {
      const float* tap = in + r * dh * pitch + s * dw;
      const float wv = w_t[r * S + s];
#pragma unroll
      for (int j = 0; j < kRows; ++j) {
#pragma unroll
        for (int c = 0; c < kCols; ++c) acc[j][c] = fmaf(tap[j * row_step + c * sw], wv, acc[j][c]);
      }
    }
  }
}

// kCols consecutive outputs of one output row starting at column ow: one packed store when the row is contiguous
// and aligned, else element by element (columns from Wo on are outside the output and dropped).
template <typename T, int kCols>
__device__ __forceinline__ void store_output_row(T* y_row, int64_t ow, int64_t Wo, int64_t col_stride,
                                                 const float (&out)[kCols]) {
  if (ow + kCols <= Wo && col_stride == 1 && is_aligned(y_row + ow, kCols * sizeof(T))) {
    store_packed<T, kCols>(y_row + ow, out);
  } else {
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      if (ow + c < Wo) y_row[(ow + c) * col_stride] = from_float<T>(out[c]);
    }
  }
}

// ---- host helpers ----

// Calls fn(ElementTag<T>{}) with the storage type of `dtype`.
template <typename T> struct ElementTag { using type = T; };

template <typename Fn>
void dispatch_element_type(DType dtype, const char* variant, Fn&& fn) {
  switch (dtype) {
    case DType::f32: return fn(ElementTag<float>{});
    case DType::bf16: return fn(ElementTag<__nv_bfloat16>{});
    case DType::f16: return fn(ElementTag<__half>{});
    case DType::fp8_e4m3: break;
  }
  throw Error(std::string(variant) + ": no kernel for dtype " + dtype_name(dtype));
}

// Kernels above the 48 KB static limit must opt in to their dynamic shared memory size.
template <typename Kernel>
void allow_dynamic_smem(Kernel kernel, size_t bytes) {
  if (bytes > 48 * 1024) {
    KF_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  }
}

}  // namespace kforge::depthwise
