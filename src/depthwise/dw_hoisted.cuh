// The hoisted policies' parts of the pipelined kernel (dw_pipelined.cuh, v6 and v7): everything a CTA can
// compute once because its tile is the same for every depth slice, and the lean per-slice code that uses it.
//   staging:  ChunkGrid (host) and ChunkGridStager: each thread's 16-byte chunk positions, offsets and inside-the-
//             input masks; a slice adds its base. Padding chunks are zeroed once per stage (zero_stages).
//   MMAs:     hoisted_slice_mmas: per-lane A addresses rebased once per slice, warp-uniform step offsets.
//   epilogue: output_pairs: each output pair's plane offset with its bounds folded in; hoisted_store_and_reset.
// Limits: 16-byte chunks (W % 8 == 0, x 16-byte aligned) and output depth planes of < 2^31 elements; the rest of
// dw_pipelined.cuh's.
#pragma once

#include <algorithm>
#include <cstdint>

#include "depthwise/dw_pipelined_common.cuh"

namespace kforge::depthwise::pipelined {

// ---- staging ----

// How a CTA covers the rows_in x cols_in/8 grid of 16-byte chunks of a slice: in blocks of rows_per_pass x
// cols_per_pass chunks, one chunk per thread and block (threads past rows_per_pass * cols_per_pass idle), so a
// thread's chunks differ by block offsets that are the same for every thread. Computed on the host (a kernel
// parameter: no registers). The budgets (<= 80 KB) bound the blocks by 10 rows and 5 columns; the masks hold 16.
struct ChunkGrid {
  int cols_per_pass = 0, rows_per_pass = 0, row_blocks = 0, col_blocks = 0;
  uint32_t smem_row_step = 0;  // bytes between row blocks in a stage
  int64_t gmem_row_step = 0;   // bytes between row blocks in a depth slice
  static constexpr int kMaxBlocks = 16;

  ChunkGrid() = default;
  ChunkGrid(const Plan& plan, const ConvProblem& p) {
    const int width = plan.cols_in / 8;
    cols_per_pass = std::min(width, kThreads);
    rows_per_pass = kThreads / cols_per_pass;
    row_blocks = (plan.rows_in + rows_per_pass - 1) / rows_per_pass;
    col_blocks = (width + cols_per_pass - 1) / cols_per_pass;
    smem_row_step = 2u * static_cast<uint32_t>(rows_per_pass * plan.pitch);
    gmem_row_step = 2 * rows_per_pass * p.x_strides[3];
  }
};

// One thread's share of the staging. The tile is the same for every slice, so the thread's chunk position,
// offsets and inside-the-input masks are computed once per CTA; a slice adds its base and copies only the chunks
// inside the input (the others were zeroed once, in every stage, and nothing writes them again). Addresses are
// integers until a chunk is known to be inside the input. Host-callable, so it can be checked on the CPU.
class ChunkGridStager {
 public:
  __host__ __device__ ChunkGridStager(const Geometry& g, const Plan& plan, const ChunkGrid& grid, int64_t ih0,
                                      int64_t iw0, int thread) {
    const int tr = thread / grid.cols_per_pass, tc = thread % grid.cols_per_pass;
    for (int rb = 0; rb < grid.row_blocks; ++rb) {
      const int row = tr + rb * grid.rows_per_pass;
      const int64_t ih = ih0 + row;
      if (tr < grid.rows_per_pass && row < plan.rows_in && ih >= 0 && ih < g.H) in_mask_ |= 1u << rb;
    }
    for (int cb = 0; cb < grid.col_blocks; ++cb) {
      const int col = tc + cb * grid.cols_per_pass;
      const int64_t iw = iw0 + 8 * col;
      if (col < plan.cols_in / 8 && iw >= 0 && iw < g.W) in_mask_ |= 1u << (ChunkGrid::kMaxBlocks + cb);
    }
    smem_base_ = 2u * static_cast<uint32_t>(tr * plan.pitch + 8 * tc);
    gmem_base_ = 2 * static_cast<uint64_t>((ih0 + tr) * g.xs[3] + iw0 + 8 * tc);  // modulo 2^64, like an address
  }

