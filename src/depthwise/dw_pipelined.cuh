// The depth-streaming tensor-core depthwise kernel of dw_v5_mma_pipelined .. dw_v14_mma_one_block (one Policy
// each, dw_pipelined_common.cuh): mma.sync m16n8k16, fp32 accumulation, operands from dw_toeplitz.cuh.
// A CTA owns one (n, k) channel x a tile of the output plane (the whole plane when it fits) x a chunk of output
// depths, and streams the input depth slices through a ring of kStages shared-memory stages filled kStages-1
// slices ahead (cp.async; v9: one TMA box per slice). With stride_d == dilation_d == 1, input slice z feeds output
// depth z + pad_d - t through filter depth t, so every A fragment read from a slice serves T MMAs into T rotating
// accumulator sets.
// The variants differ only in the bookkeeping around the MMAs: v5 re-derives every chunk's and every output's
// position for each slice (stage_slice, its MMA loop, direct_store_and_clear, below); v6 computes them once per CTA
// (dw_hoisted.cuh). v7 is v6 with fewer M-tiles per warp and a smaller shared-memory budget, for 3 CTAs per SM; v8
// is v6 with the accumulator resets folded into the first MMA and the step loop unrolled; v9 is v8 staged by TMA;
// v10 is v9 with per-stage mbarriers instead of a CTA barrier per slice; v11 is v9 on a persistent grid whose CTAs
// stream several segments (CtaWork) each; v12 is v9 with its M-tiles stacked down slivers of the tile (Plan::unit_of),
// so each input row is loaded once per slice, and its B fragments in registers (sliding_slice_mmas); v13 is v12 with
// each M-tile's halves half a sliver apart, so each A quad is loaded once and used as loaded (shared_quad_slice_mmas);
// v14 is v13 with a warp's slice in one basic block, on plans where each warp computes all its M-tiles or none.
// v5's code is kept as measured (its SASS was checked unchanged when v6 was added). Since v12, Plan's sliver fields
// shift the kernels' parameter offsets and unit_of<false> adds a few setup instructions to v5-v11: v9 measured the
// same before and after (0.156-0.157 ms on evokernel).
// Limits: bf16/f16; x and y dense NCDHW; stride_w == dilation_w == 1; stride_d == dilation_d == 1; T <= kMaxT;
// S + pad_w % 2 <= 9; one tile row of units and its slice ring fit the policy's smem_budget (pipelined_refusal).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "core/tensor_map.hpp"
#include "depthwise/dw_hoisted.cuh"

#include "depthwise/dw_pipelined_common.cuh"

namespace kforge::depthwise::pipelined {

// ---- v5's per-slice staging and epilogue ----

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

// Output depth q leaves its accumulator set: stores it (when `store`) to output depth plane y_depth from each
// unit's packed tile position (unit_pos: tile row << 16 | tile column, kNoUnit past the tile), bounds-checked in
// 64 bits, and clears it. C values 2h, 2h+1 of M-tile i of lane (g, q): unit 16*(warp + kWarps*i) + 8h + g, unit
// outputs n = 2q, 2q+1 (same output row oh = 2q / (8/P), columns ow, ow + 1 with ow = 2q % (8/P)).
template <typename E, int P, int MT>
__device__ __forceinline__ void direct_store_and_clear(float (&done)[MT][4], E* y_depth, bool store,
                                                       const uint32_t (&unit_pos)[MT][2], int64_t h0, int64_t w0,
                                                       float bias, bool paired_stores, const Geometry& g, int lane) {
  const int oh = 2 * lane_quad(lane) / (8 / P), ow = 2 * lane_quad(lane) % (8 / P);
#pragma unroll
  for (int i = 0; i < MT; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const uint32_t pos = unit_pos[i][h];
      const int64_t row = h0 + (pos >> 16) + oh;
      if (store && pos != kNoUnit && row < g.Ho) {
        store_output_pair(y_depth + row * g.ys[3], w0 + (pos & 0xffff) + ow, g.Wo, done[i][2 * h] + bias,
                          done[i][2 * h + 1] + bias, paired_stores);
      }
      done[i][2 * h] = done[i][2 * h + 1] = 0.f;
    }
  }
}

// ---- the kernel ----

