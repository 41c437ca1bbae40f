// dw_v5_mma_pipelined: the pipelined tensor-core depthwise conv (mma.sync m16n8k16, fp32 accumulation), the
// PolicyId::v5_pipelined instantiation of dw_pipelined.cuh.
// A CTA owns one (n, k) channel x a tile of the output plane x a chunk of output depths and streams the input depth
// slices through a 4-stage cp.async ring, so the HBM reads of later slices overlap the MMAs of the current one;
// every A fragment read from a slice serves T MMAs (one per filter depth) into T rotating accumulator sets: T times
// fewer shared-memory reads than v4's one-output-depth-at-a-time loop.
// Operands (dw_toeplitz.cuh): units of P output rows x 8/P columns, 16 units per MMA in any arrangement (so partial
// planes waste little). P = 2 when S + pad_w % 2 <= 5 and stride_h == dilation_h: one MMA applies two filter rows,
// floor(R/2)+1 steps per filter depth instead of R. A fragments: four LDS.32 per M-tile and step (a window may start
// on any even column; the row pitch is picked by counting bank wavefronts); B fragments: built once per CTA.
// Per slice, v5 re-derives every staged chunk's and every output's position (divisions, 64-bit products): the
// overhead v6 removes. Evokernel (P = 2, T = 3, R = 5): 9 MMAs per 128 outputs.
// This unit also holds the host side v5, v6 and v7 share: the tile plan, its per-process cache, the refusals.
// Limits: bf16/f16; x and y dense NCDHW; stride_w == dilation_w == 1; stride_d == dilation_d == 1 (v4 covers the
// rest); T <= 7; S + pad_w % 2 <= 9; one tile row of units and its slice ring fit 80 KB of shared memory (v7: 72).
#include <array>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "core/device_arch.hpp"
#include "depthwise/dw_pipelined.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise::pipelined {
namespace {

// Tile geometry for row_units x col_units units (v12-v14: in slivers of up to sliver_rows unit rows, its slice rows
// rounded up to whole blocks of slivers); units == 0 when the slice ring and the B fragments do not fit the
// policy's smem_budget (or, for TMA boxes, a slice is wider or taller than 256), or v12's slivers outnumber its
// lane groups.
Plan tile_plan(const ConvProblem& p, int P, int row_units, int col_units, const Policy& policy, int sliver_rows = 0) {
  const int64_t smem_budget = policy.smem_budget;
  const bool tma = policy.tma;
  Plan plan;
  plan.P = P;
  plan.b_buffers = policy.persistent ? 2 : 1;
  plan.col_units = col_units;
  plan.row_units = row_units;
  // cp.async copies 16-byte chunks and a TMA box must start on one, so staged column 0 is a multiple of 8 input
  // columns and the windows start wherever pad_w puts them (col_shift makes that even).
  plan.col_shift = static_cast<int>(p.pad_lo[2] % 2);
  plan.left_margin = ceil_div(p.pad_lo[2] + plan.col_shift, 8) * 8;
  plan.window0 = static_cast<int>(plan.left_margin - p.pad_lo[2] - plan.col_shift);
  plan.cols_in = static_cast<int>(ceil_div(int64_t(col_units - 1) * (8 / P) + plan.window0 + 16 / P, 8) * 8);
  const int64_t steps = P == 2 ? RowPacking<2>::steps(p.R) : RowPacking<1>::steps(p.R);
  int64_t staged_units = row_units;  // unit rows whose windows the MMAs read
  if (sliver_rows > 0) {
    plan.sliver_rows = std::min(sliver_rows, static_cast<int>(ceil_div(row_units, 2) * 2));
    plan.sliver_blocks = static_cast<int>(ceil_div(row_units, plan.sliver_rows));
    plan.half_rows = policy.shared_quads ? plan.sliver_rows / 2 : 1;
    if (int64_t(plan.sliver_blocks) * col_units > kSlivers) return plan;
    staged_units = int64_t(plan.sliver_blocks) * plan.sliver_rows;
  }
  // In double first: absurd strides or dilations must refuse, not overflow.
  const double rows_needed = double(staged_units - 1) * P * p.stride[1] + double(P * steps - 1) * p.dilation[1] + 1;
  // TMA destinations are 128-byte aligned: up to 64 elements of rounding per stage.
  const double b_bytes = double(plan.b_buffers) * p.T * steps * 32 * sizeof(uint2) + (tma ? kStages * 128 : 0);
  if (rows_needed * plan.cols_in * 2 * kStages + b_bytes > smem_budget) return plan;
  if (tma && (rows_needed > 256 || plan.cols_in > 256)) return plan;
  const int64_t rows_in = static_cast<int64_t>(rows_needed);
  const int64_t max_pitch =
      std::min<int64_t>((smem_budget - static_cast<int64_t>(b_bytes)) / (rows_in * 2 * kStages) / 8 * 8,
                        tma ? 256 : 1 << 30);
  plan.steps = static_cast<int>(steps);
  plan.rows_in = static_cast<int>(rows_in);
  plan.units = row_units * col_units;
  plan.m_tiles = static_cast<int>(ceil_div(plan.units, 16));
  int64_t best = -1;
  for (int64_t pitch = plan.cols_in; pitch < plan.cols_in + 64 && pitch <= max_pitch; pitch += 8) {
    Plan candidate = plan;
    candidate.pitch = static_cast<int>(pitch);
    candidate.row_stride = static_cast<int>(p.stride[1] * pitch);
    candidate.stage_elems = static_cast<int>(tma ? ceil_div(rows_in * pitch, 64) * 64 : rows_in * pitch);
    const int64_t wavefronts = a_load_wavefronts(candidate);
    if (best < 0 || wavefronts < best) best = wavefronts, plan = candidate;
  }
  return plan;
}

}  // namespace

