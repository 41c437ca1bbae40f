// dw_v3_smem_tile: depthwise conv for dense NCDHW x and y. A CTA computes an output tile (out_d x out_h x out_w)
// of one (n, k) plane: it stages the input halo tile the tile reads into shared memory once, as fp32 with the
// padding zero-filled (so the inner loops have no bounds checks), and the channel's filter next to it. Each thread
// then computes kRows x kCols outputs (rows along H, consecutive columns along W) from shared memory.
// Common filter sizes are template parameters (3x3x3, 3x5x5, 5x5x5, 7x7x7, 1x3x3, 3x1x1); with unit H/W stride and
// dilation those read each input row once into a register window and use it for every (output row, tap) pair it
// feeds (FMA-bound rather than shared-memory-bound). Any other size or stride/dilation runs the same kernel with
// runtime sizes reading shared memory per tap.
// Limits: x and y dense NCDHW (weights any strides); the smallest tile (1 x kRows x kCols outputs) must fit in
// kSmemBudgetBytes, else accepts() refuses with the size.
#include <algorithm>
#include <cmath>
#include <optional>

#include "depthwise/dw_common.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {
namespace {

constexpr int kThreads = 256;
constexpr int kRows = 8;  // outputs per thread along H
constexpr int kCols = 4;  // outputs per thread along W: a 16-byte-aligned smem window, one packed store

// The CTA's output tile and the input halo tile behind it. Shared memory: [taps_padded] filter floats, then
// [in_d][in_h][pitch] input floats (pitch a multiple of 4 so every thread's window starts 16-byte aligned).
struct TileShape {
  int out_d, out_h, out_w;  // out_h % kRows == 0, out_w % kCols == 0
  int in_d, in_h, in_w, pitch;
  int taps_padded;

