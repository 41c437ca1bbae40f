// dw_v5_mma_pipelined: the pipelined tensor-core depthwise conv (mma.sync m16n8k16, fp32 accumulation).
// A CTA owns one (n, k) channel x a tile of the output plane (the whole plane when it fits) x a chunk of output
// depths, and streams the input depth slices through a ring of kStages shared-memory stages that cp.async fills
// kStages-1 slices ahead, so the HBM reads of later slices overlap the MMAs of the current one. With
// stride_d == dilation_d == 1, input slice z feeds output depth z + pad_d - t through filter depth t, so every A
// fragment read from a slice serves T MMAs (one per filter depth) into T rotating accumulator sets: T times fewer
// shared-memory reads than v4's one-output-depth-at-a-time loop.
// Operands (dw_toeplitz.cuh): units of P output rows x 8/P columns, 16 units per MMA in any arrangement (so partial
// planes waste little). P = 2 when S + pad_w % 2 <= 5 and stride_h == dilation_h: one MMA applies two filter rows,
// floor(R/2)+1 steps per filter depth instead of R. A fragments: four LDS.32 per M-tile and step (a window may start
// on any even column; the row pitch is picked by counting bank wavefronts); B fragments: built once per CTA.
// Evokernel (P = 2, T = 3, R = 5): 9 MMAs per 128 outputs; per slice and M-tile-step 4 LDS wavefronts feed 3 MMAs.
// Limits: bf16/f16; x and y dense NCDHW; stride_w == dilation_w == 1; stride_d == dilation_d == 1 (v4 covers the
// rest); T <= kMaxT; S + pad_w % 2 <= 9; one tile row of units and its slice ring fit kSmemBudget.
#include <algorithm>
#include <array>

#include "depthwise/dw_common.cuh"
#include "depthwise/dw_toeplitz.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {
namespace {

using namespace toeplitz;

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kStages = 4;  // 3 slices in flight per CTA: with 2 CTAs per SM, ~60 KB of loads in flight per SM
constexpr int kMaxT = 7;
// Two CTAs per SM on A100 (164 KB) and H100/H200 (228 KB).
constexpr int64_t kSmemBudget = 80 * 1024;
constexpr uint32_t kNoUnit = 0xffffffffu;

// M-tiles per warp, by P and T: T sets x MT tiles x 4 fp32 accumulators plus 4 offset registers per tile, the
// largest MT that ptxas fits in the 128 registers of 2 CTAs per SM without spilling (P = 1 at T = 3, 4 needs
// one tile less than P = 2).
__host__ __device__ constexpr int m_tiles_per_warp(int P, int T) {
  constexpr int kP1[kMaxT + 1] = {0, 4, 4, 3, 2, 2, 2, 1};
  constexpr int kP2[kMaxT + 1] = {0, 4, 4, 4, 3, 2, 2, 1};
  return P == 1 ? kP1[T] : kP2[T];
}

struct Plan {
  int P = 1;            // output rows per unit
  int col_units = 0;    // units across the tile: col_units * 8/P output columns
  int row_units = 0;    // units down the tile: row_units * P output rows
  int units = 0;        // col_units * row_units; 0 when the problem is refused
  int m_tiles = 0;      // ceil(units / 16)
  int steps = 0;        // MMAs per filter depth and M-tile
  int col_shift = 0;    // pad_w % 2: every K window starts on an even staged column
  int64_t left_margin = 0;  // staged columns left of the tile's first output column: a multiple of 8 >= pad_w + shift
  int window0 = 0;      // staged column of the K window of a unit at tile column 0: left_margin - pad_w - col_shift
  int row_stride = 0;   // staged elements between consecutive output rows: stride_h * pitch
  int rows_in = 0, cols_in = 0, pitch = 0;  // one staged slice; cols_in is a multiple of 8
  int64_t row_tiles = 0, col_tiles = 0, depth_chunks = 0, chunk_depths = 0;