namespace {
// The wavefronts of one LDS.32 in which lane (g, q) reads word unit_window(u_g) / 2 + q: a bank serves one distinct
// word per wavefront. The kernel points missing units (-1) at unit 0.
int64_t lds32_wavefronts(const Plan& plan, const std::array<int, 8>& units) {
  std::array<std::array<int, 32>, 32> words{};
  std::array<int, 32> count{};
  for (int g = 0; g < 8; ++g) {
    for (int q = 0; q < 4; ++q) {
      const int word = plan.unit_window(std::max(units[g], 0)) / 2 + q, bank = word % 32;
      const auto end = words[bank].begin() + count[bank];
      if (std::find(words[bank].begin(), end, word) == end) words[bank][count[bank]++] = word;
    }
  }
  return *std::max_element(count.begin(), count.end());
}
}  // namespace

// The A-fragment loads of a slice read the units of each half M-tile (v12-v14: each warp's sliver tops, shifted by
// whole rows); steps, registers and stages shift every address alike, so these patterns decide the bank conflicts.
int64_t a_load_wavefronts(const Plan& plan) {
  int64_t total = 0;
  std::array<int, 8> units;
  if (plan.sliver_rows > 0) {
    for (int warp = 0; warp < kWarps; ++warp) {
      for (int g = 0; g < 8; ++g) units[g] = plan.unit_of(warp, 0, 0, g);
      total += lds32_wavefronts(plan, units);
    }
    return total;
  }
  for (int first = 0; first < plan.m_tiles * 16; first += 8) {
    for (int g = 0; g < 8; ++g) units[g] = first + g < plan.units ? first + g : -1;
    total += lds32_wavefronts(plan, units);
  }
  return total;
}

