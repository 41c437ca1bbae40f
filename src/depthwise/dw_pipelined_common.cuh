// Definitions shared by the parts of the pipelined depthwise kernel (dw_pipelined.cuh, dw_hoisted.cuh): the CTA
// shape, the tile plan and its host functions (defined in dw_v5_mma_pipelined.cu), cp.async and shared-memory
// access helpers. Limits: see dw_pipelined.cuh.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>

#include "depthwise/dw_common.cuh"
#include "depthwise/dw_toeplitz.cuh"

namespace kforge::depthwise::pipelined {

using namespace toeplitz;

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kStages = 4;  // 3 slices in flight per CTA: with 2 CTAs per SM, ~60 KB of loads in flight per SM
constexpr int kMaxT = 7;
constexpr uint32_t kNoUnit = 0xffffffffu;
// v12-v14: B fragments live in registers (2 per (step, filter depth)), so they take T <= 3 and at most 3 steps.
constexpr int kMaxSlidingT = 3, kMaxSlidingSteps = 3;
constexpr int kSlivers = kWarps * 8;  // v12-v14: one sliver per lane group of each warp

// What the instantiations of the kernel differ in; a kernel template argument by PolicyId.
enum class PolicyId {
  v5_pipelined, v6_hoisted, v7_occupancy, v8_lean, v9_tma, v10_decoupled, v11_persistent, v12_sliding,
  v13_shared_quads, v14_one_block
};
struct Policy {
  bool hoisted;         // per-CTA bookkeeping (dw_hoisted.cuh) instead of v5's per-slice bookkeeping
  int ctas_per_sm;      // __launch_bounds__: at most 64K / (kThreads * ctas_per_sm) registers per thread
  int64_t smem_budget;  // dynamic shared memory per CTA: the slice ring and the B fragments
  // M-tiles per warp by [P - 1][T]: T sets x MT tiles x 4 fp32 accumulators plus 4 offset registers per tile, the
  // largest MT that ptxas fits in the registers of ctas_per_sm CTAs without spilling.
  int m_tiles[2][kMaxT + 1];
  bool lean = false;    // v8: accumulator sets start at the bias in their first MMA, step loop unrolled
  bool tma = false;     // v9: slices staged by one TMA box each (one thread; zeros outside the input)
  bool decoupled = false;  // v10: stages released by per-stage mbarriers instead of a CTA barrier per slice
  bool persistent = false;  // v11: ctas_per_sm CTAs per SM, each streams an equal share of the work (CtaWork)
  bool sliding = false;     // v12-v14: M-tiles stacked down slivers, A rows reused across steps, B in registers
  bool shared_quads = false;  // v13, v14: an M-tile's halves half a sliver apart, so its A quads are its neighbours'
  bool all_tiles_block = false;  // v14: a warp with all its M-tiles runs a slice's MMAs as one basic block
  __host__ __device__ constexpr int m_tiles_per_warp(int P, int T) const { return m_tiles[P - 1][T]; }
};

__host__ __device__ constexpr Policy policy_of(PolicyId id) {
  // v7: 3 CTAs per SM on H100/H200 (3 x (72 + 1 reserved) KB <= 228 KB, 80 registers); 2 on A100 (164 KB).
  if (id == PolicyId::v7_occupancy) return {true, 3, 72 * 1024, {{0, 4, 3, 2, 2, 1, 1, 1}, {0, 4, 3, 2, 2, 1, 1, 1}}};
  // v5, v6, v8-v14: 2 CTAs per SM on A100 (164 KB) and H100/H200 (228 KB), 128 registers (P = 1 at T = 3, 4 needs one
  // tile less than P = 2). v12 (T <= 3) fits 4 M-tiles with 8 A registers live (v9: 16) and 18 of B (v9: 6); v13
  // and v14 with 12 A registers live (kSteps quads).
  return {id != PolicyId::v5_pipelined, 2, 80 * 1024, {{0, 4, 4, 3, 2, 2, 2, 1}, {0, 4, 4, 4, 3, 2, 2, 1}},
          id >= PolicyId::v8_lean, id >= PolicyId::v9_tma, id == PolicyId::v10_decoupled,
          id == PolicyId::v11_persistent, id >= PolicyId::v12_sliding, id >= PolicyId::v13_shared_quads,
          id == PolicyId::v14_one_block};
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
  int stage_elems = 0;  // elements between stages: rows_in * pitch, rounded up to 128 bytes for TMA destinations
  int64_t row_tiles = 0, col_tiles = 0, depth_chunks = 0, chunk_depths = 0;
  int64_t ctas = 0;     // the grid: one CTA per (channel, depth chunk, tile); v11: at most ctas_per_sm per SM
  int64_t items = 0;    // v11: channel tiles x Do, the (tile, output depth) pairs its CTAs share
  int b_buffers = 1;    // v11: 2, so a CTA builds the next segment's B fragments while its warps finish the last
  // v12-v14: the tile is sliver_blocks blocks of sliver_rows unit rows; a sliver is one unit column of a block, and
  // lane group g of warp w takes sliver 8w + g (block-major, column fastest). 0: units in M-tile order (v5-v11).
  int sliver_rows = 0, sliver_blocks = 0;
  // v12-v14: sliver rows between M-tile i's A rows 0-7 and 8-15. v12: 1 (M-tile i is rows 2i and 2i + 1); v13, v14:
  // sliver_rows / 2 (rows i and i + sliver_rows / 2).
  int half_rows = 1;

  size_t smem_bytes(int64_t T) const;  // below ProducerState
  // Tile position of unit u's first output, and the staged offset of its K window (kr = 0, step 0).
  __host__ __device__ int unit_row(int u) const { return u / col_units * P; }
  __host__ __device__ int unit_col(int u) const { return u % col_units * (8 / P); }
  __host__ __device__ int unit_window(int u) const { return unit_row(u) * row_stride + unit_col(u) + window0; }
  // The unit in A row 8h + g of the warp's M-tile i, or -1 past the tile. v5-v11: units 16 (warp + kWarps i) on, in
  // order. v12: M-tile i covers unit rows 2i (A rows 0-7) and 2i + 1 (rows 8-15) of the lane groups' slivers, so
  // the A rows of M-tile i at step s + 1 are those of M-tile i's rows + 1 at step s: each input row is loaded once.
  // v13, v14: rows i and i + half_rows, so M-tile i's A operand at step s + 1 is M-tile i + 1's at step s, whole.
  // Kernels pass their policy's kSliding (no branch on sliver_rows in v5-v11's code); host code calls unit_of.
  template <bool kSliding>
  __host__ __device__ int unit_of(int warp, int i, int h, int g) const {
    if constexpr (!kSliding) {
      const int u = 16 * (warp + kWarps * i) + 8 * h + g;
      return u < units ? u : -1;
    }
    const int in_sliver = half_rows == 1 ? 2 * i + h : i + h * half_rows;
    const int sliver = 8 * warp + g, row = sliver / col_units * sliver_rows + in_sliver;
    const bool real = sliver < sliver_blocks * col_units && i < sliver_rows / 2 && row < row_units;
    return real ? row * col_units + sliver % col_units : -1;
  }
  __host__ __device__ int unit_of(int warp, int i, int h, int g) const {
    return sliver_rows > 0 ? unit_of<true>(warp, i, h, g) : unit_of<false>(warp, i, h, g);
  }
};

// v9-v11: the TMA producer's position (dw_pipelined.cuh), one thread's state kept in shared memory, after the
// mbarriers (dynamic shared memory: a static __shared__ variable would shift the dynamic region off the 128-byte
// alignment TMA destinations need).
struct ProducerState {
  int64_t col_tile, row_tile, n, k;  // the segment's tile (tile_index)
  int64_t outputs_left;              // outputs of the CTA's later segments
  int box[4];                        // the next slice's box: input column, row, depth, N*C plane (x_map's order)
  int slices_left;                   // slices of this segment not yet loaded
  uint32_t produced;                 // slices loaded so far
};

// The ring, the B fragments, v9-v11's mbarriers (full and empty per stage) and the producer's state.
inline size_t Plan::smem_bytes(int64_t T) const {
  return static_cast<size_t>(kStages * stage_elems * 2 + b_buffers * T * steps * 32 * int64_t(sizeof(uint2)) +
                             2 * kStages * int64_t(sizeof(uint64_t)) + int64_t(sizeof(ProducerState)));
}

// A run of consecutive output depths of one channel tile (tile_index's enumeration with depth_chunks == 1, or a CTA's
// index and chunk): what a CTA streams as outputs + T - 1 depth slices.
struct Segment {
  int64_t cta;  // tile_index's index
  int64_t o0;   // first output depth
  int outputs;
};

// The segments of one CTA, as items cta_index * Do + output depth. v5-v10: one, the CTA's depth chunk. v11: CTA b of
// G takes items [b * I / G, (b + 1) * I / G) of the I = tiles * Do items, cut where a tile ends; every SM then streams
// the same number of outputs (within one), at T - 1 extra slices per segment. Host-callable (a CPU test walks it).
class CtaWork {
 public:
  __host__ __device__ CtaWork(const Plan& plan, int64_t Do, int64_t cta, bool persistent) {
    if (persistent) {  // plan.depth_chunks == 1: items enumerate (tile, output depth)
      next_ = cta * plan.items / plan.ctas, end_ = (cta + 1) * plan.items / plan.ctas;
    } else {
      const Segment only = only_segment(plan, Do, cta);
      next_ = cta * Do + only.o0, end_ = next_ + only.outputs;
    }
  }
  __host__ __device__ bool done() const { return next_ >= end_; }
  __host__ __device__ Segment segment(int64_t Do) const {
    const int64_t o0 = next_ % Do, left = end_ - next_;
    return {next_ / Do, o0, static_cast<int>(Do - o0 < left ? Do - o0 : left)};
  }
  // The outputs after segment s (the current one); the next segment is then the next tile's first outputs.
  __host__ __device__ int64_t left_after(const Segment& s) const { return end_ - next_ - s.outputs; }
  // v5-v10's segment, without segment()'s 64-bit divisions.
  __host__ __device__ static Segment only_segment(const Plan& plan, int64_t Do, int64_t cta) {
    const int64_t o0 = cta / (plan.col_tiles * plan.row_tiles) % plan.depth_chunks * plan.chunk_depths;
    return {cta, o0, static_cast<int>(o0 + plan.chunk_depths < Do ? plan.chunk_depths : Do - o0)};
  }
  __host__ __device__ void advance(const Segment& s) { next_ += s.outputs; }