  // Calls copy(in, smem, gmem) for each of the thread's chunks of the depth slice at global address `slice` (its
  // (0, 0) element) and the stage at shared address `stage`: bit 0 of `in` set when the chunk lies in the input.
  template <typename Copy>
  __host__ __device__ void for_each_chunk(uint32_t stage, uint64_t slice, const ChunkGrid& grid, Copy&& copy) const {
    uint32_t smem_row = stage + smem_base_;
    uint64_t gmem_row = slice + gmem_base_;
    const uint32_t col_in = in_mask_ >> ChunkGrid::kMaxBlocks;
    if (grid.col_blocks == 1) {  // rows of at most kThreads chunks: one chunk per row block
#pragma unroll 1
      for (int rb = 0; rb < grid.row_blocks; ++rb, smem_row += grid.smem_row_step, gmem_row += grid.gmem_row_step) {
        copy(in_mask_ >> rb & col_in, smem_row, gmem_row);
      }
      return;
    }
    for (int rb = 0; rb < grid.row_blocks; ++rb, smem_row += grid.smem_row_step, gmem_row += grid.gmem_row_step) {
#pragma unroll 1
      for (int cb = 0; cb < grid.col_blocks; ++cb) {
        const uint32_t cols = static_cast<uint32_t>(cb * grid.cols_per_pass);
        copy(in_mask_ >> rb & col_in >> cb, smem_row + 16 * cols, gmem_row + 16 * cols);
      }
    }
  }