namespace {

// The largest balanced tile (whole rows of units first) whose slice ring fits, for v5-v11.
Plan mtile_order_tile(const ConvProblem& p, int P, const Policy& policy) {
  const int unit_cols = 8 / P, col_align = 8 / unit_cols;  // units per 8 columns: tile starts stay 16-byte aligned
  const int64_t capacity = int64_t(kWarps) * policy.m_tiles_per_warp(P, static_cast<int>(p.T)) * 16;
  const int64_t across = ceil_div(p.Wo, unit_cols), down = ceil_div(p.Ho, P);
  int64_t col_units = across;
  if (across > capacity) col_units = ceil_div(ceil_div(across, ceil_div(across, capacity)), col_align) * col_align;
  int64_t row_units = std::min(down, capacity / col_units);
  Plan plan;
  for (;;) {
    row_units = ceil_div(down, ceil_div(down, row_units));  // same tile count, evenly split
    plan = tile_plan(p, P, static_cast<int>(row_units), static_cast<int>(col_units), policy);
    if (plan.units > 0) return plan;
    if (row_units > 1) {
      row_units = ceil_div(row_units, 2);
    } else if (col_units > col_align) {
      col_units = ceil_div(ceil_div(col_units, 2), col_align) * col_align;
    } else {
      return plan;
    }
  }
}

// v12-v14's tile: at most kSlivers slivers of up to 2 * (M-tiles per warp) unit rows. Over a few column splits and
// sliver lengths, the fitting tile of the fewest M-tile MMAs over the plane (8 per tile added for its fixed costs:
// staging, barriers, B fragments), ties to fewer tiles.
Plan sliding_tile(const ConvProblem& p, int P, const Policy& policy) {
  const int unit_cols = 8 / P, col_align = 8 / unit_cols;
  const int max_rows = 2 * policy.m_tiles_per_warp(P, static_cast<int>(p.T));
  const int64_t across = ceil_div(p.Wo, unit_cols), down = ceil_div(p.Ho, P);
  Plan best;
  int64_t best_cost = -1;
  for (int64_t splits = ceil_div(across, kSlivers); splits <= ceil_div(across, kSlivers) + 3; ++splits) {
    const int64_t col_units = ceil_div(ceil_div(across, splits), col_align) * col_align;
    if (col_units > kSlivers || (splits > 1 && ceil_div(across, col_units) < splits)) continue;
    for (int rows = 2; rows <= max_rows; rows += 2) {
      for (int64_t row_units = std::min(down, kSlivers / col_units * rows);; row_units = ceil_div(row_units, 2)) {
        row_units = ceil_div(down, ceil_div(down, row_units));  // same tile count, evenly split
        const Plan plan = tile_plan(p, P, static_cast<int>(row_units), static_cast<int>(col_units), policy, rows);
        if (plan.units > 0) {
          const int64_t tiles = ceil_div(down, row_units) * ceil_div(across, col_units);
          const int64_t warps = ceil_div(int64_t(plan.sliver_blocks) * col_units, 8);
          const int64_t cost = tiles * (warps * plan.sliver_rows / 2 + 8);
          if (best_cost < 0 || cost < best_cost) best_cost = cost, best = plan;
          break;
        }
        if (row_units == 1) break;
      }
    }
  }
  return best;
}

}  // namespace

// The tile (mtile_order_tile, v12-v14: sliding_tile), and the depth chunks per channel tile that minimize the slices
// the busiest of `sm_count` SMs streams (0: one chunk). A chunk of L outputs streams L + T - 1 slices, so splitting
// only pays when the CTAs would leave SMs idle. v11 (persistent) instead splits the tiles x Do outputs evenly over
// ctas_per_sm CTAs per SM (CtaWork), shares of at least 8 (T - 1) outputs, so that a segment's T - 1 extra slices
// cost at most an eighth of it.
Plan plan_for(const ConvProblem& p, int64_t sm_count, const Policy& policy) {
  const int shift = static_cast<int>(p.pad_lo[2] % 2);
  const int P = p.Ho >= 2 && p.stride[1] == p.dilation[1] && p.S <= RowPacking<2>::max_filter_width(shift) ? 2 : 1;
  if (p.S > RowPacking<1>::max_filter_width(shift) || p.T > kMaxT) return {};
  Plan plan = policy.sliding ? sliding_tile(p, P, policy) : mtile_order_tile(p, P, policy);
  if (plan.units == 0) return plan;
  const int64_t across = ceil_div(p.Wo, 8 / P), down = ceil_div(p.Ho, P);
  const int64_t row_units = plan.row_units, col_units = plan.col_units;
  plan.row_tiles = ceil_div(down, row_units);
  plan.col_tiles = ceil_div(across, col_units);
  const int64_t ctas = p.N * p.K * plan.row_tiles * plan.col_tiles;
  plan.chunk_depths = p.Do;
  if (policy.persistent) {
    plan.depth_chunks = 1;
    plan.items = ctas * p.Do;
    const int64_t slots = policy.ctas_per_sm * std::max<int64_t>(sm_count, 1);
    plan.ctas = std::max<int64_t>(1, std::min(slots, plan.items / std::max<int64_t>(4, 8 * (p.T - 1))));
    return plan;
  }
  for (int64_t chunks = 2; sm_count > 0 && chunks <= std::min<int64_t>(p.Do, 64); ++chunks) {
    const int64_t length = ceil_div(p.Do, chunks), best = plan.chunk_depths;
    const auto busiest = [&](int64_t len) { return ceil_div(ctas * ceil_div(p.Do, len), sm_count) * (len + p.T - 1); };
    if (busiest(length) < busiest(best)) plan.chunk_depths = length;
  }
  plan.depth_chunks = ceil_div(p.Do, plan.chunk_depths);
  plan.ctas = ctas * plan.depth_chunks;
  return plan;
}