  __host__ __device__ int col_blocks() const { return out_w / kCols; }
  __host__ __device__ int row_blocks() const { return out_h / kRows; }
  __host__ __device__ int work_items() const { return out_d * row_blocks() * col_blocks(); }
  size_t smem_bytes() const { return (size_t(taps_padded) + size_t(in_d) * in_h * pitch) * sizeof(float); }
};

// The tile of out_d x (row_blocks*kRows) x (col_blocks*kCols) outputs, or nullopt when its shared memory
// (returned in *bytes when given, computed in double so a huge stride or dilation compares as too big rather
// than wrapping) exceeds the budget.
std::optional<TileShape> make_tile(const ConvProblem& p, int out_d, int row_blocks, int col_blocks,
                                   double* bytes = nullptr) {
  const int64_t out[3] = {out_d, int64_t(row_blocks) * kRows, int64_t(col_blocks) * kCols};
  const int64_t kernel[3] = {p.T, p.R, p.S};
  double in[3];
  for (int i = 0; i < 3; ++i) in[i] = double(out[i] - 1) * p.stride[i] + double(kernel[i] - 1) * p.dilation[i] + 1;
  const double pitch = std::ceil(in[2] / 4) * 4, taps_padded = std::ceil(double(p.T * p.R * p.S) / 4) * 4;
  const double smem = (taps_padded + in[0] * in[1] * pitch) * sizeof(float);
  if (bytes) *bytes = smem;
  if (smem > double(kSmemBudgetBytes)) return std::nullopt;
  return TileShape{int(out[0]), int(out[1]), int(out[2]), int(in[0]), int(in[1]), int(in[2]), int(pitch),
                   int(taps_padded)};
}

// About kThreads work items (one per thread) shaped to the output: up to 32 columns, then rows, then depths;
// halved (depth first, then rows, then columns) until the halo tile fits the shared-memory budget.
std::optional<TileShape> choose_tile(const ConvProblem& p) {
  int col_blocks = static_cast<int>(std::min<int64_t>(8, ceil_div(p.Wo, kCols)));
  int row_blocks = static_cast<int>(std::min<int64_t>(ceil_div(p.Ho, kRows), std::max(1, 32 / col_blocks)));
  int out_d = static_cast<int>(std::min<int64_t>(p.Do, std::max(1, kThreads / (col_blocks * row_blocks))));
  for (;;) {
    if (auto tile = make_tile(p, out_d, row_blocks, col_blocks)) return tile;
    if (out_d > 1) {
      out_d = (out_d + 1) / 2;
    } else if (row_blocks > 1) {
      row_blocks = (row_blocks + 1) / 2;
    } else if (col_blocks > 1) {
      col_blocks = (col_blocks + 1) / 2;
    } else {
      return std::nullopt;
    }
  }
}

// grid.x: the tiles of one plane (depth-major, then rows, then columns); grid.y: a grid-stride loop over the
// N*K planes. KT, KR, KS > 0: compile-time filter size; all 0: runtime size (then kUnitStride is false).
template <typename T, int KT, int KR, int KS, bool kUnitStride>
__global__ void __launch_bounds__(kThreads, 2)
smem_tile_kernel(const Geometry g, const TileShape tile, int64_t tiles_h, int64_t tiles_w, const T* __restrict__ x,
                 const T* __restrict__ w, const T* __restrict__ bias, T* __restrict__ y) {
  static_assert(!kUnitStride || (KR > 0 && KS > 0), "the register-window path needs a compile-time R and S");
  extern __shared__ float4 smem_words[];
  float* w_smem = reinterpret_cast<float*>(smem_words);
  float* in_smem = w_smem + tile.taps_padded;
  const int kt = KT > 0 ? KT : static_cast<int>(g.T);
  const int kr = KR > 0 ? KR : static_cast<int>(g.R);
  const int ks = KS > 0 ? KS : static_cast<int>(g.S);
  // Within a tile every stride/dilation product is bounded by the tile extents, so int is exact; a stride that
  // does not fit an int only ever multiplies a zero index (a tile one output deep or a filter one tap wide).
  const int sh = static_cast<int>(g.stride[1]), sw = static_cast<int>(g.stride[2]);
  const int dh = static_cast<int>(g.dilation[1]), dw = static_cast<int>(g.dilation[2]);
  const int plane_floats = tile.in_h * tile.pitch;

  const int64_t od0 = blockIdx.x / (tiles_h * tiles_w) * tile.out_d;
  const int64_t oh0 = blockIdx.x / tiles_w % tiles_h * tile.out_h;
  const int64_t ow0 = blockIdx.x % tiles_w * tile.out_w;
  const int64_t id0 = od0 * g.stride[0] - g.pad_lo[0];
  const int64_t ih0 = oh0 * g.stride[1] - g.pad_lo[1];
  const int64_t iw0 = ow0 * g.stride[2] - g.pad_lo[2];

  for (int64_t plane = blockIdx.y; plane < g.N * g.K; plane += gridDim.y) {
    const int64_t n = plane / g.K, k = plane % g.K;
    __syncthreads();  // every thread is done reading the previous plane's tile

    stage_filter(g, w, k, kt, kr, ks, w_smem);
    // One warp per input row: coalesced reads along W (unit stride in dense NCDHW); columns [first, last) of a row
    // inside the input are read, the rest (and rows outside the input) are the zero padding.
    const T* x_plane = x + n * g.xs[0] + k / g.multiplier * g.xs[1];
    for (int row = threadIdx.x / 32; row < tile.in_d * tile.in_h; row += blockDim.x / 32) {
      const int64_t id = id0 + row / tile.in_h, ih = ih0 + row % tile.in_h;
      const bool row_inside = id >= 0 && id < g.D && ih >= 0 && ih < g.H;
      const int first = row_inside ? static_cast<int>(std::clamp<int64_t>(-iw0, 0, tile.in_w)) : 0;
      const int last = row_inside ? static_cast<int>(std::clamp<int64_t>(g.W - iw0, first, tile.in_w)) : 0;
      const T* src = x_plane + (row_inside ? id * g.xs[2] + ih * g.xs[3] + iw0 : 0);
      float* dst = in_smem + row * tile.pitch;
      for (int col = threadIdx.x % 32; col < tile.in_w; col += 32) {
        dst[col] = col >= first && col < last ? to_float(src[col]) : 0.f;
      }
    }
    __syncthreads();

    for (int item = threadIdx.x; item < tile.work_items(); item += blockDim.x) {
      const int col_l = item % tile.col_blocks() * kCols;
      const int row_l = item / tile.col_blocks() % tile.row_blocks() * kRows;
      const int depth_l = item / (tile.col_blocks() * tile.row_blocks());
      const int64_t od = od0 + depth_l;
      if (od >= g.Do) continue;

      float acc[kRows][kCols] = {};
      for (int t = 0; t < kt; ++t) {
        const float* in_plane = in_smem + (depth_l * g.stride[0] + t * g.dilation[0]) * plane_floats;
        const float* w_t = w_smem + t * kr * ks;
        if constexpr (kUnitStride) {
          accumulate_window<kRows, kCols, KR, KS, 1, 1, 1, 1>(in_plane + row_l * tile.pitch + col_l, tile.pitch, w_t,
                                                             acc);
        } else {
          accumulate_any_taps(in_plane + row_l * sh * tile.pitch + col_l * sw, tile.pitch, w_t, kr, ks, sh, sw, dh, dw,
                              acc);
        }
      }

      const float bias_v = bias ? to_float(bias[k]) : 0.f;
      const int64_t ow = ow0 + col_l;
#pragma unroll
      for (int j = 0; j < kRows; ++j) {
        const int64_t oh = oh0 + row_l + j;
        if (oh >= g.Ho) break;
        float out[kCols];
#pragma unroll
        for (int c = 0; c < kCols; ++c) out[c] = acc[j][c] + bias_v;
        store_output_row<T, kCols>(y + n * g.ys[0] + k * g.ys[1] + od * g.ys[2] + oh * g.ys[3], ow, g.Wo, g.ys[4], out);
      }
    }
  }
}

// Runs `launch(kernel)` with the compile-time instantiation for the problem's filter size when it is KT x KR x KS.
template <typename T, int KT, int KR, int KS, typename Launch>
bool launch_if_size(const ConvProblem& p, const Launch& launch) {
  if (p.T != KT || p.R != KR || p.S != KS) return false;
  const bool unit = p.stride[1] == 1 && p.stride[2] == 1 && p.dilation[1] == 1 && p.dilation[2] == 1;
  if (unit) {
    launch(smem_tile_kernel<T, KT, KR, KS, true>);
  } else {
    launch(smem_tile_kernel<T, KT, KR, KS, false>);
  }
  return true;
}

template <typename T>
void launch_typed(const ConvProblem& p, const ConvArgs& a, cudaStream_t stream) {
  const std::optional<TileShape> tile = choose_tile(p);
  KF_CHECK(tile.has_value(), "dw_v3_smem_tile: launched on a problem accepts() refuses");
  const int64_t tiles_d = ceil_div(p.Do, tile->out_d), tiles_h = ceil_div(p.Ho, tile->out_h),
                tiles_w = ceil_div(p.Wo, tile->out_w);
  KF_CHECK(tiles_d * tiles_h * tiles_w <= 0x7fffffff, "dw_v3_smem_tile: tile grid overflows gridDim.x");
  const dim3 grid(static_cast<unsigned>(tiles_d * tiles_h * tiles_w),
                  static_cast<unsigned>(std::min<int64_t>(p.N * p.K, 65535)));
  const int threads = static_cast<int>(std::min<int64_t>(kThreads, ceil_div(tile->work_items(), 32) * 32));
  const size_t smem = tile->smem_bytes();
  const auto launch = [&](auto kernel) {
    allow_dynamic_smem(kernel, smem);
    kernel<<<grid, threads, smem, stream>>>(make_geometry(p), *tile, tiles_h, tiles_w, static_cast<const T*>(a.x),
                                            static_cast<const T*>(a.w),
                                            p.has_bias ? static_cast<const T*>(a.bias) : nullptr,
                                            static_cast<T*>(a.y));
    KF_LAUNCH_CHECK();
  };
  const bool fixed_size = launch_if_size<T, 3, 3, 3>(p, launch) || launch_if_size<T, 3, 5, 5>(p, launch) ||
                          launch_if_size<T, 5, 5, 5>(p, launch) || launch_if_size<T, 7, 7, 7>(p, launch) ||
                          launch_if_size<T, 1, 3, 3>(p, launch) || launch_if_size<T, 3, 1, 1>(p, launch);
  if (!fixed_size) launch(smem_tile_kernel<T, 0, 0, 0, false>);
}

}  // namespace

std::string v3_smem_tile_accepts(const ConvProblem& p) {
  if (std::string why = common_refusal(p); !why.empty()) return why;
  if (p.x_layout() != Layout::ncdhw) return std::string("expected a dense ncdhw input, but got ") + layout_name(p.x_layout());
  if (p.y_layout() != Layout::ncdhw) return std::string("expected a dense ncdhw output, but got ") + layout_name(p.y_layout());
  if (!choose_tile(p)) {
    double bytes = 0;
    make_tile(p, 1, 1, 1, &bytes);
    return "expected the smallest tile (1x" + std::to_string(kRows) + "x" + std::to_string(kCols) +
           " outputs, its input halo and filter) to fit the " + std::to_string(kSmemBudgetBytes / 1024) +
           " KB shared-memory budget, but it needs " + std::to_string(std::llround(bytes / 1024)) +
           " KB for this filter size, stride and dilation";
  }
  return "";
}

void v3_smem_tile_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  if (p.y_numel() == 0) return;
  dispatch_element_type(p.dtype, "dw_v3_smem_tile", [&](auto tag) { launch_typed<typename decltype(tag)::type>(p, a, s); });
}

}  // namespace kforge::depthwise
