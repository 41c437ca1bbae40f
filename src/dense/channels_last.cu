// Channels-last staging (see channels_last.hpp): the plan, and three copy kernels over 16-bit elements.
#include "dense/channels_last.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "core/cuda_check.hpp"

namespace kforge::dense {
namespace {

using Bits16 = uint16_t;  // the staged kernels take bf16; copies only move bits
constexpr int kTile = 64;
constexpr int kTransposeThreads = 256;

// Elements of one global access: 8 (16 bytes) when every stride and base allows it, else 1.
template <int kVec>
using Access = std::conditional_t<kVec == 8, uint4, Bits16>;

// dst[b][j][i] = i < rows ? src[b][i][j] : 0 for i < rows_padded, j < cols: a batched transpose whose output rows
// may be zero-padded (the channel padding). 64x64 tiles through shared memory, read and written kVec elements at
// a time, keep both sides coalesced; the grid loops over tiles and batches.
template <int kVec>
__global__ void __launch_bounds__(kTransposeThreads)
transpose_pad_kernel(const Bits16* __restrict__ src, Bits16* __restrict__ dst, int64_t batches, int64_t rows,
                     int64_t rows_padded, int64_t cols, int64_t src_batch_stride, int64_t src_row_stride,
                     int64_t dst_batch_stride, int64_t dst_row_stride) {
  constexpr int kVecsPerRow = kTile / kVec;
  __shared__ Bits16 tile[kTile][kTile + 2];  // +2: the column reads of the write phase spread over the banks
  const int64_t tiles_j = (cols + kTile - 1) / kTile, tiles = tiles_j * ((rows_padded + kTile - 1) / kTile);
  for (int64_t b = blockIdx.z; b < batches; b += gridDim.z) {
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
      const int64_t j0 = (t % tiles_j) * kTile, i0 = (t / tiles_j) * kTile;
      for (int v = threadIdx.x; v < kTile * kVecsPerRow; v += blockDim.x) {  // read source rows i0 + r
        const int r = v / kVecsPerRow, c = (v % kVecsPerRow) * kVec;
        const int64_t i = i0 + r, j = j0 + c;
        const Bits16* from = src + b * src_batch_stride + i * src_row_stride + j;
        alignas(16) Bits16 vals[kVec];
        if (i < rows && j + kVec <= cols) {
          *reinterpret_cast<Access<kVec>*>(vals) = *reinterpret_cast<const Access<kVec>*>(from);
        } else {
          for (int e = 0; e < kVec; ++e) vals[e] = (i < rows && j + e < cols) ? from[e] : Bits16(0);
        }
        for (int e = 0; e < kVec; ++e) tile[r][c + e] = vals[e];
      }
      __syncthreads();
      for (int v = threadIdx.x; v < kTile * kVecsPerRow; v += blockDim.x) {  // write destination rows j0 + r
        const int r = v / kVecsPerRow, c = (v % kVecsPerRow) * kVec;
        const int64_t j = j0 + r, i = i0 + c;
        if (j >= cols) continue;
        alignas(16) Bits16 vals[kVec];
        for (int e = 0; e < kVec; ++e) vals[e] = tile[c + e][r];
        Bits16* to = dst + b * dst_batch_stride + j * dst_row_stride + i;
        if (i + kVec <= rows_padded) {
          *reinterpret_cast<Access<kVec>*>(to) = *reinterpret_cast<const Access<kVec>*>(vals);
        } else {
          for (int e = 0; e < kVec; ++e)
            if (i + e < rows_padded) to[e] = vals[e];
        }
      }
      __syncthreads();
    }
  }
}

// transpose_pad's case cols < kTile with packed rows (src_row_stride == cols): the filter's KCTRS -> KTRSC, where
// cols = T*R*S (27 for 3x3x3). There 64x64 tiles would be mostly empty and 16-byte reads impossible (rows of 27
// elements do not start on 16 bytes), and that scalar path measured ~0.1 TB/s (ltx_upsampler's 226 MB filter:
// 0.75 ms of its NCDHW time). Here a CTA reads a band of kTile rows, kTile * cols contiguous elements, into shared
// memory (16 bytes at a time when the batch starts on 16 bytes) and writes the band's column j as dst row j's
// kTile elements, 16 bytes at a time.
template <bool kVectors>
__global__ void __launch_bounds__(kTransposeThreads)
transpose_narrow_kernel(const Bits16* __restrict__ src, Bits16* __restrict__ dst, int64_t batches, int64_t rows,
                        int64_t rows_padded, int cols, int64_t src_batch_stride, int64_t dst_batch_stride,
                        int64_t dst_row_stride) {
  __shared__ alignas(16) Bits16 band[kTile * kTile];  // kTile rows of cols < kTile elements, packed
  const int64_t bands = (rows_padded + kTile - 1) / kTile;
  for (int64_t t = blockIdx.x; t < batches * bands; t += gridDim.x) {
    const int64_t b = t / bands, i0 = t % bands * kTile;
    const int band_rows = static_cast<int>(std::clamp<int64_t>(rows - i0, 0, kTile));
    const Bits16* from = src + b * src_batch_stride + i0 * cols;  // 16-byte aligned when kVectors (kTile % 8 == 0)
    const int n = band_rows * cols, vectors = kVectors ? n / 8 : 0;
    for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
      reinterpret_cast<uint4*>(band)[v] = reinterpret_cast<const uint4*>(from)[v];
    }
    for (int e = 8 * vectors + threadIdx.x; e < n; e += blockDim.x) band[e] = from[e];
    __syncthreads();
    for (int v = threadIdx.x; v < cols * (kTile / 8); v += blockDim.x) {
      const int j = v / (kTile / 8), i = v % (kTile / 8) * 8;
      alignas(16) Bits16 vals[8];
      for (int e = 0; e < 8; ++e) vals[e] = i + e < band_rows ? band[(i + e) * cols + j] : Bits16(0);
      Bits16* to = dst + b * dst_batch_stride + j * dst_row_stride + i0 + i;
      if (kVectors && i0 + i + 8 <= rows_padded) {
        *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(vals);
      } else {
        for (int e = 0; e < 8; ++e)
          if (i0 + i + e < rows_padded) to[e] = vals[e];
      }
    }
    __syncthreads();
  }
}