// Keyed by ConvProblem::key() (every field plan_for reads), the SM count and the policy. Never evicted: a process
// sees few distinct problems. The search runs outside the lock; two threads racing on a new key compute the same
// plan.
Plan cached_plan(const ConvProblem& p, int64_t sm_count, PolicyId policy) {
  static std::mutex mutex;
  static std::unordered_map<std::string, Plan> plans;
  std::string key =
      p.key() + " sms" + std::to_string(sm_count) + " policy" + std::to_string(static_cast<int>(policy));
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = plans.find(key); it != plans.end()) return it->second;
  }
  const Plan plan = plan_for(p, sm_count, policy_of(policy));
  const std::lock_guard<std::mutex> lock(mutex);
  return plans.emplace(std::move(key), plan).first->second;
}

std::string pipelined_refusal(const ConvProblem& p, PolicyId policy) {
  if (std::string why = toeplitz_refusal(p); !why.empty()) return why;
  if (p.stride[0] != 1 || p.dilation[0] != 1) {
    return "expected stride_d == 1 and dilation_d == 1 (one input slice feeds T consecutive output depths), but got "
           "stride_d=" + std::to_string(p.stride[0]) + ", dilation_d=" + std::to_string(p.dilation[0]);
  }
  if (p.T > kMaxT) {
    return "expected T <= " + std::to_string(kMaxT) + " (one register accumulator set per filter depth), but got T=" +
           std::to_string(p.T);
  }
  const bool sliding = policy_of(policy).sliding;
  if (sliding && p.stride[1] != p.dilation[1]) {
    return "expected stride_h == dilation_h (M-tiles stacked down a sliver share input rows), but got stride_h=" +
           std::to_string(p.stride[1]) + ", dilation_h=" + std::to_string(p.dilation[1]);
  }
  if (sliding && p.T > kMaxSlidingT) {
    return "expected T <= " + std::to_string(kMaxSlidingT) + " (B fragments in registers), but got T=" +
           std::to_string(p.T);
  }
  const bool tma = policy_of(policy).tma;
  if (tma) {
    if (std::string why = sm90a_refusal(); !why.empty()) return why;
    for (int64_t v : {p.N * p.C, p.D + p.pad_lo[0] + p.pad_hi[0], p.H + p.pad_lo[1] + p.pad_hi[1],
                      p.W + p.pad_lo[2] + p.pad_hi[2]}) {
      if (v > std::numeric_limits<int32_t>::max())
        return "expected N*C and the padded D, H, W below 2^31 (TMA box coordinates are 32-bit), but one is " +
               std::to_string(v);
    }
  }
  const int shift = static_cast<int>(p.pad_lo[2] % 2);
  if (p.S > RowPacking<1>::max_filter_width(shift)) {
    return "expected S <= " + std::to_string(RowPacking<1>::max_filter_width(shift)) +
           " (8 outputs + S - 1 inputs in a 16-column window starting on an even column), but got S=" +
           std::to_string(p.S) + " with pad_w=" + std::to_string(p.pad_lo[2]);
  }
  const Plan plan = cached_plan(p, 0, policy);
  if (plan.units == 0) {
    return "expected " + std::to_string(kStages) + " input slices of one row of units to fit " +
           std::to_string(policy_of(policy).smem_budget / 1024) + " KB of shared memory, but stride_h=" +
           std::to_string(p.stride[1]) + ", dilation_h=" + std::to_string(p.dilation[1]) +
           ", R=" + std::to_string(p.R) + " need more";
  }
  if (sliding && plan.steps > kMaxSlidingSteps) {
    return "expected at most " + std::to_string(kMaxSlidingSteps) +
           " MMA steps per filter depth (B fragments in registers: R <= 5 with two output rows per unit, else R <= " +
           "3), but got R=" + std::to_string(p.R) + " in " + std::to_string(plan.steps) + " steps";
  }
  if (plan.ctas > 0x7fffffff) return "expected at most 2^31-1 CTAs, but the problem needs " + std::to_string(plan.ctas);
  return "";
}

}  // namespace kforge::depthwise::pipelined

namespace kforge::depthwise {

std::string v5_mma_pipelined_accepts(const ConvProblem& p) {
  return pipelined::pipelined_refusal(p, pipelined::PolicyId::v5_pipelined);
}

void v5_mma_pipelined_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  pipelined::launch_pipelined<pipelined::PolicyId::v5_pipelined>(p, a, s, "dw_v5_mma_pipelined");
}

}  // namespace kforge::depthwise