  __host__ __device__ int slice_elems() const { return rows_in * pitch; }
  size_t smem_bytes(int64_t T) const {
    return static_cast<size_t>(kStages * slice_elems() * 2 + T * steps * 32 * int64_t(sizeof(uint2)));
  }
  // Tile position of unit u's first output, and the staged offset of its K window (kr = 0, step 0).
  __host__ __device__ int unit_row(int u) const { return u / col_units * P; }
  __host__ __device__ int unit_col(int u) const { return u % col_units * (8 / P); }
  __host__ __device__ int unit_window(int u) const { return unit_row(u) * row_stride + unit_col(u) + window0; }
};

// Shared-memory wavefronts of one slice's A-fragment loads: in each LDS.32, lane (g, q) reads word
// unit_window(u_g) / 2 + q of the 8 units u_g of a half M-tile, and a bank serves one distinct word per wavefront.
// Steps, registers and stages shift every address alike, so this pattern decides the bank conflicts.
int64_t a_load_wavefronts(const Plan& plan) {
  int64_t total = 0;
  for (int first = 0; first < plan.m_tiles * 16; first += 8) {
    std::array<std::array<int, 32>, 32> words{};
    std::array<int, 32> count{};
    for (int g = 0; g < 8; ++g) {
      const int u = first + g < plan.units ? first + g : 0;  // the kernel points missing units at unit 0
      for (int q = 0; q < 4; ++q) {
        const int word = plan.unit_window(u) / 2 + q, bank = word % 32;
        const auto end = words[bank].begin() + count[bank];
        if (std::find(words[bank].begin(), end, word) == end) words[bank][count[bank]++] = word;
      }
    }
    total += *std::max_element(count.begin(), count.end());
  }
  return total;
}

// Tile geometry for row_units x col_units units; units == 0 when the slice ring does not fit kSmemBudget.
Plan tile_plan(const ConvProblem& p, int P, int row_units, int col_units) {
  Plan plan;
  plan.P = P;
  plan.col_units = col_units;
  plan.row_units = row_units;
  plan.col_shift = static_cast<int>(p.pad_lo[2] % 2);
  plan.left_margin = ceil_div(p.pad_lo[2] + plan.col_shift, 8) * 8;
  plan.window0 = static_cast<int>(plan.left_margin - p.pad_lo[2] - plan.col_shift);
  plan.cols_in = static_cast<int>(ceil_div(int64_t(col_units - 1) * (8 / P) + plan.window0 + 16 / P, 8) * 8);
  const int64_t steps = P == 2 ? RowPacking<2>::steps(p.R) : RowPacking<1>::steps(p.R);
  // In double first: absurd strides or dilations must refuse, not overflow.
  const double rows_needed = double(row_units - 1) * P * p.stride[1] + double(P * steps - 1) * p.dilation[1] + 1;
  const double b_bytes = double(p.T) * steps * 32 * sizeof(uint2);
  if (rows_needed * plan.cols_in * 2 * kStages + b_bytes > kSmemBudget) return plan;
  const int64_t rows_in = static_cast<int64_t>(rows_needed);
  const int64_t max_pitch = (kSmemBudget - static_cast<int64_t>(b_bytes)) / (rows_in * 2 * kStages) / 8 * 8;
  plan.steps = static_cast<int>(steps);
  plan.rows_in = static_cast<int>(rows_in);
  plan.units = row_units * col_units;
  plan.m_tiles = static_cast<int>(ceil_div(plan.units, 16));
  int64_t best = -1;
  for (int64_t pitch = plan.cols_in; pitch < plan.cols_in + 64 && pitch <= max_pitch; pitch += 8) {
    Plan candidate = plan;
    candidate.pitch = static_cast<int>(pitch);
    candidate.row_stride = static_cast<int>(p.stride[1] * pitch);
    const int64_t wavefronts = a_load_wavefronts(candidate);
    if (best < 0 || wavefronts < best) best = wavefronts, plan = candidate;
  }
  return plan;
}

// The largest balanced tile (whole rows of units first) whose slice ring fits, and the depth chunks per channel
// tile that minimize the slices the busiest of `sm_count` SMs streams (0: one chunk). A chunk of L outputs streams
// L + T - 1 slices, so splitting only pays when the CTAs would leave SMs idle.
Plan plan_for(const ConvProblem& p, int64_t sm_count) {
  const int shift = static_cast<int>(p.pad_lo[2] % 2);
  const int P = p.Ho >= 2 && p.stride[1] == p.dilation[1] && p.S <= RowPacking<2>::max_filter_width(shift) ? 2 : 1;
  if (p.S > RowPacking<1>::max_filter_width(shift) || p.T > kMaxT) return {};
  const int unit_cols = 8 / P, col_align = 8 / unit_cols;  // units per 8 columns: tile starts stay 16-byte aligned
  const int64_t capacity = int64_t(kWarps) * m_tiles_per_warp(P, static_cast<int>(p.T)) * 16;
  const int64_t across = ceil_div(p.Wo, unit_cols), down = ceil_div(p.Ho, P);
  int64_t col_units = across;
  if (across > capacity) col_units = ceil_div(ceil_div(across, ceil_div(across, capacity)), col_align) * col_align;
  int64_t row_units = std::min(down, capacity / col_units);
  Plan plan;
  for (;;) {
    row_units = ceil_div(down, ceil_div(down, row_units));  // same tile count, evenly split
    plan = tile_plan(p, P, static_cast<int>(row_units), static_cast<int>(col_units));
    if (plan.units > 0) break;
    if (row_units > 1) {
      row_units = ceil_div(row_units, 2);
    } else if (col_units > col_align) {
      col_units = ceil_div(ceil_div(col_units, 2), col_align) * col_align;
    } else {
      return plan;
    }
  }
  plan.row_tiles = ceil_div(down, row_units);
  plan.col_tiles = ceil_div(across, col_units);
  const int64_t ctas = p.N * p.K * plan.row_tiles * plan.col_tiles;
  plan.chunk_depths = p.Do;
  for (int64_t chunks = 2; sm_count > 0 && chunks <= std::min<int64_t>(p.Do, 64); ++chunks) {
    const int64_t length = ceil_div(p.Do, chunks), best = plan.chunk_depths;
    const auto busiest = [&](int64_t len) { return ceil_div(ctas * ceil_div(p.Do, len), sm_count) * (len + p.T - 1); };
    if (busiest(length) < busiest(best)) plan.chunk_depths = length;
  }
  plan.depth_chunks = ceil_div(p.Do, plan.chunk_depths);
  return plan;
}

__device__ __forceinline__ void cp_async_16(void* smem_dst, const void* gmem_src, bool valid) {
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(smem_dst));
  // src-size 0 zero-fills the 16 bytes without reading: the padding and the margins of the tile.
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending)); }