// grid.x: plan.ctas CTAs; CtaWork gives each its segments: v5-v10 one, (channel n*K + k, depth chunk, row tile,
// column tile) of its index, column tile fastest; v11 an equal share of the (tile, output depth) sequence.
// Dynamic shared memory: kStages staged slices, then the channel's B fragments (v5: [t][step][lane], v6: [step][t]
// [lane]; v11: two buffers, alternating by segment), then v9-v11's mbarriers. `grid`: v6's staging plan (v5 ignores
// it; last, so v5's other parameters keep their offsets).
// Lane (g, q) of M-tile i feeds A rows g and g+8 (units 16*(warp + kWarps*i) + {0, 8} + g, window columns 2q,
// 2q+1); A registers 2 and 3 hold K elements 8..15, a_high bytes further.
// kSteps: v12's steps per filter depth (its B registers), 0 for the others (plan.steps).
template <typename E, int P, int T, PolicyId kPolicy, int kSteps>
__global__ void __launch_bounds__(kThreads, policy_of(kPolicy).ctas_per_sm)
pipelined_kernel(const Geometry g, const Plan plan, const uint16_t* __restrict__ x, const uint16_t* __restrict__ w,
                 const E* __restrict__ bias, E* __restrict__ y, bool vector_loads, bool paired_stores,
                 const ChunkGrid grid, const __grid_constant__ CUtensorMap x_map) {
  constexpr bool kHoisted = policy_of(kPolicy).hoisted;
  constexpr bool kLean = policy_of(kPolicy).lean;
  constexpr bool kTma = policy_of(kPolicy).tma;
  constexpr bool kDecoupled = policy_of(kPolicy).decoupled;
  constexpr bool kPersistent = policy_of(kPolicy).persistent;
  constexpr bool kSliding = policy_of(kPolicy).sliding;
  constexpr bool kSharedQuads = policy_of(kPolicy).shared_quads;
  constexpr bool kAllTilesBlock = policy_of(kPolicy).all_tiles_block;
  static_assert(!kSliding || (kTma && kLean && !kDecoupled && !kPersistent && kSteps > 0), "v12 extends v9");
  static_assert(!kSharedQuads || kSliding, "v13 extends v12");
  static_assert(!kAllTilesBlock || kSharedQuads, "v14 extends v13");
  // Several segments per CTA need the TMA producer's walk across segment ends (below) and a CTA barrier per slice
  // (which orders each B-fragment buffer's rebuild after its last reads).
  static_assert(!kPersistent || (kTma && kLean && !kDecoupled), "v11 extends v9");
  // The thread that issues the TMA boxes: lane 0 of the last warp for v10 (warps own M-tiles warp, warp + kWarps, ..,
  // so the last warps have the fewest and can afford to wait for a stage to be released), else thread 0.
  constexpr int kProducer = kDecoupled ? kThreads - 32 : 0;
  constexpr int MT = policy_of(kPolicy).m_tiles_per_warp(P, T);
  extern __shared__ uint4 smem_words[];
  uint16_t* stages = reinterpret_cast<uint16_t*>(smem_words);
  uint2* b_buffers = reinterpret_cast<uint2*>(stages + kStages * plan.stage_elems);
  const int b_elems = T * plan.steps * 32;  // one buffer of B fragments
  // v9-v11: kStages "full" mbarriers (the slice's box has landed), then v10's kStages "empty" ones (every warp is
  // done reading the stage). Indexed by the CTA's running slice count, across segments.
  const uint32_t bars = static_cast<uint32_t>(__cvta_generic_to_shared(b_buffers + plan.b_buffers * b_elems));
  const auto full_bar = [&](uint32_t j) { return bars + 8 * (j % kStages); };
  const auto empty_bar = [&](uint32_t j) { return bars + 8 * (kStages + j % kStages); };

  // Broadcast so the compiler sees the warp index as warp-uniform: the M-tile checks become uniform branches.
  const int warp = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 32), 0), lane = threadIdx.x % 32;

  // A registers 2 and 3: 8 columns further (P = 1) or the next filter row (P = 2). In bytes.
  const uint32_t a_high = 2 * (P == 1 ? 8 : static_cast<uint32_t>(g.dilation[1]) * plan.pitch);
  uint32_t a_offset[MT][2];  // bytes into a stage (v6: plus a_base, see hoisted_slice_mmas)
  uint32_t unit_pos[MT][2];  // v5's epilogue: (tile row << 16 | tile column) of the unit's first output, or kNoUnit
