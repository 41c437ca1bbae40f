// The pipelined depthwise kernels' work split, on the CPU: CtaWork's segments (what every CTA streams) against the
// plan, for v9's one-chunk-per-CTA grid and v11's persistent shares. The kernel's TMA producer assumes that a CTA's
// segments after its first start at output depth 0 of the next tile, so that is checked too. And v12-v14's
// slivers: every unit of a tile in exactly one (warp, M-tile, half, lane group), at the sliver row the kernel loads
// it from, every A load inside the staged slice.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "depthwise/dw_pipelined_common.cuh"
#include "variant_check.hpp"

namespace kforge {
namespace {

using namespace depthwise::pipelined;
using testing::depthwise_problem;
using testing::params_of;

// Every CTA's segments, in order.
std::vector<std::vector<Segment>> segments_by_cta(const Plan& plan, int64_t Do, bool persistent) {
  std::vector<std::vector<Segment>> out(plan.ctas);
  for (int64_t cta = 0; cta < plan.ctas; ++cta) {
    if (!persistent) {
      out[cta].push_back(CtaWork::only_segment(plan, Do, cta));
      continue;
    }
    CtaWork work(plan, Do, cta, true);
    while (!work.done()) {
      const Segment s = work.segment(Do);
      out[cta].push_back(s);
      work.advance(s);
    }
  }
  return out;
}

// The segments cover every (tile, output depth) item exactly once, each inside one tile, none empty.
void expect_exact_cover(const std::vector<std::vector<Segment>>& segments, int64_t tiles, int64_t Do) {
  std::vector<int> seen(tiles * Do, 0);
  for (const auto& cta : segments) {
    ASSERT_FALSE(cta.empty()) << "a CTA without work";
    for (const Segment& s : cta) {
      ASSERT_GT(s.outputs, 0);
      ASSERT_LE(s.o0 + s.outputs, Do) << "a segment crosses a tile end";
      for (int o = 0; o < s.outputs; ++o) ++seen[s.cta * Do + s.o0 + o];
    }
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), tiles * Do) << "an item is missed or streamed twice";
}

const ConvParams kSame = params_of({1}, {1, 2, 2}, {}, {1});

TEST(DepthwisePipelinedWork, PersistentSharesCoverEveryOutputOnceAndBalance) {
  struct Case {
    ConvProblem p;
    int64_t sms;
  };
  const std::vector<Case> cases = {
      {depthwise_problem(1, 512, 1, {61, 45, 80}, {3, 5, 5}, params_of({1}, {0, 2, 2}, {}, {1}), DType::bf16,
                         Layout::ncdhw, true),
       132},  // evokernel: 512 channels x 59 depths over 264 CTAs
      {depthwise_problem(2, 600, 1, {12, 8, 8}, {3, 3, 3}, kSame, DType::bf16, Layout::ncdhw, true), 132},
      {depthwise_problem(1, 2, 1, {3, 150, 400}, {1, 3, 3}, kSame, DType::bf16, Layout::ncdhw, true), 132},  // tiles
      {depthwise_problem(1, 3, 2, {9, 16, 16}, {3, 3, 3}, kSame, DType::bf16, Layout::ncdhw, false), 7},  // 7 SMs
      {depthwise_problem(1, 1, 1, {4, 8, 8}, {1, 3, 3}, kSame, DType::bf16, Layout::ncdhw, false), 132},    // 1 CTA
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.p.key());
    const Policy policy = policy_of(PolicyId::v11_persistent);
    const Plan plan = plan_for(c.p, c.sms, policy);
    ASSERT_GT(plan.units, 0);
    ASSERT_EQ(plan.depth_chunks, 1);
    const int64_t tiles = c.p.N * c.p.K * plan.row_tiles * plan.col_tiles;
    EXPECT_EQ(plan.items, tiles * c.p.Do);
    EXPECT_LE(plan.ctas, policy.ctas_per_sm * c.sms);
    const auto segments = segments_by_cta(plan, c.p.Do, true);
    expect_exact_cover(segments, tiles, c.p.Do);
    int64_t least = plan.items, most = 0;
    for (const auto& cta : segments) {
      int64_t outputs = 0;
      for (size_t i = 0; i < cta.size(); ++i) {
        outputs += cta[i].outputs;
        if (i > 0) {  // the producer's walk: the next tile, from depth 0
          EXPECT_EQ(cta[i].cta, cta[i - 1].cta + 1);
          EXPECT_EQ(cta[i].o0, 0);
        }
      }
      least = std::min(least, outputs), most = std::max(most, outputs);
    }
    EXPECT_LE(most - least, 1) << "shares differ by more than one output";
    EXPECT_GE(least, std::min<int64_t>(plan.items, 8 * (c.p.T - 1))) << "a share below the 8 (T - 1) floor";
  }
}