// 32-bit shared-memory load at a shared-window byte address (kept in registers: no generic-to-shared conversions
// in the MMA loop). Volatile: the stage it reads is rewritten by cp.async between barriers.
__device__ __forceinline__ uint32_t lds32(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}

// Stages input rows ih0.. and columns iw0.. of one depth slice (x_slice: its (0, 0) element), zero outside the
// input. `vector_loads`: iw0 and W are multiples of 8 and x is 16-byte aligned, so every 8-column chunk is wholly
// inside or outside the input and goes by one cp.async; otherwise element by element (synchronous).
__device__ __forceinline__ void stage_slice(uint16_t* __restrict__ dst, const uint16_t* __restrict__ x_slice,
                                            const Geometry& g, const Plan& plan, int64_t ih0, int64_t iw0,
                                            bool vector_loads) {
  const int width = vector_loads ? plan.cols_in / 8 : plan.cols_in;
  for (int idx = threadIdx.x; idx < plan.rows_in * width; idx += kThreads) {
    const int row = idx / width;
    const int64_t ih = ih0 + row;
    const bool row_in = ih >= 0 && ih < g.H;
    if (vector_loads) {
      const int col = 8 * (idx % width);
      const int64_t iw = iw0 + col;
      const bool in = row_in && iw >= 0 && iw < g.W;
      cp_async_16(dst + row * plan.pitch + col, in ? x_slice + ih * g.xs[3] + iw : x_slice, in);
    } else {
      const int col = idx % width;
      const int64_t iw = iw0 + col;
      dst[row * plan.pitch + col] = row_in && iw >= 0 && iw < g.W ? x_slice[ih * g.xs[3] + iw] : uint16_t(0);
    }
  }
}