 private:
  int64_t next_, end_;
};

// The tile plan of `policy` for `sm_count` SMs (0: no depth chunks); units == 0 when the problem does not fit.
Plan plan_for(const ConvProblem& p, int64_t sm_count, const Policy& policy);
// plan_for, computed once per (problem, SM count, policy) and process: the search costs ~0.1 ms of host time.
Plan cached_plan(const ConvProblem& p, int64_t sm_count, PolicyId policy);
// Shared-memory wavefronts of one slice's A-fragment loads (the bank-conflict count the pitch search minimizes).
int64_t a_load_wavefronts(const Plan& plan);
// The refusals of the policy's kernel (v5 and v6: the same problems): "" when it computes p.
std::string pipelined_refusal(const ConvProblem& p, PolicyId policy);

// ---- cp.async and shared-memory access ----

__device__ __forceinline__ void cp_async_16(void* smem_dst, const void* gmem_src, bool valid) {
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(smem_dst));
  // src-size 0 zero-fills the 16 bytes without reading: the padding and the margins of the tile.
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src), "r"(valid ? 16 : 0));
}
// Copies 16 bytes when bit 0 of `copy` is set; predicated in PTX, so no branch (and no warp re-convergence).
__device__ __forceinline__ void cp_async_16_if(uint32_t copy, uint32_t smem_addr, uint64_t gmem_addr) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %0, 0;\n @p cp.async.cg.shared.global [%1], [%2], 16;\n}\n" ::"r"(copy & 1u),
      "r"(smem_addr), "l"(gmem_addr));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending)); }