bool aligned_for_vectors(const void* p, std::initializer_list<int64_t> strides) {
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0) return false;
  return std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s % 8 == 0; });
}

void transpose_pad(const void* src, void* dst, int64_t batches, int64_t rows, int64_t rows_padded, int64_t cols,
                   int64_t src_batch_stride, int64_t src_row_stride, int64_t dst_batch_stride, int64_t dst_row_stride,
                   cudaStream_t s) {
  if (cols < kTile && src_row_stride == cols) {
    const int64_t bands = batches * ((rows_padded + kTile - 1) / kTile);
    const bool vectors = aligned_for_vectors(src, {src_batch_stride}) &&
                         aligned_for_vectors(dst, {dst_batch_stride, dst_row_stride});
    const unsigned grid = unsigned(std::min<int64_t>(bands, 132 * 16));  // the kernel loops over the rest
    auto launch = [&](auto kernel) {
      kernel<<<grid, kTransposeThreads, 0, s>>>(static_cast<const Bits16*>(src), static_cast<Bits16*>(dst), batches,
                                                rows, rows_padded, static_cast<int>(cols), src_batch_stride,
                                                dst_batch_stride, dst_row_stride);
      KF_LAUNCH_CHECK();
    };
    return vectors ? launch(transpose_narrow_kernel<true>) : launch(transpose_narrow_kernel<false>);
  }
  const int64_t tiles = ((cols + kTile - 1) / kTile) * ((rows_padded + kTile - 1) / kTile);
  // Enough blocks to fill the GPU several times over; the kernel loops over the rest.
  const int64_t z = std::min<int64_t>(batches, 65535), x = std::clamp<int64_t>(132 * 16 / z, 1, tiles);
  const dim3 grid(unsigned(x), 1, unsigned(z));
  const bool vectors = aligned_for_vectors(src, {src_batch_stride, src_row_stride}) &&
                       aligned_for_vectors(dst, {dst_batch_stride, dst_row_stride});
  auto launch = [&](auto kernel) {
    kernel<<<grid, kTransposeThreads, 0, s>>>(static_cast<const Bits16*>(src), static_cast<Bits16*>(dst), batches,
                                              rows, rows_padded, cols, src_batch_stride, src_row_stride,
                                              dst_batch_stride, dst_row_stride);
    KF_LAUNCH_CHECK();
  };
  if (vectors) launch(transpose_pad_kernel<8>);
  else launch(transpose_pad_kernel<1>);
}

// Any rank-5 strided view (outer, c, d, h, w) -> packed (outer, d, h, w, c_padded), zero-filled channels.
struct Strided5 {
  int64_t sizes[5];    // outer, C, D, H, W
  int64_t strides[5];  // element strides, same order
};

__global__ void pack_channels_last_kernel(const Bits16* __restrict__ src, Bits16* __restrict__ dst, Strided5 v,
                                          int64_t c_padded) {
  const int64_t total = v.sizes[0] * v.sizes[2] * v.sizes[3] * v.sizes[4] * c_padded;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    int64_t r = e;
    const int64_t c = r % c_padded; r /= c_padded;
    const int64_t w = r % v.sizes[4]; r /= v.sizes[4];
    const int64_t h = r % v.sizes[3]; r /= v.sizes[3];
    const int64_t d = r % v.sizes[2];
    const int64_t o = r / v.sizes[2];
    dst[e] = c < v.sizes[1] ? src[o * v.strides[0] + c * v.strides[1] + d * v.strides[2] + h * v.strides[3] +
                                  w * v.strides[4]]
                            : Bits16(0);
  }
}