// grid.x: (channel n*K + k, depth chunk, row tile, column tile), column tile fastest.
// Dynamic shared memory: kStages staged slices, then the channel's B fragments [t][step][lane].
template <typename E, int P, int T>
__global__ void __launch_bounds__(kThreads, 2)
pipelined_kernel(const Geometry g, const Plan plan, const uint16_t* __restrict__ x, const uint16_t* __restrict__ w,
                 const E* __restrict__ bias, E* __restrict__ y, bool vector_loads, bool paired_stores) {
  constexpr int MT = m_tiles_per_warp(P, T);
  extern __shared__ uint4 smem_words[];
  uint16_t* stages = reinterpret_cast<uint16_t*>(smem_words);
  uint2* b_frags = reinterpret_cast<uint2*>(stages + kStages * plan.slice_elems());

  int64_t cta = blockIdx.x;
  const int64_t col_tile = cta % plan.col_tiles;
  cta /= plan.col_tiles;
  const int64_t row_tile = cta % plan.row_tiles;
  cta /= plan.row_tiles;
  const int64_t depth_chunk = cta % plan.depth_chunks;
  const int64_t n = cta / plan.depth_chunks / g.K, k = cta / plan.depth_chunks % g.K;
  const uint16_t* x_plane = x + n * g.xs[0] + k / g.multiplier * g.xs[1];
  const uint16_t* w_k = w + k * g.ws[0];
  E* y_plane = y + n * g.ys[0] + k * g.ys[1];
  const float bias_k = bias ? to_float(bias[k]) : 0.f;

  // Broadcast so the compiler sees the warp index as warp-uniform: the M-tile checks become uniform branches.
  const int warp = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 32), 0), lane = threadIdx.x % 32;
  const int64_t h0 = row_tile * plan.row_units * P;              // first output row of the tile
  const int64_t w0 = col_tile * plan.col_units * (8 / P);        // first output column
  const int64_t ih0 = h0 * g.stride[1] - g.pad_lo[1];            // input row of staged row 0
  const int64_t iw0 = w0 - plan.left_margin;                     // input column of staged column 0
  const int64_t o0 = depth_chunk * plan.chunk_depths;            // first output depth of the chunk
  const int outputs = static_cast<int>(std::min(plan.chunk_depths, g.Do - o0));
  const int64_t z0 = o0 - g.pad_lo[0];                           // input depth of slice 0
  const int slices = outputs + T - 1;

  for (int idx = threadIdx.x; idx < T * plan.steps * 32; idx += kThreads) {
    const int step = idx / 32 % plan.steps, t = idx / 32 / plan.steps;
    b_frags[idx] =
        toeplitz_b_fragment<P>(w_k + t * g.ws[2], g.ws[3], g.ws[4], step, plan.col_shift, g.R, g.S, idx % 32);
  }

  // Lane (g, q) of M-tile i feeds A rows g and g+8: units 16*(warp + kWarps*i) + {0, 8} + g, window columns 2q, 2q+1.
  uint32_t a_offset[MT][2];  // bytes into a stage
  uint32_t unit_pos[MT][2];  // (tile row << 16 | tile column) of the unit's first output, kNoUnit past the tile
