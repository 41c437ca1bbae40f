// The depthwise ladder: every registered depthwise variant against the fp64 CPU reference on random and edge-case
// problems (NaN-poisoned outputs, a second run must be bitwise identical), and the accepts() contract on the CPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "depthwise/variants.hpp"
#include "dispatch/registry.hpp"
#include "gpu_test_util.hpp"
#include "variant_check.hpp"

namespace kforge {
namespace {

using testing::depthwise_problem;
using testing::params_of;

// ~40 random 3D shapes (fixed seed), each in both layouts and in bf16 and f32. Every spatial dimension is drawn
// until the dilated filter fits the padded input; shapes above kMaxMacs multiply-adds are redrawn so the CPU
// reference stays fast.
std::vector<ConvProblem> random_problems() {
  constexpr int kShapes = 40;
  constexpr double kMaxMacs = 4e6;
  std::mt19937_64 rng(0x6b666f7267650001ull);
  const auto draw = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  std::vector<ConvProblem> out;
  while (out.size() < 4 * kShapes) {
    const int64_t N = draw(1, 3), C = draw(1, 24), m = draw(1, 3);
    std::vector<int64_t> in(3), k(3), st(3), pl(3), ph(3), dl(3);
    for (int i = 0; i < 3; ++i) {
      do {
        in[i] = draw(1, 20), k[i] = draw(1, 7), st[i] = draw(1, 3), dl[i] = draw(1, 3);
        pl[i] = draw(0, 3), ph[i] = draw(0, 3);
      } while (dl[i] * (k[i] - 1) + 1 > in[i] + pl[i] + ph[i]);
    }
    const bool bias = draw(0, 1) == 1;
    const ConvParams prm = params_of(st, pl, ph, dl);
    const ConvProblem probe = depthwise_problem(N, C, m, in, k, prm, DType::f32, Layout::ncdhw, bias);
    if (double(probe.y_numel()) * double(probe.T * probe.R * probe.S) > kMaxMacs) continue;
    for (Layout layout : {Layout::ncdhw, Layout::ndhwc}) {
      for (DType dtype : {DType::bf16, DType::f32}) {
        out.push_back(depthwise_problem(N, C, m, in, k, prm, dtype, layout, bias));
      }
    }
  }
  return out;
}

// Hand-picked cases: 1D/2D, the fixed-size kernels of v3 (partial tiles, strided, dilated), v2's vector path
// with m > 1 and several channel CTAs, odd channel counts, f16, degenerate outputs, and strided views (v1 only).
std::vector<ConvProblem> edge_problems() {
  using L = Layout;
  const DType bf16 = DType::bf16, f32 = DType::f32, f16 = DType::f16;
  const ConvParams unit = params_of({1}, {0}, {}, {1});
  const ConvParams same1 = params_of({1}, {1}, {}, {1});
  std::vector<ConvProblem> out;
  for (L l : {L::ncdhw, L::ndhwc}) {
    out.push_back(depthwise_problem(2, 6, 2, {33}, {5}, params_of({2}, {2}, {1}, {1}), bf16, l, true));     // conv1d
    out.push_back(depthwise_problem(1, 8, 1, {17, 19}, {3, 3}, same1, f32, l, false));                      // conv2d
    out.push_back(depthwise_problem(2, 8, 1, {17, 19}, {3, 3}, same1, bf16, l, true));
    out.push_back(depthwise_problem(1, 1, 1, {3, 3, 3}, {3, 3, 3}, unit, bf16, l, false));                  // 1 output
    out.push_back(depthwise_problem(1, 3, 2, {4, 5, 6}, {6, 7, 8}, params_of({1}, {1, 0, 1}, {1, 2, 1}, {1}),
                                    f32, l, true));  // kernel == padded input
    out.push_back(depthwise_problem(1, 4, 1, {9, 21, 37}, {3, 3, 3}, same1, bf16, l, true));
    out.push_back(depthwise_problem(1, 2, 1, {10, 12, 13}, {7, 7, 7}, params_of({1}, {3}, {}, {1}), bf16, l, false));
    out.push_back(depthwise_problem(1, 2, 1, {9, 11, 14}, {5, 5, 5}, params_of({1}, {2}, {}, {1}), f32, l, true));
    out.push_back(depthwise_problem(2, 3, 1, {7, 9, 10}, {3, 5, 5}, params_of({1}, {1, 2, 2}, {}, {1}), bf16, l, true));
    out.push_back(depthwise_problem(1, 5, 1, {4, 20, 23}, {1, 3, 3}, same1, f16, l, false));
    out.push_back(depthwise_problem(1, 4, 2, {12, 6, 7}, {3, 1, 1}, params_of({1}, {1, 0, 0}, {}, {1}), f32, l, true));
    out.push_back(depthwise_problem(1, 4, 1, {11, 13, 17}, {3, 3, 3}, params_of({2}, {1}, {}, {1}), bf16, l, true));
    out.push_back(depthwise_problem(1, 4, 1, {11, 13, 17}, {3, 3, 3}, params_of({1}, {2}, {}, {2}), f32, l, false));
    out.push_back(depthwise_problem(1, 3, 1, {6, 9, 11}, {2, 4, 6}, params_of({1, 2, 1}, {1}, {0}, {1, 1, 2}), bf16, l, true));
    out.push_back(depthwise_problem(2, 8, 3, {5, 6, 19}, {3, 3, 3}, same1, bf16, l, true));   // m = 3, vector path
    out.push_back(depthwise_problem(1, 160, 1, {3, 4, 9}, {3, 3, 3}, same1, f32, l, true));   // several channel CTAs
    out.push_back(depthwise_problem(1, 64, 1, {8, 8, 8}, {7, 7, 7}, params_of({1}, {3}, {}, {1}), bf16, l, false));
    out.push_back(depthwise_problem(1, 7, 1, {5, 8, 30}, {1, 1, 9}, params_of({1}, {0, 0, 4}, {}, {1}), f16, l, true));
  }
  // The TMA-staged rungs (v9-v14: bf16/f16 NCDHW, W % 8 == 0): N > 1 with m = 2 and depth padding, odd pad_w,
  // stride_h == dilation_h == 2 (two rows per MMA), P = 1 (S = 7), and planes split into row and column tiles.
  out.push_back(depthwise_problem(2, 4, 2, {7, 10, 16}, {3, 5, 5}, params_of({1}, {1, 2, 2}, {}, {1}), bf16, L::ncdhw,
                                  true));
  out.push_back(depthwise_problem(1, 3, 1, {5, 9, 24}, {3, 3, 3}, same1, f16, L::ncdhw, false));
  out.push_back(depthwise_problem(1, 2, 1, {4, 40, 24}, {3, 5, 5}, params_of({1, 2, 1}, {1, 2, 2}, {}, {1, 2, 1}),
                                  bf16, L::ncdhw, true));
  out.push_back(depthwise_problem(1, 2, 1, {6, 12, 32}, {3, 3, 7}, params_of({1}, {1, 1, 3}, {}, {1}), bf16, L::ncdhw,
                                  true));
  out.push_back(depthwise_problem(1, 2, 1, {3, 150, 400}, {1, 3, 3}, params_of({1}, {0, 1, 1}, {}, {1}), bf16,
                                  L::ncdhw, true));
  // v12-v14's slivers: three blocks of unit rows, the last one partial, with 60 of 64 lane groups busy.
  out.push_back(depthwise_problem(1, 2, 1, {5, 45, 80}, {3, 5, 5}, params_of({1}, {0, 2, 2}, {}, {1}), bf16, L::ncdhw,
                                  true));
  // Many channels over few SMs' worth of depth: plans with several depth steps per CTA exercise the slice rings.
  out.push_back(depthwise_problem(1, 600, 1, {12, 8, 8}, {3, 3, 3}, same1, bf16, L::ncdhw, true));
  out.push_back(depthwise_problem(1, 640, 1, {20, 6, 9}, {3, 3, 3}, params_of({2, 1, 1}, {1}, {}, {2, 1, 1}), bf16,
                                  L::ncdhw, true));
  out.push_back(depthwise_problem(2, 600, 1, {9, 5, 7}, {3, 3, 3}, same1, f32, L::ncdhw, true));
  // Strided views: x reads every other W element of a wider buffer; y rows padded and channels outermost.
  ConvProblem p = depthwise_problem(2, 3, 2, {5, 6, 7}, {3, 3, 3}, same1, bf16, L::ncdhw, true);
  p.x_strides = {3 * 5 * 6 * 14, 5 * 6 * 14, 6 * 14, 14, 2};
  const int64_t row = p.Wo + 3, plane = p.Ho * row, image = p.Do * plane;
  p.y_strides = {image, p.N * image, plane, row, 1};
  out.push_back(p);
  return out;
}

TEST(Depthwise, RandomShapesMatchReference) {
  KF_REQUIRE_GPU();
  testing::check_family("depthwise", "dw_v1_direct", random_problems(), 1000);
}

TEST(Depthwise, EdgeCasesMatchReference) {
  KF_REQUIRE_GPU();
  testing::check_family("depthwise", "dw_v1_direct", edge_problems(), 5000);
}

// ---- accepts(): CPU only ----

TEST(DepthwiseAccepts, EveryVariantRefusesNonDepthwiseAndFp8) {
  const std::vector<const Variant*> variants = Registry::instance().family("depthwise");
  ASSERT_GE(variants.size(), 3u);
  const ConvProblem dense = ConvProblem::dense(1, 8, 16, {6, 6, 6}, {3, 3, 3}, ConvParams{}, DType::bf16,
                                               Layout::ncdhw, false);
  ConvParams grouped;
  grouped.groups = 2;
  const ConvProblem two_groups = ConvProblem::dense(1, 8, 8, {6, 6, 6}, {3, 3, 3}, grouped, DType::bf16,
                                                    Layout::ndhwc, false);
  const ConvProblem fp8 = depthwise_problem(1, 16, 1, {6, 6, 6}, {3, 3, 3}, ConvParams{}, DType::fp8_e4m3,
                                            Layout::ndhwc, false);
  for (const Variant* v : variants) {
    EXPECT_NE(v->accepts(dense), "") << v->name << " accepted a dense (groups=1) problem";
    EXPECT_NE(v->accepts(two_groups), "") << v->name << " accepted a groups=2 problem";
    EXPECT_NE(v->accepts(fp8), "") << v->name << " accepted fp8";
  }
  EXPECT_NE(depthwise::common_refusal(dense).find("groups == C"), std::string::npos);
  EXPECT_EQ(depthwise::common_refusal(fp8), "fp8 depthwise is not implemented");
}

TEST(DepthwiseAccepts, LayoutsAndSharedMemoryReasons) {
  using namespace depthwise;
  const ConvParams same1 = params_of({1}, {1}, {}, {1});
  const ConvProblem ncdhw = depthwise_problem(2, 16, 2, {8, 9, 10}, {3, 3, 3}, same1, DType::bf16, Layout::ncdhw, true);
  const ConvProblem ndhwc = depthwise_problem(2, 16, 2, {8, 9, 10}, {3, 3, 3}, same1, DType::bf16, Layout::ndhwc, true);
  ConvProblem strided = ncdhw;
  strided.x_strides[4] = 2;  // every other element along W
  for (const ConvProblem& p : {ncdhw, ndhwc, strided}) EXPECT_EQ(v1_direct_accepts(p), "") << p.describe();

  EXPECT_EQ(v2_channels_last_accepts(ndhwc), "");
  EXPECT_NE(v2_channels_last_accepts(ncdhw).find("ndhwc"), std::string::npos) << v2_channels_last_accepts(ncdhw);
  EXPECT_EQ(v3_smem_tile_accepts(ncdhw), "");
  EXPECT_NE(v3_smem_tile_accepts(ndhwc).find("ncdhw"), std::string::npos) << v3_smem_tile_accepts(ndhwc);
  EXPECT_NE(v3_smem_tile_accepts(strided), "");

  // A 9^3 filter dilated by 20: even a 1x8x4 output tile needs a ~161x168x164 input halo, far over 96 KB.
  const ConvProblem huge_halo = depthwise_problem(1, 4, 1, {200, 200, 200}, {9, 9, 9}, params_of({1}, {0}, {}, {20}),
                                                  DType::f32, Layout::ncdhw, false);
  EXPECT_NE(v3_smem_tile_accepts(huge_halo).find("shared-memory"), std::string::npos)
      << v3_smem_tile_accepts(huge_halo);
  EXPECT_EQ(v1_direct_accepts(huge_halo), "");
}

// v12-v14's own limits, with their reasons, and the rule's order around them (accepts() passes the sm_90a check
// when there is no GPU, so this runs on the CPU).
TEST(DepthwiseAccepts, SlidingLimitsAndTheRuleAroundThem) {
  using namespace depthwise;
  const ConvParams valid_depth = params_of({1}, {0, 2, 2}, {}, {1});
  const auto ncdhw = [](std::vector<int64_t> in, std::vector<int64_t> k, ConvParams prm) {
    return depthwise_problem(1, 8, 1, in, k, prm, DType::bf16, Layout::ncdhw, true);
  };
  const ConvProblem evo_like = ncdhw({9, 45, 80}, {3, 5, 5}, valid_depth);
  const ConvProblem deep = ncdhw({9, 45, 80}, {5, 5, 5}, valid_depth);                          // T = 5
  const ConvProblem tall = ncdhw({9, 45, 80}, {3, 7, 5}, params_of({1}, {0, 3, 2}, {}, {1}));  // R = 7: 4 steps
  const ConvProblem strided_h = ncdhw({9, 45, 80}, {3, 3, 3}, params_of({1, 2, 1}, {0, 1, 1}, {}, {1}));
  const ConvProblem padded_depth = ncdhw({9, 45, 80}, {3, 5, 5}, params_of({1}, {1, 2, 2}, {}, {1}));
  const ConvProblem small_padded = ncdhw({9, 20, 24}, {3, 3, 3}, params_of({1}, {1}, {}, {1}));
  for (const auto accepts : {v12_mma_sliding_accepts, v13_mma_shared_quads_accepts, v14_mma_one_block_accepts}) {
    EXPECT_EQ(accepts(evo_like), "");
    EXPECT_NE(accepts(deep).find("T <= 3"), std::string::npos) << accepts(deep);
    EXPECT_NE(accepts(tall).find("steps"), std::string::npos) << accepts(tall);
    EXPECT_NE(accepts(strided_h).find("stride_h == dilation_h"), std::string::npos) << accepts(strided_h);
  }
  for (const ConvProblem* p : {&deep, &tall, &strided_h}) EXPECT_EQ(v9_mma_tma_accepts(*p), "") << p->describe();

  const auto chosen = [](const ConvProblem& p) { return std::string(choose_depthwise(p, nullptr)->name); };
  EXPECT_EQ(chosen(evo_like), "dw_v14_mma_one_block");
  EXPECT_EQ(chosen(deep), "dw_v9_mma_tma");
  EXPECT_EQ(chosen(tall), "dw_v9_mma_tma");
  EXPECT_EQ(chosen(padded_depth), "dw_v6_mma_hoisted");
  EXPECT_EQ(chosen(small_padded), "dw_v7_mma_occupancy");
}

}  // namespace
}  // namespace kforge