#pragma unroll
  for (int i = 0; i < MT; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int u = plan.unit_of<kSliding>(warp, i, h, lane_group(lane));
      const bool real = u >= 0;
      a_offset[i][h] = 2 * (plan.unit_window(real ? u : 0) + 2 * lane_quad(lane));
      unit_pos[i][h] = real ? uint32_t(plan.unit_row(u)) << 16 | uint32_t(plan.unit_col(u)) : kNoUnit;
    }
  }
  const uint32_t step_bytes = 2 * P * static_cast<uint32_t>(g.dilation[1]) * plan.pitch;
  // v13: from an M-tile's A rows 0-7 to its rows 8-15, half_rows unit rows down (stride_h == dilation_h: a unit row
  // is a step).
  const uint32_t half_bytes = static_cast<uint32_t>(plan.half_rows) * step_bytes;
  const uint32_t stages_addr = static_cast<uint32_t>(__cvta_generic_to_shared(stages));
  const uint32_t slice_bytes = 2 * plan.stage_elems;
  uint32_t a_base = 0;
  // Where a tile's staged slice 0 starts in the input: row ih0, column iw0.
  const auto staged_origin = [&](int64_t row_tile, int64_t col_tile, int64_t& ih0, int64_t& iw0) {
    ih0 = row_tile * plan.row_units * P * g.stride[1] - g.pad_lo[1];
    iw0 = col_tile * plan.col_units * (8 / P) - plan.left_margin;
  };

  CtaWork work(plan, g.Do, blockIdx.x, kPersistent);
  // v5-v10's one segment, without segment()'s 64-bit divisions.
  const auto current_segment = [&]() {
    return kPersistent ? work.segment(g.Do) : CtaWork::only_segment(plan, g.Do, blockIdx.x);
  };

  // v9-v11: the TMA producer's position, kStages - 1 slices ahead of the consumers (v11: across segment ends, so the
  // next channel's first slices load under this one's last MMAs). One box per slice, every slice: TMA fills zeros
  // outside the input, depth padding included. One thread's state, in shared memory, out of everyone's registers;
  // moving to the next segment takes no division (it is the next tile's first outputs, CtaWork).
  ProducerState& ahead = *reinterpret_cast<ProducerState*>(b_buffers + plan.b_buffers * b_elems + 2 * kStages);
  // The producer starts a segment (o0, outputs) of the tile in ahead's tile fields.
  const auto start_segment = [&](ProducerState& at, int64_t o0, int outputs) {
    int64_t ih0, iw0;
    staged_origin(at.row_tile, at.col_tile, ih0, iw0);
    at.box[0] = static_cast<int>(iw0), at.box[1] = static_cast<int>(ih0);
    at.box[2] = static_cast<int>(o0 - g.pad_lo[0]), at.box[3] = static_cast<int>(at.n * g.C + at.k / g.multiplier);
    at.slices_left = outputs + T - 1;
  };
  const auto produce = [&]() {
    if (threadIdx.x != kProducer) return;
    ProducerState& at = ahead;
    if (at.slices_left == 0) {
      if (!kPersistent || at.outputs_left == 0) return;  // v9, v10: one segment
      if (++at.col_tile == plan.col_tiles) {  // v11's plans have one depth chunk: tiles then channels
        at.col_tile = 0;
        if (++at.row_tile == plan.row_tiles) {
          at.row_tile = 0;
          if (++at.k == g.K) at.k = 0, ++at.n;
        }
      }
      const int outputs = static_cast<int>(std::min(g.Do, at.outputs_left));
      at.outputs_left -= outputs;
      start_segment(at, 0, outputs);
    }
    const uint32_t produced = at.produced;
    // v10: the stage's previous slice, produced - kStages, must be released by every warp first.
    if (kDecoupled && produced >= kStages) mbarrier_wait(empty_bar(produced), (produced / kStages - 1) & 1);
    mbarrier_arrive_expect_tx(full_bar(produced), 2 * plan.rows_in * plan.pitch);
    tma_load_4d(stages_addr + produced % kStages * slice_bytes, &x_map, full_bar(produced), at.box[0], at.box[1],
                at.box[2], at.box[3]);
    at.produced = produced + 1;
    ++at.box[2];
    --at.slices_left;
  };
  if constexpr (kTma) {
    if (threadIdx.x == kProducer) {
      const Segment first = current_segment();
      const TileIndex tile = tile_index(g, plan, first.cta);
      ahead.col_tile = tile.col_tile, ahead.row_tile = tile.row_tile, ahead.n = tile.n, ahead.k = tile.k;
      ahead.outputs_left = work.left_after(first);
      ahead.produced = 0;
      start_segment(ahead, first.o0, first.outputs);
      for (int st = 0; st < kStages; ++st) {
        mbarrier_init(full_bar(st), 1);
        if constexpr (kDecoupled) mbarrier_init(empty_bar(st), kWarps);
      }
      fence_barrier_init();
    }
    __syncthreads();  // the barriers are initialized before anyone waits on them
    for (int j = 0; j < kStages - 1; ++j) produce();  // in flight while the B fragments are built
  } else if constexpr (kHoisted) {
    zero_stages(stages, plan);
    __syncthreads();  // the zeros land before any cp.async of another thread writes the same stage
  }

  float acc[T][MT][4];
  uint32_t consumed = 0;  // slices consumed in earlier segments: the stage and mbarrier phase of this one's slice j
  // Every CTA has at least one output (plan_for), so at least one segment; v5-v10 exactly one, which the compiler
  // sees (no loop state kept live in their registers).
  for (int segment = 0;; ++segment) {
    const Segment seg = current_segment();
    const auto [col_tile, row_tile, depth_chunk, n, k, x_plane, w_k, y_plane, bias_k] =
        channel_tile(g, plan, x, w, bias, y, seg.cta);
    const int64_t h0 = row_tile * plan.row_units * P;        // first output row of the tile
    const int64_t w0 = col_tile * plan.col_units * (8 / P);  // first output column
    int64_t ih0, iw0;                                          // input row and column of staged row 0, column 0
    staged_origin(row_tile, col_tile, ih0, iw0);
    const int64_t o0 = seg.o0;                                 // first output depth of the segment
    const int64_t z0 = o0 - g.pad_lo[0];                       // input depth of slice 0
    const int slices = seg.outputs + T - 1;

    // v11: a segment's buffer was last read two segments ago, before the CTA barriers of the last segment.
    uint2* b_frags = b_buffers + (kPersistent ? segment % 2 * b_elems : 0);
    for (int idx = threadIdx.x; idx < b_elems; idx += kThreads) {
      int step, t;
      if constexpr (kHoisted) {
        step = idx / 32 / T, t = idx / 32 % T;
      } else {
        step = idx / 32 % plan.steps, t = idx / 32 / plan.steps;
      }
      b_frags[idx] =
          toeplitz_b_fragment<P>(w_k + t * g.ws[2], g.ws[3], g.ws[4], step, plan.col_shift, g.R, g.S, idx % 32);
    }
    // v10 has no CTA barrier before its first MMAs (the others: the one of slice 0), so one here publishes B.
    if constexpr (kDecoupled || kSliding) __syncthreads();
    // v12: the warp's B fragments ([step][t][lane]) and M-tiles, and the lane's sliver top (a_offset[0][0]: the
    // unit of M-tile 0's A row g, or unit 0 for a lane group past the tile).
    uint2 b_regs[kSliding ? kSteps : 1][T];
    int sliver_tiles = 0;
    if constexpr (kSliding) {
      const uint32_t b_lane = static_cast<uint32_t>(__cvta_generic_to_shared(b_frags + lane));
#pragma unroll
      for (int st = 0; st < kSteps; ++st) {
#pragma unroll
        for (int t = 0; t < T; ++t) b_regs[st][t] = lds64(b_lane + (st * T + t) * 32 * sizeof(uint2));
      }
      sliver_tiles = plan.unit_of<true>(warp, 0, 0, 0) >= 0 ? plan.sliver_rows / 2 : 0;  // warp-uniform
    }

    // v6's per-segment state (dw_hoisted.cuh). Slices j in [j_first, j_end) hold input depths z0 + j in [0, D), the
    // others are depth padding (never staged nor multiplied); slice j starts at global address x_slices +
    // j * x_slice_bytes (integers: x_slices lies before x when z0 < 0). y_depth: output depth o0 + j - (T-1)'s plane.
    const ChunkGridStager stager(g, plan, grid, ih0, iw0, threadIdx.x);
    uint32_t pair_offset[MT][2];
    if constexpr (kHoisted) output_pairs<P, MT, kSliding>(pair_offset, g, plan, warp, lane, h0, w0);
    const int j_first = static_cast<int>(std::clamp<int64_t>(-z0, 0, slices));
    const int j_end = static_cast<int>(std::clamp<int64_t>(g.D - z0, 0, slices));
    const uint64_t x_slice_bytes = 2 * static_cast<uint64_t>(g.xs[2]);
    const uint64_t x_slices = reinterpret_cast<uint64_t>(x_plane) + static_cast<uint64_t>(z0) * x_slice_bytes;
    E* y_depth = y_plane + (o0 - (T - 1)) * g.ys[2];

    // v5-v8 (one segment): slice j by cp.async into stage j % kStages.
    auto stage = [&](int j) {
      if constexpr (kHoisted) {
        if (j >= j_first && j < j_end) {
          stager.for_each_chunk(stages_addr + j % kStages * slice_bytes, x_slices + j * x_slice_bytes, grid,
                                [](uint32_t in, uint32_t smem, uint64_t gmem) { cp_async_16_if(in, smem, gmem); });
        } else if constexpr (kLean) {
          zero_stage(stages + j % kStages * plan.stage_elems, plan);  // depth padding: MMAs with zeros (below)
        }
      } else {
        const int64_t z = z0 + j;
        if (z >= 0 && z < g.D) {
          stage_slice(stages + j % kStages * plan.stage_elems, x_plane + z * g.xs[2], g, plan, ih0, iw0, vector_loads);
        }
      }
    };
    if constexpr (!kTma) {
      for (int j = 0; j < kStages - 1; ++j) {
        if (j < slices) stage(j);
        cp_async_commit();  // one group per slice, empty or not, keeps the wait_group count exact
      }
    }

    const float bias4[4] = {bias_k, bias_k, bias_k, bias_k};  // v8: the C operand of each set's first MMA
#pragma unroll
    for (int t = 0; t < T; ++t) {
#pragma unroll
      for (int i = 0; i < MT; ++i) {
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[t][i][v] = kHoisted ? bias_k : 0.f;  // v6 folds the bias into the sets
      }
    }
    for (int j0 = 0; j0 < slices; j0 += T) {
      // Unrolled by T so that accumulator set (output depth o0 + q lives in set q % T) indices are compile-time.
#pragma unroll
      for (int u = 0; u < T; ++u) {
        const int j = j0 + u;  // slice j: input depth z0 + j, feeding output o0 + j - t through filter depth t
        if (j >= slices) break;
        const uint32_t slot = (consumed + j) % kStages;
        if constexpr (kTma) {
          mbarrier_wait(full_bar(consumed + j), ((consumed + j) / kStages) & 1);  // slice j's box has landed
        } else {
          cp_async_wait<kStages - 2>();  // this thread's copies of slice j have landed
        }
        // Everyone's have landed, and the stage of the slice before is no longer read (v10: its empty barrier says
        // so, to the producer alone; the other warps run on).
        if constexpr (!kDecoupled) __syncthreads();
        if constexpr (kTma) {
          produce();
        } else {
          if (j + kStages - 1 < slices) stage(j + kStages - 1);
          cp_async_commit();
        }

        // The MMAs of slice j (none for depth padding, it contributes zero; but v8 multiplies a zeroed stage there,
        // as its MMAs also start the accumulator sets). Per step, all loads first so their
        // latency overlaps, then T MMAs per M-tile. Filter depths that reach an output outside the segment (the
        // first and last T-1 slices) run anyway: such a product lands in the set of an output that is not live and
        // is reset before that set is used (below); skipping it would put a predicate, hence a warp re-convergence,
        // on every MMA.
        if constexpr (kSharedQuads) {
          const uint32_t a_lane = stages_addr + slot * slice_bytes + a_offset[0][0];
          if constexpr (kAllTilesBlock) {
            // v14 runs only on plans of 2 MT-row slivers (launch_pipelined): a warp has all MT M-tiles or none.
            if (sliver_tiles > 0) {  // warp-uniform
              shared_quad_slice_mmas<E, true>(acc, u, a_lane, half_bytes, a_high, step_bytes, b_regs, MT, bias4);
            }
          } else {
            shared_quad_slice_mmas<E, false>(acc, u, a_lane, half_bytes, a_high, step_bytes, b_regs, sliver_tiles,
                                             bias4);
          }
        } else if constexpr (kSliding) {
          sliding_slice_mmas<E>(acc, u, stages_addr + slot * slice_bytes + a_offset[0][0], a_high, step_bytes, b_regs,
                                sliver_tiles, bias4);
        } else if constexpr (kHoisted) {
          if (kLean || (j >= j_first && j < j_end)) {
            const uint32_t b_lane = static_cast<uint32_t>(__cvta_generic_to_shared(b_frags + lane));
            const int warp_tiles = (plan.m_tiles - warp + kWarps - 1) / kWarps;  // warp-uniform
            hoisted_slice_mmas<E, kLean>(acc, u, stages_addr + slot * slice_bytes, a_offset, a_base, a_high,
                                         step_bytes, b_lane, plan.steps, warp_tiles, bias4);
          }
          if constexpr (kDecoupled) {  // the warp's loads of slice j are done (its MMAs consumed them)
            __syncwarp();
            if (lane == 0) mbarrier_arrive(empty_bar(consumed + j));
          }
        } else {
          // Inline, not a function: as a function, ptxas schedules v5's T = 4 and T = 7 kernels differently.
          const int64_t z = z0 + j;
          if (z >= 0 && z < g.D) {
            const uint32_t slice = stages_addr + slot * slice_bytes;
            for (int step = 0; step < plan.steps; ++step) {
              uint2 b[T];
#pragma unroll
              for (int t = 0; t < T; ++t) b[t] = b_frags[(t * plan.steps + step) * 32 + lane];
              const uint32_t a_step = slice + step * step_bytes;
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
        }

        // Output q = j - (T-1) has seen its last filter depth: store it (when it exists) and reset its set, which
        // output q + T starts to use at slice j + 1. Before that, only products for outputs q' < 0 or >= outputs
        // (not live) may have landed in the set.
        if constexpr (kHoisted) {
          hoisted_store_and_reset<E, MT, !kLean>(acc[(u + 1) % T], y_depth, j >= T - 1, pair_offset, bias_k,
                                                 paired_stores);
          y_depth += g.ys[2];
        } else {
          direct_store_and_clear<E, P, MT>(acc[(u + 1) % T], y_plane + (o0 + j - (T - 1)) * g.ys[2], j >= T - 1,
                                           unit_pos, h0, w0, bias_k, paired_stores, g, lane);
        }
      }
    }
    if constexpr (!kPersistent) break;
    consumed += slices;
    work.advance(seg);
    if (work.done()) break;
  }
}

// ---- host launch ----

// v9's view of x for TMA: (W, H, D, N*C) planes of a dense NCDHW tensor, boxes of one staged slice (pitch columns
// from the tile's first staged column, rows_in rows).
inline CUtensorMap slice_map(const ConvProblem& p, const Plan& plan, const void* x) {
  const auto bytes = [](int64_t elems) { return static_cast<uint64_t>(2 * elems); };
  return tiled_map_16bit<4>(
      x, {uint64_t(p.W), uint64_t(p.H), uint64_t(p.D), uint64_t(p.N * p.C)},
      {bytes(p.x_strides[3]), bytes(p.x_strides[2]), bytes(p.x_strides[1])},
      {uint32_t(plan.pitch), uint32_t(plan.rows_in), 1u, 1u});
}

template <PolicyId kPolicy, typename E, int P, int T, int kSteps>
void launch_kernel(const ConvProblem& p, const ConvArgs& a, cudaStream_t s, const Plan& plan) {
  KF_CHECK(p.T == T && (kSteps == 0 || plan.steps == kSteps), "pipelined kernel: no instantiation for T=" +
                                                                  std::to_string(p.T) + ", " +
                                                                  std::to_string(plan.steps) + " steps");
  auto kernel = pipelined_kernel<E, P, T, kPolicy, kSteps>;
  const size_t smem = plan.smem_bytes(T);
  allow_dynamic_smem(kernel, smem);
  // cp.async of 8-column chunks needs W % 8 == 0 (iw0 already is a multiple of 8) and a 16-byte aligned x.
  const bool vector_loads = p.W % 8 == 0 && is_aligned(a.x, 16);
  const bool paired_stores = p.Wo % 2 == 0 && is_aligned(a.y, 4);
  kernel<<<static_cast<unsigned>(plan.ctas), kThreads, smem, s>>>(
      make_geometry(p), plan, static_cast<const uint16_t*>(a.x), static_cast<const uint16_t*>(a.w),
      p.has_bias ? static_cast<const E*>(a.bias) : nullptr, static_cast<E*>(a.y), vector_loads, paired_stores,
      policy_of(kPolicy).hoisted ? ChunkGrid(plan, p) : ChunkGrid(),
      policy_of(kPolicy).tma ? slice_map(p, plan, a.x) : CUtensorMap{});
  KF_LAUNCH_CHECK();
}

// v12's instantiations by steps per filter depth (its B registers).
template <PolicyId kPolicy, typename E, int P, int T, int kSteps = 1>
void launch_steps(const ConvProblem& p, const ConvArgs& a, cudaStream_t s, const Plan& plan) {
  if constexpr (kSteps < kMaxSlidingSteps) {
    if (plan.steps != kSteps) return launch_steps<kPolicy, E, P, T, kSteps + 1>(p, a, s, plan);
  }
  launch_kernel<kPolicy, E, P, T, kSteps>(p, a, s, plan);
}

// The instantiation for the filter depth T (v12: T <= kMaxSlidingT, and its steps).
template <PolicyId kPolicy, typename E, int P, int T = 1>
void launch_depth(const ConvProblem& p, const ConvArgs& a, cudaStream_t s, const Plan& plan) {
  constexpr bool kSliding = policy_of(kPolicy).sliding;
  if constexpr (T < (kSliding ? kMaxSlidingT : kMaxT)) {
    if (p.T != T) return launch_depth<kPolicy, E, P, T + 1>(p, a, s, plan);
  }
  if constexpr (kSliding) {
    launch_steps<kPolicy, E, P, T>(p, a, s, plan);
  } else {
    launch_kernel<kPolicy, E, P, T, 0>(p, a, s, plan);
  }
}

// Launches the policy's kernel with its cached plan of p; `variant` names the caller.
template <PolicyId kPolicy>
void launch_pipelined(const ConvProblem& p, const ConvArgs& a, cudaStream_t s, const char* variant) {
  if (p.y_numel() == 0) return;
  if constexpr (policy_of(kPolicy).hoisted) {
    // Hoisted policies stage 16-byte chunks and address an output depth plane with 31 bits; anything else runs
    // v5's kernel, whose plan budget accepts every problem a hoisted policy's accepts().
    const bool chunks = p.W % 8 == 0 && is_aligned(a.x, 16);
    if (!chunks || p.Ho * p.Wo > std::numeric_limits<int32_t>::max()) {
      return launch_pipelined<PolicyId::v5_pipelined>(p, a, s, variant);
    }
  }
  const Plan plan = cached_plan(p, current_sm_count(), kPolicy);
  KF_CHECK(plan.units > 0, std::string(variant) + ": launched on a problem its accepts() refuses");
  if constexpr (policy_of(kPolicy).all_tiles_block) {
    // v14's kernel is the one-block path only, which needs slivers of 2 MT unit rows; other plans (the same as
    // v13's) run v13's kernel: each accumulator gets the same MMAs in the same order.
    if (plan.sliver_rows != 2 * policy_of(kPolicy).m_tiles_per_warp(plan.P, static_cast<int>(p.T))) {
      return launch_pipelined<PolicyId::v13_shared_quads>(p, a, s, variant);
    }
  }
  if constexpr (policy_of(kPolicy).hoisted) {
    const ChunkGrid grid(plan, p);
    KF_CHECK(grid.row_blocks <= ChunkGrid::kMaxBlocks && grid.col_blocks <= ChunkGrid::kMaxBlocks,
             std::string(variant) + ": the chunk grid exceeds its masks");
  }
  dispatch_mma_element_type(p.dtype, variant, [&](auto tag) {
    using E = typename decltype(tag)::type;
    if (plan.P == 2) return launch_depth<kPolicy, E, 2>(p, a, s, plan);  // the tile plan picks the row packing
    launch_depth<kPolicy, E, 1>(p, a, s, plan);
  });
}

}  // namespace kforge::depthwise::pipelined