#pragma unroll
  for (int i = 0; i < MT; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int u = 16 * (warp + kWarps * i) + 8 * h + lane_group(lane);
      const bool real = u < plan.units;
      a_offset[i][h] = 2 * (plan.unit_window(real ? u : 0) + 2 * lane_quad(lane));
      unit_pos[i][h] = real ? uint32_t(plan.unit_row(u)) << 16 | uint32_t(plan.unit_col(u)) : kNoUnit;
    }
  }
  // A registers 2 and 3 hold K elements 8..15: 8 columns further (P = 1) or the next filter row (P = 2). In bytes.
  const uint32_t a_high = 2 * (P == 1 ? 8 : static_cast<uint32_t>(g.dilation[1]) * plan.pitch);
  const uint32_t step_bytes = 2 * P * static_cast<uint32_t>(g.dilation[1]) * plan.pitch;
  const uint32_t stages_addr = static_cast<uint32_t>(__cvta_generic_to_shared(stages));
  const uint32_t slice_bytes = 2 * plan.slice_elems();

  auto stage = [&](int j) {
    const int64_t z = z0 + j;
    if (z >= 0 && z < g.D) {
      stage_slice(stages + j % kStages * plan.slice_elems(), x_plane + z * g.xs[2], g, plan, ih0, iw0, vector_loads);
    }
  };
  for (int j = 0; j < kStages - 1; ++j) {
    if (j < slices) stage(j);
    cp_async_commit();  // one group per slice, empty or not, keeps the wait_group count exact
  }

  float acc[T][MT][4] = {};
  for (int j0 = 0; j0 < slices; j0 += T) {
    // Unrolled by T so that accumulator set (output depth o0 + q lives in set q % T) indices are compile-time.
#pragma unroll
    for (int u = 0; u < T; ++u) {
      const int j = j0 + u;  // slice j: input depth z0 + j, feeding output o0 + j - t through filter depth t
      if (j >= slices) break;
      cp_async_wait<kStages - 2>();  // this thread's copies of slice j have landed
      __syncthreads();               // everyone's have; and stage (j - 1) % kStages is no longer read
      if (j + kStages - 1 < slices) stage(j + kStages - 1);
      cp_async_commit();

      const int64_t z = z0 + j;
      if (z >= 0 && z < g.D) {  // depth padding contributes zero
        const uint32_t slice = stages_addr + j % kStages * slice_bytes;
        for (int step = 0; step < plan.steps; ++step) {
          uint2 b[T];
#pragma unroll
          for (int t = 0; t < T; ++t) b[t] = b_frags[(t * plan.steps + step) * 32 + lane];
          const uint32_t a_step = slice + step * step_bytes;
          // All loads first, so their latency overlaps; then T MMAs per M-tile. Filter depths that reach an output
          // outside the chunk (the first and last T-1 slices) run anyway: such a product lands in the set of an
          // output that is not live and is cleared before that set is used (below), and skipping it would put a
          // predicate, hence a warp re-convergence, on every MMA.
          uint32_t a[MT][4];
#pragma unroll
          for (int i = 0; i < MT; ++i) {
            if (warp + kWarps * i < plan.m_tiles) {
              a[i][0] = lds32(a_step + a_offset[i][0]);
              a[i][1] = lds32(a_step + a_offset[i][1]);
              a[i][2] = lds32(a_step + a_offset[i][0] + a_high);
              a[i][3] = lds32(a_step + a_offset[i][1] + a_high);
            }
          }
#pragma unroll
          for (int i = 0; i < MT; ++i) {
            if (warp + kWarps * i < plan.m_tiles) {
#pragma unroll
              for (int t = 0; t < T; ++t) mma_m16n8k16<E>(acc[(u - t + T) % T][i], a[i], b[t]);
            }
          }
        }
      }

      // Output q = j - (T-1) has seen its last filter depth: store it (when it exists) and clear its set, which
      // output q + T starts to use at slice j + 1. Before that, only products for outputs q' < 0 or >= outputs
      // (not live) may have landed in the set.
      float(&done)[MT][4] = acc[(u + 1) % T];
      const bool store = j >= T - 1;
      {
        E* y_depth = y_plane + (o0 + j - (T - 1)) * g.ys[2];
        // C values 2h, 2h+1 of M-tile i: unit row g + 8h, unit outputs n = 2q, 2q+1 (same output row).
        const int oh = 2 * lane_quad(lane) / (8 / P), ow = 2 * lane_quad(lane) % (8 / P);
#pragma unroll
        for (int i = 0; i < MT; ++i) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const uint32_t pos = unit_pos[i][h];
            const int64_t row = h0 + (pos >> 16) + oh;
            if (store && pos != kNoUnit && row < g.Ho) {
              store_output_pair(y_depth + row * g.ys[3], w0 + (pos & 0xffff) + ow, g.Wo, done[i][2 * h] + bias_k,
                                done[i][2 * h + 1] + bias_k, paired_stores);
            }
            done[i][2 * h] = done[i][2 * h + 1] = 0.f;
          }
        }
      }
    }
  }
}

