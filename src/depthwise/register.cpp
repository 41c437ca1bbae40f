// Registers the depthwise ladder and states the family's dispatch rule.
#include <iterator>
#include <vector>

#include "depthwise/variants.hpp"

namespace kforge {

void register_depthwise_variants(Registry& r) {
  using namespace depthwise;
  r.add({"dw_v1_direct", "depthwise", "one thread per output, any strides: the correctness fallback",
         v1_direct_accepts, v1_direct_launch, "src/depthwise/dw_v1_direct.cu"});
  r.add({"dw_v2_channels_last", "depthwise",
         "NDHWC: consecutive threads take consecutive channels (4-channel packed loads), 8 outputs per thread along W "
         "from a sliding register window, weights staged once per CTA in shared memory",
         v2_channels_last_accepts, v2_channels_last_launch, "src/depthwise/dw_v2_channels_last.cu"});
  r.add({"dw_v3_smem_tile", "depthwise",
         "NCDHW: zero-padded input halo tile staged once in shared memory, 8x4 outputs per thread from register "
         "windows, common filter sizes as template parameters",
         v3_smem_tile_accepts, v3_smem_tile_launch, "src/depthwise/dw_v3_smem_tile.cu"});
  r.add({"dw_v3b_smem_occupancy", "depthwise",
         "v3 re-tiled for occupancy and grid fill: 128-thread CTAs under 48 KB stream a depth chunk through a ring of "
         "input slices (next slices loaded during the FMAs), tile/depths-per-step/chunk from a cost model with the SM "
         "count, 4x8 outputs per thread, stride-2 and dilation-2 3x3 windows in registers",
         v3b_smem_occupancy_accepts, v3b_smem_occupancy_launch, "src/depthwise/dw_v3b_smem_occupancy.cu"});
  r.add({"dw_v4_mma_toeplitz", "depthwise",
         "tensor cores: banded Toeplitz of the W taps as the mma.sync B operand, input rows as A",
         v4_mma_toeplitz_accepts, v4_mma_toeplitz_launch, "src/depthwise/dw_v4_mma_toeplitz.cu"});
  r.add({"dw_v5_mma_pipelined", "depthwise",
         "v4 streamed: depth slices in a 4-stage cp.async ring (loads overlap MMAs), each A fragment feeds T output "
         "depths (stride_d 1), two output rows per MMA when S <= 5",
         v5_mma_pipelined_accepts, v5_mma_pipelined_launch, "src/depthwise/dw_v5_mma_pipelined.cu"});
  r.add({"dw_v6_mma_hoisted", "depthwise",
         "v5 with the per-slice bookkeeping hoisted: chunk positions, output offsets and bounds computed once per CTA "
         "(a slice adds its base), padding zeroed once per stage, accumulators start at the bias",
         v6_mma_hoisted_accepts, v6_mma_hoisted_launch, "src/depthwise/dw_v6_mma_hoisted.cu"});
  r.add({"dw_v7_mma_occupancy", "depthwise",
         "v6 with 3 CTAs per SM: half the M-tiles per warp (80 registers) and a 72 KB shared-memory budget, so 6 "
         "warps per scheduler hide v6's latency",
         v7_mma_occupancy_accepts, v7_mma_occupancy_launch, "src/depthwise/dw_v7_mma_occupancy.cu"});
  r.add({"dw_v8_mma_lean", "depthwise",
         "v6 with fewer instructions per MMA: each accumulator set starts at the bias in its first MMA (no resets), "
         "the step loop unrolled",
         v8_mma_lean_accepts, v8_mma_lean_launch, "src/depthwise/dw_v8_mma_lean.cu"});
  r.add({"dw_v9_mma_tma", "depthwise",
         "v8 with each depth slice staged by one TMA box (one thread issues it, the TMA unit fills zeros outside the "
         "input; sm_90)",
         v9_mma_tma_accepts, v9_mma_tma_launch, "src/depthwise/dw_v9_mma_tma.cu"});
  r.add({"dw_v10_mma_decoupled", "depthwise",
         "v9 without a CTA barrier per slice: each stage has an 'empty' mbarrier the warps arrive on and only the "
         "producer waits on, so warps with fewer M-tiles and stalled warps no longer hold the others (sm_90)",
         v10_mma_decoupled_accepts, v10_mma_decoupled_launch, "src/depthwise/dw_v10_mma_decoupled.cu"});
  r.add({"dw_v11_mma_persistent", "depthwise",
         "v9 with 2 CTAs per SM, each streaming an equal share of the (channel tile, output depth) sequence: no "
         "partial last round, and the TMA producer loads the next channel's first slices under this one's last MMAs "
         "(sm_90)",
         v11_mma_persistent_accepts, v11_mma_persistent_launch, "src/depthwise/dw_v11_mma_persistent.cu"});
  r.add({"dw_v12_mma_sliding", "depthwise",
         "v9 with each warp's M-tiles stacked down slivers of the tile (one unit column per lane group), so each input "
         "row is loaded from shared memory once per slice instead of once per step, and the B fragments in registers "
         "(sm_90)",
         v12_mma_sliding_accepts, v12_mma_sliding_launch, "src/depthwise/dw_v12_mma_sliding.cu"});
  r.add({"dw_v13_mma_shared_quads", "depthwise",
         "v12 with each M-tile's halves half a sliver apart, so M-tile i's A operand at step s + 1 is M-tile i + 1's "
         "at step s: each A register quad is loaded once per slice and fed to the MMAs as loaded, without v12's "
         "register moves (sm_90)",
         v13_mma_shared_quads_accepts, v13_mma_shared_quads_launch, "src/depthwise/dw_v13_mma_shared_quads.cu"});
  r.add({"dw_v14_mma_one_block", "depthwise",
         "v13 with a warp's slice of MMAs in one basic block (no branch per M-tile) on plans where each warp computes "
         "all its M-tiles or none, so ptxas interleaves the M-tiles' chains of dependent MMAs; v13's kernel on the "
         "others (sm_90)",
         v14_mma_one_block_accepts, v14_mma_one_block_launch, "src/depthwise/dw_v14_mma_one_block.cu"});
}

// The rule, from the measurements in NOTES.md (H200): v14 (v13's kernel where its one-block path does not apply),
// then v9, where no output depth needs depth padding (v8-v14 multiply zero slices for it, where v6 skips them; v12-v14
// refuse T > 3 and more than 3 steps), v7 for small planes (<= 1024 outputs: its smaller tiles waste less), else v6;
// then the rest of the ladder in order, for what these refuse.
const Variant* choose_depthwise(const ConvProblem& p, std::string* why) {
  const bool no_depth_padding = p.pad_lo[0] == 0 && p.pad_hi[0] == 0;
  std::vector<const char*> order;
  if (no_depth_padding) order = {"dw_v14_mma_one_block", "dw_v9_mma_tma"};
  order.push_back(p.Ho * p.Wo <= 1024 ? "dw_v7_mma_occupancy" : "dw_v6_mma_hoisted");
  const size_t rule_picks = order.size();
  static const char* ladder[] = {"dw_v6_mma_hoisted", "dw_v7_mma_occupancy", "dw_v5_mma_pipelined",
                                 "dw_v4_mma_toeplitz", "dw_v3b_smem_occupancy", "dw_v3_smem_tile",
                                 "dw_v2_channels_last", "dw_v1_direct"};
  order.insert(order.end(), std::begin(ladder), std::end(ladder));
  for (size_t i = 0; i < order.size(); ++i) {
    const Variant* v = Registry::instance().find(order[i]);
    if (v && v->accepts(p).empty()) {
      if (why) {
        *why = i < rule_picks ? "rule: v14 then v9 without depth padding, v7 for planes of <= 1024 outputs, else v6 "
                                "(NOTES.md)"
                              : "the rule's picks refuse this problem; first accepting rung of the ladder";
      }
      return v;
    }
  }
  return nullptr;
}

}  // namespace kforge
