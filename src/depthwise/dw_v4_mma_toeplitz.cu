// dw_v4_mma_toeplitz: depthwise conv on tensor cores (mma.sync m16n8k16, fp32 accumulation), one output depth at
// a time. For each filter row (t, r), 16 output rows x a 16-column input window (A, ldmatrix from a shared-memory
// input slice) times the Toeplitz band of the row's S taps (B, 16 x 8, dw_toeplitz.cuh with P = 1) gives 16 output
// rows x 8 output columns; all T*R filter rows accumulate into the same fp32 fragment.
// CTA: one (n, k) channel x 16*warps output rows (one 16-row M-tile per warp) x 8*n_tiles output columns x
// kDepthsPerCta output depths. Per output depth it stages the T input slices it reads (rows with the h halo; staged
// column 0 is input column w0 - pad_w, so n-tile j's window starts at the 16-byte aligned column 8j), a group of
// slices at a time, then runs the MMAs. Neighbouring n-tiles share an 8-column block of A, so a warp loads each
// 16x8 block once per (t, r) with ldmatrix.x2: 256 B of shared-memory reads per MMA, i.e. 2*T*R B per output.
// Limits: bf16/f16; x and y dense NCDHW; stride_w == dilation_w == 1; S <= 9; any T, R, N, depth multiplier and any
// stride/dilation/padding in d and h, while one input slice of a 16 x 8 output tile fits kSmemBudget.
#include <algorithm>

#include "depthwise/dw_common.cuh"
#include "depthwise/dw_toeplitz.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {
namespace {

using namespace toeplitz;

constexpr int kMaxWarps = 4;    // 16-row M-tiles per CTA
constexpr int kMaxNTiles = 8;   // 8-column n-tiles per warp: 4 fp32 accumulators each
constexpr int64_t kDepthsPerCta = 4;
// Below the 48 KB no-opt-in limit: small CTAs, many per SM, so one CTA's loads overlap another's MMAs.
constexpr int64_t kSmemBudget = 48 * 1024;

struct Plan {
  int warps = 1;            // M-tiles (16 output rows each) per CTA
  int n_tiles = 1;          // 8-column n-tiles per CTA
  int rows_in = 0;          // staged input rows: the CTA's rows with the h halo
  int cols_in = 0;          // staged input columns: 8 * (n_tiles + 1)
  int pitch = 0;            // elements between staged rows
  int slices_per_group = 0; // input slices (filter depths) staged at once; 0 when even one does not fit
  int64_t row_tiles = 0, col_tiles = 0, depth_chunks = 0;

  __host__ __device__ int64_t slice_elems() const { return int64_t(rows_in) * pitch; }
  size_t smem_bytes(int64_t R) const {
    return static_cast<size_t>(slices_per_group * (slice_elems() * 2 + R * 32 * int64_t(sizeof(uint2))));
  }
};

Plan make_plan(const ConvProblem& p, int warps, int n_tiles) {
  Plan plan;
  plan.warps = warps;
  plan.n_tiles = n_tiles;
  plan.row_tiles = ceil_div(p.Ho, 16 * warps);
  plan.col_tiles = ceil_div(p.Wo, 8 * n_tiles);
  plan.depth_chunks = ceil_div(p.Do, kDepthsPerCta);
  plan.cols_in = 8 * (n_tiles + 1);
  // ldmatrix reads 8 rows of 16 B; a pitch of an odd number of 16-byte chunks puts them in 8 different 16-byte
  // bank groups (when stride_h is odd).
  plan.pitch = plan.cols_in + ((plan.cols_in / 8) % 2 == 0 ? 8 : 0);
  // In double: absurd strides, dilations or R must refuse, not overflow.
  const double rows_in = double(16 * warps - 1) * p.stride[1] + double(p.R - 1) * p.dilation[1] + 1;
  const double bytes_per_slice = rows_in * plan.pitch * 2 + double(p.R) * 32 * sizeof(uint2);
  if (bytes_per_slice <= kSmemBudget) {
    plan.rows_in = static_cast<int>(rows_in);
    plan.slices_per_group = static_cast<int>(std::min<int64_t>(p.T, kSmemBudget / int64_t(bytes_per_slice)));
  }
  return plan;
}

// Balanced tiles: as few row and column tiles as the per-CTA maxima allow, split evenly; smaller CTAs only when a
// slice of the balanced tile does not fit the budget (large stride_h, dilation_h or R).
Plan plan_for(const ConvProblem& p) {
  const int64_t m_tiles = ceil_div(p.Ho, 16), n_total = ceil_div(p.Wo, 8);
  const int warps = static_cast<int>(ceil_div(m_tiles, ceil_div(m_tiles, kMaxWarps)));
  const int n_tiles = static_cast<int>(ceil_div(n_total, ceil_div(n_total, kMaxNTiles)));
  Plan plan = make_plan(p, warps, n_tiles);
  if (plan.slices_per_group == 0) plan = make_plan(p, 1, n_tiles);
  if (plan.slices_per_group == 0) plan = make_plan(p, 1, 1);
  return plan;
}

__device__ __forceinline__ void ldmatrix_x2(uint32_t (&frag)[2], const uint16_t* smem_row) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem_row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(frag[0]), "=r"(frag[1]) : "r"(addr));
}