template <typename E, int P, int T = 1>
void launch_depth(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  if constexpr (T < kMaxT) {
    if (p.T != T) return launch_depth<E, P, T + 1>(p, a, s);
  }
  const Plan plan = plan_for(p, current_sm_count());
  KF_CHECK(plan.units > 0 && plan.P == P, "dw_v5_mma_pipelined: launched on a problem its accepts() refuses");
  auto kernel = pipelined_kernel<E, P, T>;
  const size_t smem = plan.smem_bytes(T);
  allow_dynamic_smem(kernel, smem);
  // cp.async of 8-column chunks needs W % 8 == 0 (iw0 already is a multiple of 8) and a 16-byte aligned x.
  const bool vector_loads = p.W % 8 == 0 && is_aligned(a.x, 16);
  const bool paired_stores = p.Wo % 2 == 0 && is_aligned(a.y, 4);
  const int64_t ctas = p.N * p.K * plan.depth_chunks * plan.row_tiles * plan.col_tiles;
  kernel<<<static_cast<unsigned>(ctas), kThreads, smem, s>>>(
      make_geometry(p), plan, static_cast<const uint16_t*>(a.x), static_cast<const uint16_t*>(a.w),
      p.has_bias ? static_cast<const E*>(a.bias) : nullptr, static_cast<E*>(a.y), vector_loads, paired_stores);
  KF_LAUNCH_CHECK();
}

}  // namespace

std::string v5_mma_pipelined_accepts(const ConvProblem& p) {
  if (std::string why = toeplitz_refusal(p); !why.empty()) return why;
  if (p.stride[0] != 1 || p.dilation[0] != 1) {
    return "expected stride_d == 1 and dilation_d == 1 (one input slice feeds T consecutive output depths), but got "
           "stride_d=" + std::to_string(p.stride[0]) + ", dilation_d=" + std::to_string(p.dilation[0]);
  }
  if (p.T > kMaxT) {
    return "expected T <= " + std::to_string(kMaxT) + " (one register accumulator set per filter depth), but got T=" +
           std::to_string(p.T);
  }
  const int shift = static_cast<int>(p.pad_lo[2] % 2);
  if (p.S > RowPacking<1>::max_filter_width(shift)) {
    return "expected S <= " + std::to_string(RowPacking<1>::max_filter_width(shift)) +
           " (8 outputs + S - 1 inputs in a 16-column window starting on an even column), but got S=" +
           std::to_string(p.S) + " with pad_w=" + std::to_string(p.pad_lo[2]);
  }
  const Plan plan = plan_for(p, 0);
  if (plan.units == 0) {
    return "expected " + std::to_string(kStages) + " input slices of one row of units to fit " +
           std::to_string(kSmemBudget / 1024) + " KB of shared memory, but stride_h=" + std::to_string(p.stride[1]) +
           ", dilation_h=" + std::to_string(p.dilation[1]) + ", R=" + std::to_string(p.R) + " need more";
  }
  const int64_t ctas = p.N * p.K * plan.depth_chunks * plan.row_tiles * plan.col_tiles;
  if (ctas > 0x7fffffff) return "expected at most 2^31-1 CTAs, but the problem needs " + std::to_string(ctas);
  return "";
}

void v5_mma_pipelined_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  if (p.y_numel() == 0) return;
  dispatch_mma_element_type(p.dtype, "dw_v5_mma_pipelined", [&](auto tag) {
    using E = typename decltype(tag)::type;
    if (plan_for(p, 0).P == 2) return launch_depth<E, 2>(p, a, s);  // the tile plan picks the row packing
    launch_depth<E, 1>(p, a, s);
  });
}

}  // namespace kforge::depthwise