TEST(DepthwisePipelinedWork, OneChunkPerCtaCoversEveryOutputOnce) {
  // Depth chunks (few channels on many SMs) and several tiles per plane.
  for (const ConvProblem& p :
       {depthwise_problem(1, 4, 1, {64, 20, 24}, {3, 3, 3}, kSame, DType::bf16, Layout::ncdhw, true),
        depthwise_problem(1, 2, 1, {3, 150, 400}, {1, 3, 3}, kSame, DType::bf16, Layout::ncdhw, true)}) {
    SCOPED_TRACE(p.key());
    const Plan plan = plan_for(p, 132, policy_of(PolicyId::v9_tma));
    ASSERT_GT(plan.units, 0);
    const int64_t tiles = p.N * p.K * plan.row_tiles * plan.col_tiles;
    EXPECT_EQ(plan.ctas, tiles * plan.depth_chunks);
    // Grid indices enumerate (channel, depth chunk, tile); a segment's cta is that index, so map it back to a tile.
    auto segments = segments_by_cta(plan, p.Do, false);
    const int64_t per_chunk = plan.row_tiles * plan.col_tiles;
    for (auto& cta : segments) {
      for (Segment& s : cta) s.cta = s.cta / (per_chunk * plan.depth_chunks) * per_chunk + s.cta % per_chunk;
    }
    expect_exact_cover(segments, tiles, p.Do);
  }
}

TEST(DepthwisePipelinedWork, SliversCoverEachTileOnceAndReadInsideTheStagedSlice) {
  const std::vector<ConvProblem> problems = {
      depthwise_problem(1, 512, 1, {61, 45, 80}, {3, 5, 5}, params_of({1}, {0, 2, 2}, {}, {1}), DType::bf16,
                        Layout::ncdhw, true),  // evokernel: 23 x 20 units in one tile
      depthwise_problem(1, 2, 1, {3, 150, 400}, {1, 3, 3}, kSame, DType::bf16, Layout::ncdhw, true),  // tiles
      depthwise_problem(2, 3, 2, {5, 7, 24}, {3, 3, 3}, kSame, DType::bf16, Layout::ncdhw, false),  // odd rows
      depthwise_problem(1, 4, 1, {4, 1, 40}, {1, 1, 3}, params_of({1}, {0, 0, 1}, {}, {1}), DType::bf16,
                        Layout::ncdhw, true),  // one output row: P = 1
      depthwise_problem(1, 4, 1, {6, 30, 64}, {3, 3, 7}, params_of({1}, {1, 1, 3}, {}, {1}), DType::f16,
                        Layout::ncdhw, true),  // S = 7: P = 1, 3 steps
  };
  for (const PolicyId id : {PolicyId::v12_sliding, PolicyId::v13_shared_quads, PolicyId::v14_one_block}) {
    for (const ConvProblem& p : problems) {
      SCOPED_TRACE(p.key() + " policy " + std::to_string(static_cast<int>(id)));
      const Policy policy = policy_of(id);
      const Plan plan = plan_for(p, 132, policy);
      ASSERT_GT(plan.units, 0);
      ASSERT_GT(plan.sliver_rows, 0);
      EXPECT_EQ(plan.sliver_rows % 2, 0);
      EXPECT_EQ(plan.half_rows, policy.shared_quads ? plan.sliver_rows / 2 : 1);
      EXPECT_LE(plan.sliver_rows, 2 * policy.m_tiles_per_warp(plan.P, static_cast<int>(p.T)));
      EXPECT_LE(plan.sliver_blocks * plan.col_units, kSlivers);
      const int tiles = plan.sliver_rows / 2;
      std::vector<int> seen(plan.units, 0);
      for (int warp = 0; warp < kWarps; ++warp) {
        for (int g = 0; g < 8; ++g) {
          const int top = std::max(plan.unit_of(warp, 0, 0, g), 0);
          for (int i = 0; i < policy.m_tiles_per_warp(plan.P, static_cast<int>(p.T)); ++i) {
            for (int h = 0; h < 2; ++h) {
              const int u = plan.unit_of(warp, i, h, g);
              if (u < 0) continue;
              ++seen[u];
              EXPECT_LT(i, tiles);
              // Where the kernels load it: v12 sliver row 2i + h, v13 and v14 row i + h * half_rows (quad i's halves).
              const int row = policy.shared_quads ? i + h * plan.half_rows : 2 * i + h;
              EXPECT_EQ(u, top + row * plan.col_units) << "warp " << warp << " M-tile " << i << " half " << h;
            }
          }
          // The kernel's loads: rows 0 .. 2 tiles + steps - 2 of the lane's sliver (unit 0's for a lane group past the
          // tile), each at its window + 0..7 and + a_high + 0..7 (a_high: the next K row, or 8 columns for P = 1).
          const int64_t row_step = int64_t(plan.P) * p.dilation[1] * plan.pitch;
          const int64_t a_high = plan.P == 2 ? p.dilation[1] * plan.pitch : 8;
          const int64_t last = plan.unit_window(top) + (2 * tiles + plan.steps - 2) * row_step + a_high + 7;
          EXPECT_LT(last, int64_t(plan.rows_in) * plan.pitch) << "warp " << warp << " lane group " << g;
          EXPECT_LT(plan.unit_window(top) % plan.pitch + (plan.P == 2 ? 7 : 15), plan.cols_in);
        }
      }
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), plan.units) << "a unit is missed or computed twice";
    }
  }
}

}  // namespace
}  // namespace kforge