// Stages input rows ih0.. and columns iw0.. of one depth slice (x_slice: its (0, 0) element), zero outside the
// input. `paired`: iw0 and W are even and x is 4-byte aligned, so every column pair is wholly inside or outside.
__device__ __forceinline__ void stage_slice(uint16_t* __restrict__ dst, const uint16_t* __restrict__ x_slice,
                                            const Geometry& g, const Plan& plan, int64_t ih0, int64_t iw0,
                                            bool paired) {
  const int width = paired ? plan.cols_in / 2 : plan.cols_in;
  for (int idx = threadIdx.x; idx < plan.rows_in * width; idx += blockDim.x) {
    const int row = idx / width;
    const int64_t ih = ih0 + row;
    const bool row_in = ih >= 0 && ih < g.H;
    if (paired) {
      const int col = 2 * (idx % width);
      const int64_t iw = iw0 + col;
      uint32_t v = 0;
      if (row_in && iw >= 0 && iw < g.W) v = *reinterpret_cast<const uint32_t*>(x_slice + ih * g.xs[3] + iw);
      *reinterpret_cast<uint32_t*>(dst + row * plan.pitch + col) = v;
    } else {
      const int col = idx % width;
      const int64_t iw = iw0 + col;
      dst[row * plan.pitch + col] = row_in && iw >= 0 && iw < g.W ? x_slice[ih * g.xs[3] + iw] : uint16_t(0);
    }
  }
}

// grid.x: (channel n*K + k, depth chunk, row tile, column tile), column tile fastest. block: plan.warps warps.
// Dynamic shared memory: slices_per_group staged slices, then their B fragments [slice][r][lane].
template <typename E>
__global__ void __launch_bounds__(kMaxWarps * 32, 1)
toeplitz_kernel(const Geometry g, const Plan plan, const uint16_t* __restrict__ x, const uint16_t* __restrict__ w,
                const E* __restrict__ bias, E* __restrict__ y, bool paired_loads, bool paired_stores) {
  extern __shared__ uint4 smem_words[];
  const int slice_elems = static_cast<int>(plan.slice_elems());
  uint16_t* slices = reinterpret_cast<uint16_t*>(smem_words);
  uint2* b_frags = reinterpret_cast<uint2*>(slices + plan.slices_per_group * slice_elems);

  const auto [col_tile, row_tile, depth_chunk, n, k, x_plane, w_k, y_plane, bias_k] =
      channel_tile(g, plan, x, w, bias, y);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t h0 = row_tile * 16 * plan.warps;       // first output row of the CTA
  const int64_t w0 = col_tile * 8 * plan.n_tiles;      // first output column
  const int64_t ih0 = h0 * g.stride[1] - g.pad_lo[1];  // input row of staged row 0
  const int64_t iw0 = w0 - g.pad_lo[2];                // input column of staged column 0
  // ldmatrix.x2: lanes 0-15 address the rows of its two 8x8 matrices, output rows 0-7 and 8-15 of the warp's
  // M-tile; lanes 16-31 repeat them (ignored, but valid addresses).
  const int a_row_offset = (warp * 16 + lane % 16) * static_cast<int>(g.stride[1]) * plan.pitch;
  const int filter_row_step = static_cast<int>(g.dilation[1]) * plan.pitch;

  const int64_t od_end = std::min(g.Do, (depth_chunk + 1) * kDepthsPerCta);
  for (int64_t od = depth_chunk * kDepthsPerCta; od < od_end; ++od) {
    float acc[kMaxNTiles][4] = {};
    for (int64_t t0 = 0; t0 < g.T; t0 += plan.slices_per_group) {
      const int group = static_cast<int>(std::min<int64_t>(plan.slices_per_group, g.T - t0));
      __syncthreads();  // every warp is done reading the previous group
      for (int i = 0; i < group; ++i) {
        const int64_t id = od * g.stride[0] - g.pad_lo[0] + (t0 + i) * g.dilation[0];
        if (id >= 0 && id < g.D) {
          stage_slice(slices + i * slice_elems, x_plane + id * g.xs[2], g, plan, ih0, iw0, paired_loads);
        }
      }
      for (int idx = threadIdx.x; idx < group * g.R * 32; idx += blockDim.x) {
        const int64_t r = idx / 32 % g.R, i = idx / 32 / g.R;
        b_frags[idx] = toeplitz_b_fragment<1>(w_k + (t0 + i) * g.ws[2], g.ws[3], g.ws[4], static_cast<int>(r), 0,
                                              g.R, g.S, idx % 32);
      }
      __syncthreads();
      for (int i = 0; i < group; ++i) {
        const int64_t id = od * g.stride[0] - g.pad_lo[0] + (t0 + i) * g.dilation[0];
        if (id < 0 || id >= g.D) continue;  // depth padding contributes zero
        const uint16_t* a_slice = slices + i * slice_elems + a_row_offset;
        for (int r = 0; r < g.R; ++r) {
          const uint2 b = b_frags[(i * g.R + r) * 32 + lane];
          const uint16_t* a_rows = a_slice + r * filter_row_step;
          uint32_t block_lo[2], block_hi[2];
          ldmatrix_x2(block_lo, a_rows);
#pragma unroll
          for (int j = 0; j < kMaxNTiles; ++j) {
            if (j < plan.n_tiles) {
              // n-tile j's window is 8-column blocks j and j+1: A registers {rows 0-7, rows 8-15} x {block j, j+1}.
              ldmatrix_x2(block_hi, a_rows + 8 * (j + 1));
              const uint32_t a[4] = {block_lo[0], block_lo[1], block_hi[0], block_hi[1]};
              mma_m16n8k16<E>(acc[j], a, b);
              block_lo[0] = block_hi[0], block_lo[1] = block_hi[1];
            }
          }
        }
      }
    }
    // C fragment: value v of n-tile j is output row g + 8*(v >> 1) of the M-tile, column 8j + 2q + (v & 1).
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int64_t oh = h0 + warp * 16 + lane_group(lane) + 8 * half;
      if (oh >= g.Ho) continue;
      E* y_row = y_plane + od * g.ys[2] + oh * g.ys[3];
#pragma unroll
      for (int j = 0; j < kMaxNTiles; ++j) {
        if (j < plan.n_tiles) {
          store_output_pair(y_row, w0 + 8 * j + 2 * lane_quad(lane), g.Wo, acc[j][2 * half] + bias_k,
                            acc[j][2 * half + 1] + bias_k, paired_stores);
        }
      }
    }
  }
}

}  // namespace

