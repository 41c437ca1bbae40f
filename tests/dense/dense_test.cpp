// The dense family: every registered dense variant against the fp64 CPU reference on small problems that reach
// every path (channels-last direct, NCDHW staging, channel padding, partial tiles, stride, dilation, asymmetric
// padding, 1D/2D, N > 1, persistent loops over many tiles, a fused SiLU); the accepts() contract and the staging plan on the
// CPU; and the SASS of the fast kernels (wgmma, no local memory) from the build's cubins.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/suite.hpp"
#include "dense/channels_last.hpp"
#include "dense/plane_order.hpp"
#include "dense/pointwise_gemm.hpp"
#include "dense/tile_walk.hpp"
#include "gpu_test_util.hpp"
#include "tools/asm.hpp"
#include "tools/tools_test_util.hpp"
#include "variant_check.hpp"

namespace kforge {
namespace {

using testing::dense_view;
using testing::params_of;

ConvProblem dense_problem(int64_t N, int64_t C, int64_t K, const std::vector<int64_t>& input,
                          const std::vector<int64_t>& kernel, const ConvParams& params, Layout layout, bool bias,
                          DType dtype = DType::bf16) {
  std::vector<int64_t> xs{N, C}, ws{K, C / params.groups};
  xs.insert(xs.end(), input.begin(), input.end());
  ws.insert(ws.end(), kernel.begin(), kernel.end());
  const TensorView x = dense_view(xs, dtype, layout), w = dense_view(ws, dtype, layout);
  const TensorView b = TensorView::contiguous(nullptr, dtype, {K});
  const TensorView y = dense_view(conv_output_sizes(x, w, params), dtype, layout);
  return make_problem(x, w, bias ? &b : nullptr, &y, params);
}

std::vector<ConvProblem> dense_problems() {
  const ConvParams unit = params_of({1}, {0}, {}, {1}), same1 = params_of({1}, {1}, {}, {1});
  std::vector<ConvProblem> out;
  for (Layout l : {Layout::ndhwc, Layout::ncdhw}) {
    out.push_back(dense_problem(1, 64, 64, {6, 10, 12}, {3, 3, 3}, same1, l, true));         // one partial M tile
    out.push_back(dense_problem(1, 3, 32, {5, 17, 19}, {3, 3, 3}, same1, l, true));          // RGB stem: C padded
    out.push_back(dense_problem(1, 16, 128, {4, 30, 31}, {1, 1, 1}, unit, l, false));        // pointwise
    out.push_back(dense_problem(2, 16, 32, {9, 12, 14}, {3, 3, 3}, params_of({2}, {1}, {}, {1}), l, true));
    out.push_back(dense_problem(1, 24, 40, {8, 11, 13}, {3, 3, 3}, params_of({1}, {0, 1, 2}, {1, 2, 0}, {2}), l, true));
    out.push_back(dense_problem(1, 32, 24, {1, 33, 35}, {1, 3, 3}, same1, l, true));         // conv2d as 3D
    out.push_back(dense_problem(2, 16, 16, {1, 1, 77}, {1, 1, 5}, params_of({1}, {2}, {}, {1}), l, false));  // conv1d
    out.push_back(dense_problem(1, 12, 8, {7, 9, 10}, {3, 1, 1}, params_of({1}, {1, 0, 0}, {}, {1}), l, true));
    out.push_back(dense_problem(1, 128, 256, {8, 16, 20}, {3, 3, 3}, same1, l, true));       // many tiles per SM
    out.push_back(dense_problem(1, 192, 192, {4, 10, 30}, {3, 3, 3}, unit, l, true));        // no padding, N tile 192
    out.push_back(dense_problem(1, 96, 96, {4, 9, 40}, {3, 3, 3}, unit, l, true));           // C % 64 == 32: the 32-channel K tile
    // Halo rows (v26-v29): rows of more than one 256-pixel tile with a partial last one, output channels past one
    // N tile, C not a multiple of the 32-channel chunk, stride 2 along D and dilation 2 along W (the halo's reach),
    // an odd number of output rows with padding (a cluster's second row past the tensor, its first in the padding).
    out.push_back(dense_problem(1, 96, 96, {2, 3, 300}, {3, 3, 3}, same1, l, true));
    out.push_back(dense_problem(1, 40, 136, {5, 4, 270}, {2, 3, 3}, params_of({2, 1, 1}, {1}, {}, {1, 1, 2}), l, true));
    // Two images of 11 output planes: one full 8-plane block of v30/v31's tile walk and a partial one per image.
    out.push_back(dense_problem(2, 16, 32, {11, 3, 20}, {3, 3, 3}, same1, l, true));
    // K % 8 != 0 (filters, bias and y padded to 8 channels, y staged): a decoder's RGB head over rows of two halo
    // tiles (v53), and K = 20 over two 16-wide N tiles (v53) or one 32-wide one (v54).
    out.push_back(dense_problem(1, 32, 3, {4, 6, 300}, {3, 3, 3}, same1, l, true));
    out.push_back(dense_problem(1, 16, 20, {4, 6, 7}, {3, 3, 3}, same1, l, true));
    // v47/v48's plane-blocked walk: 21 output planes of 640 pixels, two full 8-plane blocks and a partial one for
    // both the 256- and the 128-pixel M tile.
    out.push_back(dense_problem(1, 16, 32, {21, 16, 40}, {3, 3, 3}, same1, l, true));
    // Pointwise GEMMs: two images (the filter shared, batch strides), K not a tile multiple, many tiles, a volume
    // that is not a multiple of 8 (the NCDHW GEMM refuses it), conv1d.
    out.push_back(dense_problem(2, 24, 40, {3, 5, 8}, {1, 1, 1}, unit, l, true));
    out.push_back(dense_problem(1, 64, 384, {8, 16, 20}, {1, 1, 1}, unit, l, true));
    out.push_back(dense_problem(1, 32, 16, {3, 5, 7}, {1, 1, 1}, unit, l, true));
    out.push_back(dense_problem(3, 8, 24, {1, 1, 96}, {1, 1, 1}, unit, l, false));
    // More 256x128 tiles (320) than two per SM: every CTA of a persistent kernel runs several, so v57 stores a
    // tile's y under the next tile's K blocks, over 27 K blocks and over one (its chunks left for after the loop).
    out.push_back(dense_problem(1, 16, 256, {4, 64, 160}, {3, 3, 3}, same1, l, true));
    out.push_back(dense_problem(1, 32, 256, {4, 64, 160}, {1, 1, 1}, unit, l, true));
    // The filter outweighs x (ltx_upsampler's kind): v60-v62 walk M tiles fastest where the shorter-extent walk runs
    // N fastest (5 M tiles of 128 rows, an odd count for 2x1 clusters, by 3 N tiles of 256).
    out.push_back(dense_problem(1, 32, 768, {4, 8, 20}, {3, 3, 3}, same1, l, true));
    // SiLU fused after the bias: the implicit-GEMM epilogue (3x3x3) and the pointwise GEMMs' (1x1x1).
    ConvParams silu3 = same1, silu1 = unit;
    silu3.activation = silu1.activation = Activation::silu;
    out.push_back(dense_problem(1, 64, 128, {6, 10, 12}, {3, 3, 3}, silu3, l, true));
    out.push_back(dense_problem(1, 32, 64, {4, 8, 10}, {1, 1, 1}, silu1, l, true));
  }
  // Other dtypes and groups: the tensor-core variants refuse them; the direct fallback answers.
  out.push_back(dense_problem(1, 8, 16, {4, 6, 7}, {3, 3, 3}, same1, Layout::ncdhw, true, DType::f16));
  ConvParams two_groups = same1;
  two_groups.groups = 2;
  out.push_back(dense_problem(1, 16, 16, {4, 6, 7}, {3, 3, 3}, two_groups, Layout::ndhwc, true));
  return out;
}

TEST(Dense, EveryVariantMatchesReference) {
  KF_REQUIRE_GPU();
  testing::check_family("dense", "dense_v0_direct", dense_problems(), 7000);
}

// ---- CPU ----

bool is_tensor_core_variant(const Variant& v) { return v.name != "dense_v0_direct"; }
bool is_pointwise_gemm(const Variant& v) { return v.name.find("_pointwise_gemm_") != std::string::npos; }
bool writes_ncdhw(const Variant& v) { return v.name.ends_with("_ncdhw") && !is_pointwise_gemm(v); }

TEST(DenseAccepts, TensorCoreVariantsStateTheirLimits) {
  const ConvParams same1 = params_of({1}, {1}, {}, {1});
  ConvParams grouped = same1;
  grouped.groups = 2;
  // Do*Ho*Wo = 5*16*19, a multiple of 8: the NCDHW-writing kernel's TMA strides.
  const ConvProblem ok_ncdhw = dense_problem(1, 3, 32, {5, 16, 19}, {3, 3, 3}, same1, Layout::ncdhw, true);
  const ConvProblem ok_ndhwc = dense_problem(1, 64, 64, {6, 10, 12}, {3, 3, 3}, same1, Layout::ndhwc, false);
  const ConvProblem two_images = dense_problem(2, 16, 32, {4, 6, 8}, {3, 3, 3}, same1, Layout::ncdhw, true);
  const ConvProblem odd_volume = dense_problem(1, 16, 32, {5, 17, 19}, {3, 3, 3}, same1, Layout::ncdhw, true);
  const ConvProblem f16 = dense_problem(1, 8, 16, {4, 6, 7}, {3, 3, 3}, same1, Layout::ncdhw, true, DType::f16);
  const ConvProblem groups = dense_problem(1, 16, 16, {4, 6, 7}, {3, 3, 3}, grouped, Layout::ndhwc, true);
  // K % 8 != 0: padded and staged by the channels-last plan, which the kernels writing y in place cannot take.
  const ConvProblem odd_k = dense_problem(1, 16, 20, {4, 6, 8}, {3, 3, 3}, same1, Layout::ncdhw, true);
  int checked = 0;
  for (const Variant* v : Registry::instance().family("dense")) {
    if (!is_tensor_core_variant(*v) || is_pointwise_gemm(*v)) continue;  // pointwise: the test below
    ++checked;
    EXPECT_EQ(v->accepts(ok_ncdhw), "") << v->name;
    if (writes_ncdhw(*v)) {  // one image's packed NCDHW y only
      EXPECT_NE(v->accepts(ok_ndhwc).find("packed NCDHW"), std::string::npos) << v->accepts(ok_ndhwc);
      EXPECT_NE(v->accepts(two_images).find("N == 1"), std::string::npos) << v->accepts(two_images);
      EXPECT_NE(v->accepts(odd_volume).find("% 8"), std::string::npos) << v->accepts(odd_volume);
      EXPECT_NE(v->accepts(odd_k).find("K % 8"), std::string::npos) << v->name << ": " << v->accepts(odd_k);
    } else {
      EXPECT_EQ(v->accepts(ok_ndhwc), "") << v->name;
      EXPECT_EQ(v->accepts(two_images), "") << v->name;
      EXPECT_EQ(v->accepts(odd_k), "") << v->name;
    }
    EXPECT_NE(v->accepts(f16).find("bf16"), std::string::npos) << v->name << ": " << v->accepts(f16);
    EXPECT_NE(v->accepts(groups).find("groups"), std::string::npos) << v->name << ": " << v->accepts(groups);
  }
  EXPECT_GE(checked, 6) << "the CUTLASS anchor and our persistent kernels should be registered";
}

// The pointwise GEMM's view: operands, leading dimensions and batch strides of each layout, and its refusals.
TEST(PointwiseGemm, MapsEachLayoutOntoOneGemmPerImage) {
  const ConvParams unit{};
  const ConvProblem first = dense_problem(2, 24, 40, {3, 5, 8}, {1, 1, 1}, unit, Layout::ncdhw, true);
  ASSERT_EQ(dense::pointwise_gemm_refusal(first, dense::ChannelOrder::first), "");
  const dense::PointwiseGemm f = dense::pointwise_gemm(first, dense::ChannelOrder::first);
  EXPECT_EQ(std::vector<int64_t>({f.m, f.n, f.k, f.batch}), std::vector<int64_t>({40, 120, 24, 2}));
  EXPECT_FALSE(f.a_is_x);
  EXPECT_EQ(std::vector<int64_t>({f.a.ld, f.a.batch, f.b.ld, f.b.batch, f.d.ld, f.d.batch}),
            std::vector<int64_t>({24, 0, 120, 24 * 120, 120, 40 * 120}));

  const ConvProblem last = dense_problem(2, 24, 40, {3, 5, 8}, {1, 1, 1}, unit, Layout::ndhwc, true);
  ASSERT_EQ(dense::pointwise_gemm_refusal(last, dense::ChannelOrder::last), "");
  const dense::PointwiseGemm l = dense::pointwise_gemm(last, dense::ChannelOrder::last);
  EXPECT_EQ(std::vector<int64_t>({l.m, l.n, l.k, l.batch}), std::vector<int64_t>({120, 40, 24, 2}));
  EXPECT_TRUE(l.a_is_x);
  EXPECT_EQ(std::vector<int64_t>({l.a.ld, l.a.batch, l.b.ld, l.b.batch, l.d.ld, l.d.batch}),
            std::vector<int64_t>({24, 120 * 24, 24, 0, 40, 120 * 40}));

  auto refusal = [](const ConvProblem& p, dense::ChannelOrder o) { return dense::pointwise_gemm_refusal(p, o); };
  auto contains = [](const std::string& s, const char* what) { return s.find(what) != std::string::npos; };
  EXPECT_TRUE(contains(refusal(first, dense::ChannelOrder::last), "channels-last")) << refusal(first, dense::ChannelOrder::last);
  EXPECT_TRUE(contains(refusal(last, dense::ChannelOrder::first), "channels-first"));
  const ConvProblem spatial = dense_problem(1, 24, 40, {3, 5, 8}, {1, 3, 3}, params_of({1}, {0, 1, 1}, {}, {1}),
                                            Layout::ncdhw, true);
  EXPECT_TRUE(contains(refusal(spatial, dense::ChannelOrder::first), "1x1x1"));
  const ConvProblem strided = dense_problem(1, 24, 40, {4, 6, 8}, {1, 1, 1}, params_of({2}, {0}, {}, {1}),
                                            Layout::ncdhw, true);
  EXPECT_TRUE(contains(refusal(strided, dense::ChannelOrder::first), "stride 1"));
  const ConvProblem odd_volume = dense_problem(1, 24, 40, {3, 5, 7}, {1, 1, 1}, unit, Layout::ncdhw, true);
  EXPECT_TRUE(contains(refusal(odd_volume, dense::ChannelOrder::first), "D*H*W % 8"));
  EXPECT_EQ(refusal(dense_problem(1, 24, 40, {3, 5, 7}, {1, 1, 1}, unit, Layout::ndhwc, true), dense::ChannelOrder::last),
            "");
  const ConvProblem odd_c = dense_problem(1, 20, 40, {3, 5, 8}, {1, 1, 1}, unit, Layout::ndhwc, true);
  EXPECT_TRUE(contains(refusal(odd_c, dense::ChannelOrder::last), "C % 8"));
  // K need not be a multiple of 8 where it is the GEMM's M (NCDHW), must be where it is y's row (NDHWC).
  EXPECT_EQ(refusal(dense_problem(1, 24, 20, {3, 5, 8}, {1, 1, 1}, unit, Layout::ncdhw, true), dense::ChannelOrder::first), "");
  EXPECT_TRUE(contains(refusal(dense_problem(1, 24, 20, {3, 5, 8}, {1, 1, 1}, unit, Layout::ndhwc, true),
                               dense::ChannelOrder::last), "K % 8"));

  // A view whose volume does not flatten (the first 8 columns of 16-wide rows) and one at an odd offset.
  TensorView x = TensorView::contiguous(nullptr, DType::bf16, {1, 24, 3, 5, 8});
  x.strides = {24 * 3 * 5 * 16, 3 * 5 * 16, 5 * 16, 16, 1};
  const TensorView w = TensorView::contiguous(nullptr, DType::bf16, {40, 24, 1, 1, 1});
  TensorView y = TensorView::contiguous(nullptr, DType::bf16, {1, 40, 3, 5, 8});
  EXPECT_TRUE(contains(refusal(make_problem(x, w, nullptr, &y, unit), dense::ChannelOrder::first), "flattens"));
  TensorView x_packed = TensorView::contiguous(nullptr, DType::bf16, {1, 24, 3, 5, 8});
  x_packed.data = reinterpret_cast<void*>(uintptr_t{4096 + 2});  // one element past an aligned address
  const ConvProblem shifted = make_problem(x_packed, w, nullptr, &y, unit);
  EXPECT_TRUE(shifted.unaligned.x && !shifted.unaligned.y);
  EXPECT_TRUE(contains(refusal(shifted, dense::ChannelOrder::first), "16-byte aligned"));
  EXPECT_NE(shifted.key(), make_problem(dense_view({1, 24, 3, 5, 8}, DType::bf16, Layout::ncdhw), w, nullptr, &y,
                                        unit).key());
}

// A fused activation: only the variants whose epilogue applies it accept (Registry::add wraps the others'
// accepts), so none can return the plain conv; the rule's pick then is the same kernel as without it.
TEST(DenseAccepts, OnlyFusingVariantsTakeAnActivation) {
  const testing::ScopedEnv rule_only("KFORGE_AUTOTUNE", "0");
  ConvParams silu = params_of({1}, {1}, {}, {1});
  silu.activation = Activation::silu;
  const ConvProblem p = dense_problem(1, 64, 128, {32, 64, 64}, {3, 3, 3}, silu, Layout::ndhwc, true);
  const ConvProblem depthwise =
      testing::depthwise_problem(1, 32, 1, {4, 8, 8}, {3, 3, 3}, silu, DType::bf16, Layout::ndhwc, true);
  int fusing = 0;
  for (const Variant& v : Registry::instance().all()) {
    if (v.fuses_activation) {
      ++fusing;
      continue;
    }
    EXPECT_EQ(v.accepts(p), "the silu activation is not fused by this variant") << v.name;
    EXPECT_EQ(v.accepts(depthwise), "the silu activation is not fused by this variant") << v.name;
  }
  EXPECT_GE(fusing, 20);
  EXPECT_FALSE(Registry::instance().find("cudnn")->fuses_activation);
  EXPECT_FALSE(Registry::instance().find("dense_v1_cutlass_128x128x64")->fuses_activation);
  EXPECT_EQ(choose_variant(p).name, "dense_v57_persistent_256x128x64_overlapped_epilogue");
  EXPECT_NE(p.key(), dense_problem(1, 64, 128, {32, 64, 64}, {3, 3, 3}, params_of({1}, {1}, {}, {1}), Layout::ndhwc,
                                   true).key());  // the tune cache and the history keep them apart
}

// The halo-row kernels stage one input row per filter row: a tile's output pixels must read consecutive input
// pixels (stride 1 along W) within a halo of 272 pixels.
TEST(DenseAccepts, HaloRowsNeedStrideOneAlongW) {
  const ConvProblem ok = dense_problem(1, 96, 96, {4, 9, 300}, {3, 3, 3}, params_of({2, 2, 1}, {1}, {}, {1}), Layout::ncdhw, true);
  const ConvProblem strided = dense_problem(1, 96, 96, {4, 9, 300}, {3, 3, 3}, params_of({1, 1, 2}, {1}, {}, {1}), Layout::ndhwc, true);
  const ConvProblem wide = dense_problem(1, 96, 96, {4, 9, 300}, {1, 1, 5}, params_of({1}, {0}, {}, {1}), Layout::ndhwc, true);
  const ConvProblem far = dense_problem(1, 96, 96, {4, 9, 300}, {1, 1, 3}, params_of({1}, {0}, {}, {1, 1, 9}), Layout::ndhwc, true);
  for (const char* name : {"dense_v26_halo_256x96x32", "dense_v27_halo_256x128x32"}) {
    const Variant* v = Registry::instance().find(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_EQ(v->accepts(ok), "") << name;
    EXPECT_NE(v->accepts(strided).find("stride 1 along W"), std::string::npos) << v->accepts(strided);
    EXPECT_NE(v->accepts(wide).find("at most 3 filter taps"), std::string::npos) << v->accepts(wide);
    EXPECT_NE(v->accepts(far).find("halo"), std::string::npos) << v->accepts(far);
  }
}

TEST(DenseAccepts, PointwiseGemmsTakeTheirLayoutOnly) {
  const ConvParams unit{};
  const ConvProblem ncdhw = dense_problem(2, 24, 40, {3, 5, 8}, {1, 1, 1}, unit, Layout::ncdhw, true);
  const ConvProblem ndhwc = dense_problem(2, 24, 40, {3, 5, 8}, {1, 1, 1}, unit, Layout::ndhwc, true);
  const ConvProblem f16 = dense_problem(1, 24, 40, {3, 5, 8}, {1, 1, 1}, unit, Layout::ncdhw, true, DType::f16);
  int checked = 0;
  for (const Variant* v : Registry::instance().family("dense")) {
    if (!is_pointwise_gemm(*v)) continue;
    ++checked;
    const bool first = v->name.ends_with("_ncdhw");
    EXPECT_EQ(v->accepts(first ? ncdhw : ndhwc), "") << v->name;
    EXPECT_NE(v->accepts(first ? ndhwc : ncdhw), "") << v->name;
    EXPECT_NE(v->accepts(f16).find("bf16"), std::string::npos) << v->accepts(f16);
  }
  EXPECT_GE(checked, 2);
}

TEST(DenseAccepts, DispatchPicksTensorCoresForBf16AndTheFallbackOtherwise) {
  const testing::ScopedEnv rule_only("KFORGE_AUTOTUNE", "0");  // the rule itself, whatever the user's cache holds
  const ConvParams same1 = params_of({1}, {1}, {}, {1});
  // Grids of >= 2 waves of 256x128 tiles (M = 32*64*64) and long K loops (27 K-blocks): the N tile rule.
  const ConvProblem wide = dense_problem(1, 64, 256, {32, 64, 64}, {3, 3, 3}, same1, Layout::ndhwc, true);
  const ConvProblem narrow = dense_problem(1, 64, 128, {32, 64, 64}, {3, 3, 3}, same1, Layout::ndhwc, true);
  // PyTorch's default layout, one image: the NCDHW twin of the rule's 256x128 / 128x256 tile (and of the 16-wide K
  // tile when pointwise); two images, the 96-wide N tile or the stem: the tile rule, y staged.
  const ConvProblem torch_layout = dense_problem(1, 64, 128, {32, 64, 64}, {3, 3, 3}, same1, Layout::ncdhw, true);
  const ConvProblem torch_two = dense_problem(2, 64, 128, {32, 64, 64}, {3, 3, 3}, same1, Layout::ncdhw, true);
  const ConvProblem torch_wide = dense_problem(1, 64, 256, {32, 64, 64}, {3, 3, 3}, same1, Layout::ncdhw, true);
  const ConvProblem torch_k96 = dense_problem(1, 64, 96, {32, 64, 64}, {3, 3, 3}, same1, Layout::ncdhw, true);
  const ConvProblem torch_pointwise =
      dense_problem(1, 16, 128, {8, 48, 72}, {1, 1, 1}, ConvParams{}, Layout::ncdhw, true);
  const ConvProblem torch_stem = dense_problem(1, 3, 128, {8, 32, 32}, {3, 3, 3}, same1, Layout::ncdhw, true);
  const ConvProblem k96 = dense_problem(1, 64, 96, {32, 64, 64}, {3, 3, 3}, same1, Layout::ndhwc, true);
  const ConvProblem k192 = dense_problem(1, 64, 192, {32, 64, 64}, {3, 3, 3}, same1, Layout::ndhwc, true);
  // Small grids (M = 6*10*12: one tile) and short K loops (a pointwise conv over 512 channels: 8 K-blocks).
  const ConvProblem small = dense_problem(1, 64, 256, {6, 10, 12}, {3, 3, 3}, same1, Layout::ndhwc, true);
  const ConvProblem pointwise = dense_problem(1, 512, 512, {32, 64, 64}, {1, 1, 1}, ConvParams{}, Layout::ndhwc, true);
  const ConvProblem f16 = dense_problem(1, 8, 16, {4, 6, 7}, {3, 3, 3}, same1, Layout::ncdhw, true, DType::f16);
  // The 256x128 tile that stores y under the next tile's MMAs: K_out <= 128, or K loops of <= 64 blocks (wide: 27);
  // the 128x256 tile that does so for K_out % 256 == 0 and 65-128 K-blocks (long_wide: 108); longer K loops, or
  // K_out that 256 does not divide, keep the 128x256 tile in 2x1 clusters; one image in NCDHW, its direct writer.
  const ConvProblem long_wide = dense_problem(1, 256, 256, {32, 64, 64}, {3, 3, 3}, same1, Layout::ndhwc, true);
  const ConvProblem longer_wide = dense_problem(1, 512, 256, {32, 64, 64}, {3, 3, 3}, same1, Layout::ndhwc, true);
  const ConvProblem long_k640 = dense_problem(1, 256, 640, {32, 64, 64}, {3, 3, 3}, same1, Layout::ndhwc, true);
  const ConvProblem long_wide_torch = dense_problem(1, 256, 256, {32, 64, 64}, {3, 3, 3}, same1, Layout::ncdhw, true);
  EXPECT_EQ(choose_variant(wide).name, "dense_v57_persistent_256x128x64_overlapped_epilogue");
  EXPECT_EQ(choose_variant(long_wide).name, "dense_v61_persistent_128x256x64_overlapped_epilogue_operandwalk");
  EXPECT_EQ(choose_variant(longer_wide).name, "dense_v60_persistent_128x256x64_c2x1_operandwalk");
  EXPECT_EQ(choose_variant(long_k640).name, "dense_v60_persistent_128x256x64_c2x1_operandwalk");
  EXPECT_EQ(choose_variant(long_wide_torch).name, "dense_v62_persistent_128x256x64_c2x1_operandwalk_ncdhw");
  EXPECT_EQ(choose_variant(narrow).name, "dense_v57_persistent_256x128x64_overlapped_epilogue");
  EXPECT_EQ(choose_variant(torch_layout).name, "dense_v10_persistent_256x128x64_ncdhw");
  EXPECT_EQ(choose_variant(torch_two).name, "dense_v57_persistent_256x128x64_overlapped_epilogue");
  EXPECT_EQ(choose_variant(torch_wide).name, "dense_v62_persistent_128x256x64_c2x1_operandwalk_ncdhw");
  EXPECT_EQ(choose_variant(torch_k96).name, "dense_v7_persistent_256x96x64");  // staged: the 96-wide tile wins
  EXPECT_EQ(choose_variant(torch_pointwise).name, "dense_v35_pointwise_gemm_128x256x64_e128x64_ncdhw");
  // The same pointwise conv whose volume is not a multiple of 8 (NCDHW rows TMA cannot stride): the tile rule.
  const ConvProblem torch_pointwise_odd =
      dense_problem(1, 16, 128, {7, 9, 71}, {1, 1, 1}, ConvParams{}, Layout::ncdhw, true);
  EXPECT_EQ(choose_variant(torch_pointwise_odd).name, "dense_v36_persistent_256x128x16_e128x64");
  EXPECT_EQ(choose_variant(torch_stem).name, "dense_v36_persistent_256x128x16_e128x64");
  EXPECT_EQ(choose_variant(k96).name, "dense_v7_persistent_256x96x64");
  // C = 96 (Wan 2.1's up3): a 64-channel K tile would be half zeros on every second chunk; 32 covers it.
  const ConvProblem c96 = dense_problem(1, 96, 96, {32, 64, 64}, {3, 3, 3}, same1, Layout::ndhwc, true);
  EXPECT_EQ(choose_variant(c96).name, "dense_v21_persistent_256x96x32_c2x1");
  const ConvProblem c96_torch = dense_problem(1, 96, 96, {32, 64, 64}, {3, 3, 3}, same1, Layout::ncdhw, true);
  EXPECT_EQ(choose_variant(c96_torch).name, "dense_v21_persistent_256x96x32_c2x1");  // staged, as v7
  // Rows of 512 output pixels fill two 256-pixel tiles: the halo-row kernel, in either layout; rows of 300 would
  // leave 41% of the second tile empty, and stride 2 along W is not a row of consecutive input pixels.
  const ConvProblem c96_rows = dense_problem(1, 96, 96, {8, 20, 512}, {3, 3, 3}, same1, Layout::ndhwc, true);
  EXPECT_EQ(choose_variant(c96_rows).name, "dense_v30_halo_256x96x32_c2x1_d8");
  const ConvProblem c96_rows_torch = dense_problem(1, 96, 96, {8, 20, 512}, {3, 3, 3}, same1, Layout::ncdhw, true);
  EXPECT_EQ(choose_variant(c96_rows_torch).name, "dense_v30_halo_256x96x32_c2x1_d8");
  const ConvProblem c96_short_rows = dense_problem(1, 96, 96, {8, 40, 300}, {3, 3, 3}, same1, Layout::ndhwc, true);
  EXPECT_EQ(choose_variant(c96_short_rows).name, "dense_v21_persistent_256x96x32_c2x1");
  const ConvProblem c96_strided = dense_problem(1, 96, 96, {8, 40, 1024}, {3, 3, 3}, params_of({1, 1, 2}, {1}, {}, {1}),
                                                Layout::ndhwc, true);
  EXPECT_EQ(choose_variant(c96_strided).name, "dense_v21_persistent_256x96x32_c2x1");
  EXPECT_EQ(choose_variant(k192).name, "dense_v9_persistent_128x192x64");
  // 720 output pixels x 256 channels: 12 tiles of 128x128 or 16 of 192x64, one per SM either way; the smaller
  // tile is the busiest SM's load.
  EXPECT_EQ(choose_variant(small).name, "dense_v63_pingpong_192x64x64_e64x64_biaswhengiven");
  EXPECT_EQ(choose_variant(pointwise).name, "dense_v43_pingpong_128x128x64_e64x64_biaswhengiven");
  // Up to 24 K-blocks ping-pong hides the epilogue (a 3x1x1 conv over 384 channels: 18), but not where its 128-wide
  // N tile pads 192 output channels to 256 while the 192-wide tile covers them (a 1x1x1 shortcut 384 -> 192).
  const ConvParams unit = params_of({1}, {0}, {}, {1});
  const ConvProblem temporal = dense_problem(1, 384, 768, {3, 90, 160}, {3, 1, 1}, unit, Layout::ndhwc, true);
  EXPECT_EQ(choose_variant(temporal).name, "dense_v43_pingpong_128x128x64_e64x64_biaswhengiven");
  const ConvProblem shortcut192 = dense_problem(1, 384, 192, {4, 36, 64}, {1, 1, 1}, unit, Layout::ndhwc, true);
  EXPECT_EQ(choose_variant(shortcut192).name, "dense_v9_persistent_128x192x64");
  EXPECT_EQ(choose_variant(f16).name, "dense_v0_direct");
  const ConvProblem stem = dense_problem(1, 3, 128, {5, 17, 19}, {3, 3, 3}, same1, Layout::ncdhw, true);
  EXPECT_EQ(choose_variant(stem).name, "dense_v36_persistent_256x128x16_e128x64");
}

// One wave of 320-row tiles where 256-row ones spill into a second (c64_stride2's grid: M = 2*8*48*48 = 36864,
// K_out 128, 27 K-blocks; 116 tiles of 320 rows against 144 of 256) over an x staged from NCDHW: v58. In NDHWC,
// or with a fused SiLU (which v58 leaves to the others), ping-pong's 192x64 tiles; one image in NCDHW, the 256x128
// tile that writes it directly; twice the pixels (231 tiles of 320 rows), the N tile rule.
TEST(DenseAccepts, DispatchGivesOneWaveGridsThe320RowTile) {
  const testing::ScopedEnv rule_only("KFORGE_AUTOTUNE", "0");
  const ConvParams down = params_of({2}, {1}, {}, {1});
  ConvParams down_silu = down;
  down_silu.activation = Activation::silu;
  auto pick = [&](int64_t N, int64_t W, const ConvParams& params, Layout l) {
    return choose_variant(dense_problem(N, 64, 128, {16, 96, W}, {3, 3, 3}, params, l, true)).name;
  };
  EXPECT_EQ(pick(2, 96, down, Layout::ncdhw), "dense_v58_cooperative_320x128x64");  // two images: x and y staged
  EXPECT_EQ(pick(2, 96, down, Layout::ndhwc), "dense_v63_pingpong_192x64x64_e64x64_biaswhengiven");
  EXPECT_EQ(pick(2, 96, down_silu, Layout::ncdhw), "dense_v63_pingpong_192x64x64_e64x64_biaswhengiven");
  EXPECT_EQ(pick(1, 192, down, Layout::ncdhw), "dense_v10_persistent_256x128x64_ncdhw");
  EXPECT_EQ(pick(4, 96, down, Layout::ncdhw), "dense_v57_persistent_256x128x64_overlapped_epilogue");
}

// Ping-pong's 192x64 tiles where they cut the busiest SM's outputs (tiles per SM x tile area) to <= 0.8x of the
// 128x128 tiles'. c64_stride2 (M 36864, K_out 128): 384 tiles, 3 per SM, against 288, up to 3 (0.75x). A 3x1x1
// conv (M 14400, K_out 768): 900 tiles, up to 7, against 678, up to 6 (0.875x). A 2D 3x3 conv (M 16384, K_out
// 512): 688, up to 6, against 512, 4 (1.125x).
TEST(DenseAccepts, DispatchGivesPingPongThe192x64TileWhereItBalancesTheSMs) {
  const testing::ScopedEnv rule_only("KFORGE_AUTOTUNE", "0");
  const ConvParams unit = params_of({1}, {0}, {}, {1});
  const ConvProblem down = dense_problem(2, 64, 128, {16, 96, 96}, {3, 3, 3}, params_of({2}, {1}, {}, {1}),
                                         Layout::ndhwc, true);
  EXPECT_EQ(choose_variant(down).name, "dense_v63_pingpong_192x64x64_e64x64_biaswhengiven");
  const ConvProblem temporal = dense_problem(1, 384, 768, {3, 90, 160}, {3, 1, 1}, unit, Layout::ndhwc, true);
  EXPECT_EQ(choose_variant(temporal).name, "dense_v43_pingpong_128x128x64_e64x64_biaswhengiven");
  const ConvProblem spatial = dense_problem(1, 512, 512, {1, 128, 128}, {1, 3, 3}, params_of({1}, {0, 1, 1}, {}, {1}),
                                            Layout::ndhwc, true);
  EXPECT_EQ(choose_variant(spatial).name, "dense_v43_pingpong_128x128x64_e64x64_biaswhengiven");
}

// bench/suites/dense-rule.json holds the 192x64 rule's out-of-sample cases, each at 0.75x of the 128x128 tiles'
// busiest-SM outputs (NOTES.md, v63): the rule gives them all v63 in NDHWC.
TEST(DenseAccepts, RuleSuiteCasesGetThe192x64Tile) {
  const testing::ScopedEnv rule_only("KFORGE_AUTOTUNE", "0");
  for (const SuiteCase& c : load_suite(find_suite_file("dense-rule")).cases) {
    EXPECT_EQ(choose_variant(c.problem(DType::bf16, Layout::ndhwc)).name,
              "dense_v63_pingpong_192x64x64_e64x64_biaswhengiven")
        << c.name;
  }
}

// Few output channels: halo rows with the narrowest N tile covering K where rows fill half a 256-pixel tile or more;
// elsewhere (narrow rows, stride 2 along W) the tile rule as before, y staged with K padded to 8.
TEST(DenseAccepts, DispatchGivesFewOutputChannelsANarrowTile) {
  const testing::ScopedEnv rule_only("KFORGE_AUTOTUNE", "0");
  const ConvParams unit = params_of({1}, {0}, {}, {1});
  auto pick = [&](int64_t K, int64_t W, const ConvParams& params, Layout l) {
    return choose_variant(dense_problem(1, 96, K, {6, 34, W}, {3, 3, 3}, params, l, true)).name;
  };
  EXPECT_EQ(pick(3, 1282, unit, Layout::ndhwc), "dense_v53_halo_256x16x32_d8");   // an RGB head
  EXPECT_EQ(pick(3, 1282, unit, Layout::ncdhw), "dense_v53_halo_256x16x32_d8");
  EXPECT_EQ(pick(16, 162, unit, Layout::ndhwc), "dense_v53_halo_256x16x32_d8");   // rows of 160: 62% of a tile
  EXPECT_EQ(pick(32, 162, unit, Layout::ncdhw), "dense_v54_halo_256x32x32_d8");
  EXPECT_EQ(pick(48, 194, unit, Layout::ndhwc), "dense_v56_halo_256x64x32_d8");
  EXPECT_EQ(pick(64, 1282, unit, Layout::ndhwc), "dense_v56_halo_256x64x32_d8");
  EXPECT_EQ(pick(72, 1282, unit, Layout::ndhwc), "dense_v30_halo_256x96x32_c2x1_d8");  // past 64: the 96-wide tile
  EXPECT_EQ(pick(3, 102, unit, Layout::ndhwc), "dense_v63_pingpong_192x64x64_e64x64_biaswhengiven");  // rows of 100
  EXPECT_EQ(pick(3, 1282, params_of({1, 1, 2}, {0}, {}, {1}), Layout::ndhwc),
            "dense_v21_persistent_256x96x32_c2x1");  // stride 2 along W: no halo rows
}

TEST(TileWalk, SharesTheLargerOperand) {
  // ltx_upsampler (x 18x16x24x1024, filter 4096x1024x27) on 128x256 tiles: 48 M tiles (16x16x24 output pixels)
  // and 16 N tiles.
  const ConvProblem ltx = dense_problem(1, 1024, 4096, {18, 16, 24}, {3, 3, 3}, params_of({1}, {0, 1, 1}, {}, {1}),
                                        Layout::ndhwc, false);
  EXPECT_FALSE(dense::walks_m_fastest(dense::TileWalk::shorter_extent_first, ltx, 48, 16));
  EXPECT_TRUE(dense::walks_m_fastest(dense::TileWalk::share_larger_operand, ltx, 48, 16));
  // c2048_k333 (x 884 MB, filter 226 MB): both walks run the 8 N tiles fastest, sharing x's rows.
  const ConvProblem big = dense_problem(1, 2048, 2048, {60, 80, 45}, {3, 3, 3}, params_of({1}, {1}, {}, {1}),
                                        Layout::ndhwc, false);
  EXPECT_FALSE(dense::walks_m_fastest(dense::TileWalk::shorter_extent_first, big, 1688, 8));
  EXPECT_FALSE(dense::walks_m_fastest(dense::TileWalk::share_larger_operand, big, 1688, 8));
  // Fewer pixel tiles than channel tiles, yet x outweighs the filter (a strided pointwise conv: 2x32x32 -> 1x16x16
  // pixels, K_out 1024): the shorter extent runs M first, the larger operand wants x's rows shared, N first.
  const ConvProblem strided = dense_problem(1, 64, 1024, {2, 32, 32}, {1, 1, 1}, params_of({2}, {0}, {}, {1}),
                                            Layout::ndhwc, false);
  EXPECT_TRUE(dense::walks_m_fastest(dense::TileWalk::shorter_extent_first, strided, 2, 4));
  EXPECT_FALSE(dense::walks_m_fastest(dense::TileWalk::share_larger_operand, strided, 2, 4));
}

TEST(PlaneOrder, WalksEveryTileOnce) {
  for (int64_t tiles : {1, 7, 40, 53, 105, 1000}) {
    for (int64_t plane_tiles : {1, 3, 5, 56}) {
      for (int64_t block : {1, 2, 8}) {
        const dense::PlaneOrder order{tiles, plane_tiles, block};
        std::vector<int> runs(tiles, 0);
        for (int64_t pos = 0; pos < tiles; ++pos) {
          const int64_t tile = dense::plane_ordered_tile(pos, order);
          ASSERT_TRUE(tile >= 0 && tile < tiles) << pos << " of " << tiles << " -> " << tile;
          ++runs[tile];
        }
        EXPECT_EQ(std::count(runs.begin(), runs.end(), 1), tiles) << tiles << " " << plane_tiles << " " << block;
      }
    }
  }
  // 100 tiles in planes of 5, blocks of 8 planes (40 tiles): a block's positions step through its planes column by
  // column; the 20 tiles past the second block keep their order.
  const dense::PlaneOrder order{100, 5, 8};
  const std::vector<std::pair<int64_t, int64_t>> expected{{0, 0}, {1, 5}, {7, 35}, {8, 1}, {39, 39},
                                                          {40, 40}, {41, 45}, {79, 79}, {80, 80}, {99, 99}};
  for (auto [pos, tile] : expected) EXPECT_EQ(dense::plane_ordered_tile(pos, order), tile) << pos;
}

TEST(PlaneOrder, BlocksPlanesOnlyWhereOutputPlanesShareInputPlanes) {
  const ConvParams temporal_pad = params_of({1}, {1, 0, 0}, {}, {1});
  const dense::PlaneOrder k311 =
      dense::plane_order(dense_problem(1, 64, 64, {120, 160, 90}, {3, 1, 1}, temporal_pad, Layout::ndhwc, false), 256, 8);
  EXPECT_EQ(k311.tiles, 6750);
  EXPECT_EQ(k311.plane_tiles, 56);  // 14400 pixels: 56.25 tiles
  EXPECT_EQ(k311.block, 8);
  const ConvParams spatial_pad = params_of({1}, {0, 1, 1}, {}, {1});
  EXPECT_EQ(dense::plane_order(dense_problem(1, 64, 64, {120, 160, 90}, {1, 3, 3}, spatial_pad, Layout::ndhwc, false),
                               256, 8).block, 1);  // one filter plane: no input plane is read twice
  const ConvParams stride2 = params_of({2}, {1}, {}, {1});
  EXPECT_EQ(dense::plane_order(dense_problem(2, 64, 128, {16, 96, 96}, {3, 3, 3}, stride2, Layout::ndhwc, false),
                               128, 8).block, 8);  // T 3 over stride 2: neighbours share a plane
  EXPECT_EQ(dense::plane_order(dense_problem(1, 64, 64, {16, 96, 96}, {2, 1, 1}, stride2, Layout::ndhwc, false),
                               128, 8).block, 1);  // T 2 at stride 2: disjoint
  EXPECT_EQ(dense::plane_order(dense_problem(1, 64, 64, {16, 10, 30}, {3, 3, 3}, params_of({1}, {1}, {}, {1}),
                                             Layout::ndhwc, false), 256, 8).block, 1);  // a plane rounds to one tile
}

TEST(ChannelsLastPlan, StagesOnlyWhatTheKernelCannotRead) {
  const ConvParams same1 = params_of({1}, {1}, {}, {1});
  const ConvProblem ndhwc = dense_problem(2, 64, 32, {4, 5, 6}, {3, 3, 3}, same1, Layout::ndhwc, true);
  const dense::ChannelsLastPlan direct = dense::plan_channels_last(ndhwc);
  EXPECT_FALSE(direct.stage_x || direct.stage_w || direct.stage_bias || direct.stage_y);
  EXPECT_EQ(direct.staging_bytes(), 0u);

  const ConvProblem ncdhw = dense_problem(2, 64, 32, {4, 5, 6}, {3, 3, 3}, same1, Layout::ncdhw, true);
  const dense::ChannelsLastPlan staged = dense::plan_channels_last(ncdhw);
  EXPECT_TRUE(staged.stage_x && staged.stage_w && staged.stage_y);
  EXPECT_EQ(staged.inner.x_layout(), Layout::ndhwc);
  EXPECT_EQ(staged.inner.w_layout(), Layout::ndhwc);
  EXPECT_EQ(staged.inner.y_layout(), Layout::ndhwc);
  EXPECT_EQ(staged.x_bytes, size_t(2 * 64 * 4 * 5 * 6 * 2 + 255) / 256 * 256);

  // C = 3 in channels-last: x and w are padded to 8 channels, y is written in place.
  const ConvProblem stem = dense_problem(1, 3, 16, {4, 5, 6}, {3, 3, 3}, same1, Layout::ndhwc, false);
  const dense::ChannelsLastPlan padded = dense::plan_channels_last(stem);
  EXPECT_EQ(padded.inner.C, 8);
  EXPECT_TRUE(padded.stage_x && padded.stage_w);
  EXPECT_FALSE(padded.stage_y);
  EXPECT_EQ(padded.w_bytes, size_t(16 * 27 * 8 * 2 + 255) / 256 * 256);
  EXPECT_EQ(padded.inner.x_strides[1], 1);
  EXPECT_EQ(padded.inner.x_strides[4], 8);

  // K = 3 (an RGB head) in channels-last: filters, bias and y padded to 8 output channels; y staged and copied out.
  const ConvProblem head = dense_problem(1, 16, 3, {4, 5, 6}, {3, 3, 3}, same1, Layout::ndhwc, true);
  const dense::ChannelsLastPlan head_plan = dense::plan_channels_last(head);
  EXPECT_EQ(head_plan.inner.K, 8);
  EXPECT_FALSE(head_plan.stage_x);
  EXPECT_TRUE(head_plan.stage_w && head_plan.stage_bias && head_plan.stage_y);
  EXPECT_EQ(head_plan.w_bytes, size_t(8 * 27 * 16 * 2 + 255) / 256 * 256);
  EXPECT_EQ(head_plan.bias_bytes, 256u);
  EXPECT_EQ(head_plan.y_bytes, size_t(4 * 5 * 6 * 8 * 2 + 255) / 256 * 256);
  EXPECT_EQ(head_plan.inner.y_strides[4], 8);
  EXPECT_FALSE(dense::output_order_refusal(head, dense::OutputOrder::ncdhw_one_image).empty());

  // Channels-last tensors at addresses TMA cannot take: staged like any other layout.
  TensorView x_shifted = dense_view({1, 64, 4, 5, 6}, DType::bf16, Layout::ndhwc);
  x_shifted.data = reinterpret_cast<void*>(uintptr_t{4096 + 8});
  const TensorView w_cl = dense_view({32, 64, 3, 3, 3}, DType::bf16, Layout::ndhwc);
  TensorView y_shifted = dense_view({1, 32, 4, 5, 6}, DType::bf16, Layout::ndhwc);
  y_shifted.data = reinterpret_cast<void*>(uintptr_t{4096 + 2});
  const dense::ChannelsLastPlan moved = dense::plan_channels_last(make_problem(x_shifted, w_cl, nullptr, &y_shifted, same1));
  EXPECT_TRUE(moved.stage_x && moved.stage_y);
  EXPECT_FALSE(moved.stage_w);

  // A kernel that writes one image's NCDHW y: x and w staged, y written in place (the caller's strides).
  const ConvProblem image = dense_problem(1, 64, 32, {4, 5, 6}, {3, 3, 3}, same1, Layout::ncdhw, true);
  const dense::ChannelsLastPlan ncdhw_out = dense::plan_channels_last(image, dense::OutputOrder::ncdhw_one_image);
  EXPECT_TRUE(ncdhw_out.stage_x && ncdhw_out.stage_w);
  EXPECT_FALSE(ncdhw_out.stage_y);
  EXPECT_EQ(ncdhw_out.y_bytes, 0u);
  EXPECT_EQ(ncdhw_out.inner.y_strides, image.y_strides);
  EXPECT_THROW(dense::plan_channels_last(ncdhw, dense::OutputOrder::ncdhw_one_image), Error);  // N = 2
}

// The SASS check the issue asks for: the tensor-core kernels use wgmma (HGMMA) and never touch local memory.
TEST(DenseSass, TensorCoreKernelsUseWgmmaWithoutSpills) {
  const std::string path = default_asm_manifest_path();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no kernel build manifest at " << path << " (KFORGE_ASM=OFF)";
  const AsmManifest m = load_asm_manifest(path);
  try {
    find_cuda_tool("cuobjdump");
  } catch (const Error& e) {
    GTEST_SKIP() << "needs cuobjdump: " << e.what();
  }
  int checked = 0;
  for (const Variant* v : Registry::instance().family("dense")) {
    if (!is_tensor_core_variant(*v)) continue;
    const AsmUnit& unit = m.unit(v->source);
    const std::string sass = disassemble(unit.cubin);
    EXPECT_NE(sass.find("HGMMA"), std::string::npos) << v->name << ": no wgmma in its SASS";
    for (const KernelResources& k : resource_usage(unit.cubin)) {
      EXPECT_EQ(k.local_bytes, 0) << v->name << ": " << k.name << " uses local memory (spills)";
      EXPECT_EQ(k.stack_bytes, 0) << v->name << ": " << k.name << " has a stack frame";
    }
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

}  // namespace
}  // namespace kforge