// Packed (n, d, h, w, k_padded) -> any rank-5 strided view (n, k, d, h, w): the first k channels.
__global__ void unpack_channels_last_kernel(const Bits16* __restrict__ src, Bits16* __restrict__ dst, Strided5 v,
                                            int64_t k_padded) {
  const int64_t total = v.sizes[0] * v.sizes[1] * v.sizes[2] * v.sizes[3] * v.sizes[4];
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    int64_t r = e;
    const int64_t k = r % v.sizes[1]; r /= v.sizes[1];
    const int64_t w = r % v.sizes[4]; r /= v.sizes[4];
    const int64_t h = r % v.sizes[3]; r /= v.sizes[3];
    const int64_t d = r % v.sizes[2];
    const int64_t n = r / v.sizes[2];
    const int64_t from = (((n * v.sizes[2] + d) * v.sizes[3] + h) * v.sizes[4] + w) * k_padded + k;
    dst[n * v.strides[0] + k * v.strides[1] + d * v.strides[2] + h * v.strides[3] + w * v.strides[4]] = src[from];
  }
}

unsigned grid_for(int64_t elements) {
  return unsigned(std::clamp<int64_t>((elements + 255) / 256, 1, 132 * 32));  // grid-stride loops beyond
}

Strided5 strided(std::array<int64_t, 5> sizes, const std::array<int64_t, 5>& strides) {
  Strided5 v{};
  for (int i = 0; i < 5; ++i) v.sizes[i] = sizes[i], v.strides[i] = strides[i];
  return v;
}

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Packed NDHWC / KTRSC strides of (outer, C, D, H, W) sizes: channel innermost.
std::array<int64_t, 5> channels_last_strides(const std::array<int64_t, 5>& sz) {
  return {sz[1] * sz[2] * sz[3] * sz[4], 1, sz[3] * sz[4] * sz[1], sz[4] * sz[1], sz[1]};
}

// One staged input (x or w): the transpose for the channels-first order, else the gather.
void stage_input(const void* src, void* dst, const std::array<int64_t, 5>& sizes,
                 const std::array<int64_t, 5>& strides, Layout layout, int64_t c_padded, cudaStream_t s) {
  const int64_t spatial = sizes[2] * sizes[3] * sizes[4];
  if (layout == Layout::ncdhw) {
    transpose_pad(src, dst, sizes[0], sizes[1], c_padded, spatial, strides[0], strides[1], spatial * c_padded,
                  c_padded, s);
    return;
  }
  const int64_t total = sizes[0] * spatial * c_padded;
  pack_channels_last_kernel<<<grid_for(total), 256, 0, s>>>(static_cast<const Bits16*>(src),
                                                            static_cast<Bits16*>(dst), strided(sizes, strides),
                                                            c_padded);
  KF_LAUNCH_CHECK();
}

}  // namespace

std::string output_order_refusal(const ConvProblem& p, OutputOrder out) {
  if (out == OutputOrder::ndhwc) return "";
  const int64_t plane = p.Ho * p.Wo, volume = p.Do * plane;
  if (p.N != 1) return "writes the NCDHW output of one image (N == 1), but N=" + std::to_string(p.N);
  if (p.K % kChannelAlignment != 0)
    return "writes y's channels in place, but K % 8 != 0 (K=" + std::to_string(p.K) + " is padded and staged)";
  const auto& ys = p.y_strides;
  if (ys[1] != volume || ys[2] != plane || ys[3] != p.Wo || ys[4] != 1)
    return "writes a packed NCDHW output, but y's strides are not (layout " + std::string(layout_name(p.y_layout())) +
           ")";
  if (volume % kChannelAlignment != 0)
    return "writes NCDHW channels with 16-byte TMA strides: needs Do*Ho*Wo % 8 == 0, but it is " +
           std::to_string(volume);
  if (p.unaligned.y) return "writes y in place through TMA, but y's data pointer is not 16-byte aligned";
  return "";
}

std::string channels_last_refusal(const ConvProblem& p) {
  if (p.groups != 1) return "groups == 1 only (got " + std::to_string(p.groups) + ")";
  return "";
}