std::string v4_mma_toeplitz_accepts(const ConvProblem& p) {
  if (std::string why = toeplitz_refusal(p); !why.empty()) return why;
  if (p.S > RowPacking<1>::max_filter_width(0)) {
    return "expected a filter width S <= 9 (8 outputs + S - 1 inputs in a 16-column window), but got S=" +
           std::to_string(p.S);
  }
  const Plan plan = plan_for(p);
  if (plan.slices_per_group == 0) {
    return "expected one input slice of a 16x8 output tile to fit " + std::to_string(kSmemBudget / 1024) +
           " KB of shared memory, but stride_h=" + std::to_string(p.stride[1]) + ", dilation_h=" +
           std::to_string(p.dilation[1]) + ", R=" + std::to_string(p.R) + " need more";
  }
  const int64_t ctas = p.N * p.K * plan.depth_chunks * plan.row_tiles * plan.col_tiles;
  if (ctas > 0x7fffffff) return "expected at most 2^31-1 CTAs, but the problem needs " + std::to_string(ctas);
  return "";
}

void v4_mma_toeplitz_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  if (p.y_numel() == 0) return;
  const Plan plan = plan_for(p);
  KF_CHECK(plan.slices_per_group > 0, "dw_v4_mma_toeplitz: launched on a problem its accepts() refuses");
  dispatch_mma_element_type(p.dtype, "dw_v4_mma_toeplitz", [&](auto tag) {
    using E = typename decltype(tag)::type;
    // 32-bit staging needs whole column pairs: an even first input column (w0 is a multiple of 8), even W, and a
    // 4-byte aligned x; paired stores need even Wo and a 4-byte aligned y.
    const bool paired_loads = p.pad_lo[2] % 2 == 0 && p.W % 2 == 0 && is_aligned(a.x, 4);
    const bool paired_stores = p.Wo % 2 == 0 && is_aligned(a.y, 4);
    const int64_t ctas = p.N * p.K * plan.depth_chunks * plan.row_tiles * plan.col_tiles;
    toeplitz_kernel<E><<<static_cast<unsigned>(ctas), plan.warps * 32, plan.smem_bytes(p.R), s>>>(
        make_geometry(p), plan, static_cast<const uint16_t*>(a.x), static_cast<const uint16_t*>(a.w),
        p.has_bias ? static_cast<const E*>(a.bias) : nullptr, static_cast<E*>(a.y), paired_loads, paired_stores);
    KF_LAUNCH_CHECK();
  });
}

}  // namespace kforge::depthwise