// 32- and 64-bit shared-memory loads at a shared-window byte address (kept in registers: no generic-to-shared
// conversions in the MMA loop). Volatile: the stage they read is rewritten by cp.async between barriers.
__device__ __forceinline__ uint32_t lds32(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}
__device__ __forceinline__ uint2 lds64(uint32_t addr) {
  uint2 v;
  asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(v.x), "=r"(v.y) : "r"(addr));
  return v;
}

// ---- v9, v10: TMA slices and their mbarriers (sm_90) ----

__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals));
}
// Makes the initialized barriers visible to the TMA unit (the async proxy).
__device__ __forceinline__ void fence_barrier_init() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::);
#endif
}
// One thread: the barrier's arrival for this phase, which then completes once `bytes` have landed (whole boxes,
// zero-filled parts included).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
#endif
}
// Shared address `dst` (128-byte aligned) <- the box of `map` at (x0, x1, x2, x3), counted on barrier `bar`. x0 must
// be a multiple of 16 bytes' worth of elements, negative or not (else the TMA unit faults: illegal instruction).
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int x0, int x1, int x2,
                                            int x3) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];\n" ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(x0), "r"(x1), "r"(x2), "r"(x3), "r"(bar)
      : "memory");
#endif
}
// One arrival on barrier `bar` (a warp's lane 0: "this warp is done with the stage").
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
#endif
}
// Waits until barrier `bar` completes the phase of parity `parity`.
__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n .reg .pred done;\n wait:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait;\n}\n" ::"r"(bar), "r"(parity) : "memory");
#endif
}

}  // namespace kforge::depthwise::pipelined