ChannelsLastPlan plan_channels_last(const ConvProblem& p, OutputOrder out) {
  KF_CHECK(p.groups == 1 && dtype_size(p.dtype) == sizeof(Bits16),
           "channels-last staging: needs groups 1 and 16-bit elements, got " + p.describe());
  const std::string refusal = output_order_refusal(p, out);
  KF_CHECK(refusal.empty(), "channels-last staging: the kernel " + refusal);
  ChannelsLastPlan plan;
  plan.inner = p;
  ConvProblem& in = plan.inner;
  in.C = round_up(p.C, kChannelAlignment);
  in.K = round_up(p.K, kChannelAlignment);
  in.x_strides = channels_last_strides({in.N, in.C, in.D, in.H, in.W});
  in.w_strides = channels_last_strides({in.K, in.C, in.T, in.R, in.S});
  // The kernel writes y in place when it writes the caller's order and channel count (and TMA can take y's address).
  const bool padded_k = in.K != p.K;
  const bool y_in_place = out == OutputOrder::ncdhw_one_image ||
                          (p.y_layout() == Layout::ndhwc && !p.unaligned.y && !padded_k);
  in.y_strides = out == OutputOrder::ncdhw_one_image ? p.y_strides
                                                     : channels_last_strides({in.N, in.K, in.Do, in.Ho, in.Wo});
  const bool padded_c = in.C != p.C;
  const size_t e = dtype_size(p.dtype);
  plan.stage_x = padded_c || p.x_layout() != Layout::ndhwc || p.unaligned.x;
  plan.stage_w = padded_c || padded_k || p.w_layout() != Layout::ndhwc || p.unaligned.w;
  // The epilogues read a bias entry per (padded) output channel, in 16-byte pieces.
  plan.stage_bias = p.has_bias && (padded_k || p.unaligned.bias);
  plan.stage_y = !y_in_place;
  // Rounded to 256 bytes so every staged tensor starts TMA-aligned.
  if (plan.stage_x) plan.x_bytes = round_up(in.x_numel() * e, 256);
  if (plan.stage_w) plan.w_bytes = round_up(in.w_numel() * e, 256);
  if (plan.stage_bias) plan.bias_bytes = round_up(in.K * e, 256);
  if (plan.stage_y) plan.y_bytes = round_up(in.y_numel() * e, 256);
  return plan;
}

StagedArgs stage_inputs(const ChannelsLastPlan& plan, const ConvProblem& p, const ConvArgs& a, void* staging,
                        cudaStream_t s) {
  char* base = static_cast<char*>(staging);
  StagedArgs out{a.x, a.w, a.bias, a.y};
  const int64_t cp = plan.inner.C, kp = plan.inner.K;
  const size_t e = dtype_size(p.dtype);
  if (plan.stage_x) {
    stage_input(a.x, base, {p.N, p.C, p.D, p.H, p.W}, p.x_strides, p.x_layout(), cp, s);
    out.x = base;
  }
  if (plan.stage_w) {
    char* w = base + plan.x_bytes;
    const int64_t filter = p.T * p.R * p.S * cp;  // one output channel's KTRSC filter, C padded
    if (kp != p.K) KF_CUDA_CHECK(cudaMemsetAsync(w + p.K * filter * e, 0, (kp - p.K) * filter * e, s));
    stage_input(a.w, w, {p.K, p.C, p.T, p.R, p.S}, p.w_strides, p.w_layout(), cp, s);
    out.w = w;
  }
  if (plan.stage_bias) {
    char* bias = base + plan.x_bytes + plan.w_bytes;
    KF_CUDA_CHECK(cudaMemsetAsync(bias + p.K * e, 0, (kp - p.K) * e, s));
    KF_CUDA_CHECK(cudaMemcpyAsync(bias, a.bias, p.K * e, cudaMemcpyDeviceToDevice, s));
    out.bias = bias;
  }
  if (plan.stage_y) out.y = base + plan.x_bytes + plan.w_bytes + plan.bias_bytes;
  return out;
}

void finish_output(const ChannelsLastPlan& plan, const ConvProblem& p, const StagedArgs& staged, void* y,
                   cudaStream_t s) {
  if (!plan.stage_y) return;
  const int64_t spatial = p.Do * p.Ho * p.Wo, kp = plan.inner.K;
  if (p.y_layout() == Layout::ncdhw) {
    // [n][spatial][kp] -> [n][k][spatial], the first k channels
    transpose_pad(staged.y, y, p.N, spatial, spatial, p.K, spatial * kp, kp, p.y_strides[0], p.y_strides[1], s);
    return;
  }
  const int64_t total = p.y_numel();
  unpack_channels_last_kernel<<<grid_for(total), 256, 0, s>>>(static_cast<const Bits16*>(staged.y),
                                                              static_cast<Bits16*>(y),
                                                              strided({p.N, p.K, p.Do, p.Ho, p.Wo}, p.y_strides), kp);
  KF_LAUNCH_CHECK();
}

}  // namespace kforge::dense