 private:
  uint32_t in_mask_ = 0;  // bit rb: the thread's chunks in row block rb lie in the input rows; bit 16 + cb: columns
  uint32_t smem_base_;    // the thread's chunk of block (0, 0): byte offset in a stage
  uint64_t gmem_base_;    // and in a depth slice
};

// Zeroes `count` stages from `stage` on (16-byte stores). Before cp.async writes the same stage: a barrier between.
__device__ __forceinline__ void zero_stages(uint16_t* stage, const Plan& plan, int count = kStages) {
  uint4* words = reinterpret_cast<uint4*>(stage);
  for (int i = threadIdx.x; i < count * plan.stage_elems / 8; i += kThreads) words[i] = make_uint4(0, 0, 0, 0);
}
__device__ __forceinline__ void zero_stage(uint16_t* stage, const Plan& plan) { zero_stages(stage, plan, 1); }

// ---- the MMAs of one slice ----

// One step of slice u's MMAs (u = j mod T, a compile-time index in the caller's unrolled loop): its product with
// filter depth t goes to accumulator set (u - t) mod T. All loads first so their latency overlaps, then T MMAs per
// M-tile. kFresh (v8, v9: step 0): set u belongs to an output that starts with this slice (filter depth 0), so its
// MMA adds the bias instead of the set's stale contents (the set of the output stored last slice): no resets.
template <typename E, bool kFresh, int T, int MT>
__device__ __forceinline__ void hoisted_step_mmas(float (&acc)[T][MT][4], int u, const uint32_t (&a_addr)[MT][2],
                                                  uint32_t low, uint32_t high, uint32_t b_step, int warp_tiles,
                                                  const float (&bias)[4]) {
  constexpr uint32_t kBBytes = 32 * sizeof(uint2);  // one B fragment of the warp
  uint2 b[T];
#pragma unroll
  for (int t = 0; t < T; ++t) b[t] = lds64(b_step + t * kBBytes);
  uint32_t a[MT][4];
#pragma unroll
  for (int i = 0; i < MT; ++i) {
    if (i < warp_tiles) {
      a[i][0] = lds32(a_addr[i][0] + low);
      a[i][1] = lds32(a_addr[i][1] + low);
      a[i][2] = lds32(a_addr[i][0] + high);
      a[i][3] = lds32(a_addr[i][1] + high);
    }
  }
#pragma unroll
  for (int i = 0; i < MT; ++i) {
    if (i < warp_tiles) {
#pragma unroll
      for (int t = 0; t < T; ++t) {
        float(&d)[4] = acc[(u - t + T) % T][i];
        if (kFresh && t == 0) {
          mma_m16n8k16<E>(d, a[i], b[t], bias);
        } else {
          mma_m16n8k16<E>(d, a[i], b[t]);
        }
      }
    }
  }
}

// Slice j's MMAs, step by step. Each lane keeps its A addresses (a_addr = its stage offsets + a_base, a_base
// warp-uniform), rebased once per slice; a step adds warp-uniform offsets, which ptxas folds into the loads
// ([R + UR]). B fragments are [step][t][lane], so a step's T loads sit at fixed offsets from one address.
// warp_tiles: the M-tiles this warp computes (16*(warp + kWarps*i) < units). kLean (v8, v9): step 0 starts the
// fresh set at the bias (hoisted_step_mmas) and the other steps are unrolled (v6: one loop, ~14 instructions of
// loop control per 12 MMAs at T = 3).
template <typename E, bool kLean, int T, int MT>
__device__ __forceinline__ void hoisted_slice_mmas(float (&acc)[T][MT][4], int u, uint32_t slice,
                                                   uint32_t (&a_addr)[MT][2], uint32_t& a_base, uint32_t a_high,
                                                   uint32_t step_bytes, uint32_t b_lane, int steps, int warp_tiles,
                                                   const float (&bias)[4]) {
  constexpr uint32_t kStepBBytes = T * 32 * sizeof(uint2);
#pragma unroll
  for (int i = 0; i < MT; ++i) a_addr[i][0] += slice - a_base, a_addr[i][1] += slice - a_base;
  a_base = slice;
  if constexpr (kLean) {
    hoisted_step_mmas<E, true>(acc, u, a_addr, 0, a_high, b_lane, warp_tiles, bias);
#pragma unroll 3
    for (int step = 1; step < steps; ++step) {
      hoisted_step_mmas<E, false>(acc, u, a_addr, step * step_bytes, step * step_bytes + a_high,
                                  b_lane + step * kStepBBytes, warp_tiles, bias);
    }
  } else {
    for (int step = 0; step < steps; ++step) {
      hoisted_step_mmas<E, false>(acc, u, a_addr, step * step_bytes, step * step_bytes + a_high,
                                  b_lane + step * kStepBBytes, warp_tiles, bias);
    }
  }
}

// v12: slice u's MMAs with the A rows of the warp's slivers loaded once. Lane (g, q) reads, for each unit row r of
// its sliver (r = 0 .. 2 tiles + kSteps - 2, step_bytes apart: stride_h == dilation_h), the low and high K halves
// lo[r], hi[r] (a_high further); M-tile i at step s is then rows 2i + s (A rows 0-7) and 2i + 1 + s (rows 8-15):
// 2 (2 tiles + kSteps - 1) loads per slice where v9 issues 4 tiles kSteps. b[step][t]: the B fragments, in
// registers. M-tile by M-tile, each loading the rows its predecessor did not, so no more than kSteps + 1 rows are
// live and ptxas interleaves the next tile's loads with this tile's MMAs. tiles: the M-tiles this warp computes
// (warp-uniform). The set of output u starts at the bias (step 0, t = 0).
template <typename E, int T, int MT, int kSteps>
__device__ __forceinline__ void sliding_slice_mmas(float (&acc)[T][MT][4], int u, uint32_t a_lane, uint32_t a_high,
                                                   uint32_t step_bytes, const uint2 (&b)[kSteps][T], int tiles,
                                                   const float (&bias)[4]) {
  uint32_t lo[2 * MT + kSteps - 1], hi[2 * MT + kSteps - 1];
#pragma unroll
  for (int i = 0; i < MT; ++i) {
    if (i < tiles) {
#pragma unroll
      for (int r = i == 0 ? 0 : 2 * i + kSteps - 1; r <= 2 * i + kSteps; ++r) {
        lo[r] = lds32(a_lane + r * step_bytes);
        hi[r] = lds32(a_lane + r * step_bytes + a_high);
      }
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        const uint32_t a[4] = {lo[2 * i + s], lo[2 * i + 1 + s], hi[2 * i + s], hi[2 * i + 1 + s]};
#pragma unroll
        for (int t = 0; t < T; ++t) {
          float(&d)[4] = acc[(u - t + T) % T][i];
          if (s == 0 && t == 0) {
            mma_m16n8k16<E>(d, a, b[s][t], bias);
          } else {
            mma_m16n8k16<E>(d, a, b[s][t]);
          }
        }
      }
    }
  }
}

// v13: slice u's MMAs with M-tile i made of sliver rows i (A rows 0-7) and i + half_rows (rows 8-15, a_half bytes
// further). Its A operand at step s is then quad i + s: rows i + s and i + s + half_rows, low and high K halves,
// which is also M-tile i + 1's at step s - 1, so each quad is loaded once (4 LDS.32; 4 (tiles + kSteps - 1) per
// slice, v12: 2 (2 tiles + kSteps - 1)) and fed to the MMAs as the four registers it was loaded into: v12's
// sliding rows move to a new A position at every step, which cost ptxas ~2 register moves per MMA. M-tile by M-tile,
// each loading the one quad its predecessor did not, so kSteps quads are live. kAllTiles (v14: the warp computes all
// MT M-tiles, tiles == MT): no branch per M-tile, so the slice is one basic block and ptxas may interleave the
// M-tiles' MMA chains (v13: each M-tile's 3 chains of kSteps dependent MMAs, a block of their own).
template <typename E, bool kAllTiles, int T, int MT, int kSteps>
__device__ __forceinline__ void shared_quad_slice_mmas(float (&acc)[T][MT][4], int u, uint32_t a_lane,
                                                       uint32_t a_half, uint32_t a_high, uint32_t step_bytes,
                                                       const uint2 (&b)[kSteps][T], int tiles,
                                                       const float (&bias)[4]) {
  uint32_t quad[MT + kSteps - 1][4];
  const uint32_t a_lane_low = a_lane + a_half;  // the lane's row of A rows 8-15
#pragma unroll
  for (int i = 0; i < MT; ++i) {
    if (kAllTiles || i < tiles) {
#pragma unroll
      for (int k = i == 0 ? 0 : i + kSteps - 1; k <= i + kSteps - 1; ++k) {
        quad[k][0] = lds32(a_lane + k * step_bytes);
        quad[k][1] = lds32(a_lane_low + k * step_bytes);
        quad[k][2] = lds32(a_lane + k * step_bytes + a_high);
        quad[k][3] = lds32(a_lane_low + k * step_bytes + a_high);
      }
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
#pragma unroll
        for (int t = 0; t < T; ++t) {
          float(&d)[4] = acc[(u - t + T) % T][i];
          if (s == 0 && t == 0) {
            mma_m16n8k16<E>(d, quad[i + s], b[s][t], bias);
          } else {
            mma_m16n8k16<E>(d, quad[i + s], b[s][t]);
          }
        }
      }
    }
  }
}

// ---- epilogue ----

// Each output pair's offset in an output depth plane (lane maps as in dw_pipelined.cuh's direct_store_and_clear),
// computed once per CTA with its bounds folded in: kNoPair when its first output is outside the output, bit 31 set
// when only the first one is inside (unpaired stores only). Output depth planes have < 2^31 elements
// (launcher-checked), so bit 31 is free. Host-callable, so it can be checked on the CPU.
constexpr uint32_t kNoPair = 0xffffffffu, kFirstOnly = 0x80000000u;

template <int P, int MT, bool kSliding>
__host__ __device__ inline void output_pairs(uint32_t (&offset)[MT][2], const Geometry& g, const Plan& plan, int warp,
                                             int lane, int64_t h0, int64_t w0) {
  const int oh = 2 * lane_quad(lane) / (8 / P), ow = 2 * lane_quad(lane) % (8 / P);
#pragma unroll
  for (int i = 0; i < MT; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int u = plan.unit_of<kSliding>(warp, i, h, lane_group(lane));
      const int64_t row = h0 + (u >= 0 ? plan.unit_row(u) : 0) + oh;
      const int64_t col = w0 + (u >= 0 ? plan.unit_col(u) : 0) + ow;
      const uint32_t at = static_cast<uint32_t>(row * g.ys[3] + col);
      offset[i][h] = u < 0 || row >= g.Ho || col >= g.Wo ? kNoPair : col + 1 < g.Wo ? at : at | kFirstOnly;
    }
  }
}

// Restarts an accumulator set at the bias.
template <int MT>
__device__ __forceinline__ void reset_set(float (&set)[MT][4], float bias) {
#pragma unroll
  for (int i = 0; i < MT; ++i) {
#pragma unroll
    for (int v = 0; v < 4; ++v) set[i][v] = bias;
  }
}

// Output depth q leaves its accumulator set: stores it (when `store`) to output depth plane y_depth and, when
// kReset (v6, v7), restarts it at the bias (the sets start there, so no add per output; v8 starts them in the
// first MMA instead). Paired stores: Wo is even, so a pair is wholly in or out.
template <typename E, int MT, bool kReset>
__device__ __forceinline__ void hoisted_store_and_reset(float (&done)[MT][4], E* y_depth, bool store,
                                                        const uint32_t (&offset)[MT][2], float bias,
                                                        bool paired_stores) {
  if (store && paired_stores) {
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (offset[i][h] != kNoPair) {
          *reinterpret_cast<Pair<E>*>(y_depth + offset[i][h]) = pack_pair<E>(done[i][2 * h], done[i][2 * h + 1]);
        }
      }
    }
  } else if (store) {
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (offset[i][h] == kNoPair) continue;
        E* first = y_depth + (offset[i][h] & ~kFirstOnly);
        first[0] = from_float<E>(done[i][2 * h]);
        if (!(offset[i][h] & kFirstOnly)) first[1] = from_float<E>(done[i][2 * h + 1]);
      }
    }
  }
  if constexpr (kReset) reset_set(done, bias);
}

}  // namespace kforge::depthwise::pipelined
