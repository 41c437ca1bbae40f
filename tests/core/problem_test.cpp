// ConvProblem: derived sizes, FLOPs/bytes, layouts, and every validation message at the API boundary.
#include <gtest/gtest.h>

#include "kforge/conv.hpp"

namespace kforge {
namespace {

TensorView x5(std::initializer_list<int64_t> s, DType t = DType::bf16) { return TensorView::contiguous(nullptr, t, s); }

// Expects make_problem to throw kforge::Error whose message contains `needle`.
void expect_error(const TensorView& x, const TensorView& w, const TensorView* b, const TensorView* y,
                  const ConvParams& p, const std::string& needle) {
  try {
    make_problem(x, w, b, y, p);
    FAIL() << "expected an error containing: " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message was: " << e.what();
  }
}

TEST(Problem, EvokernelDerivedQuantities) {
  ConvParams prm;
  prm.padding = {0, 2, 2};
  prm.groups = 512;
  const ConvProblem p = ConvProblem::dense(1, 512, 512, {61, 45, 80}, {3, 5, 5}, prm, DType::bf16, Layout::ncdhw, true);
  EXPECT_EQ(p.Do, 59);
  EXPECT_EQ(p.Ho, 45);
  EXPECT_EQ(p.Wo, 80);
  EXPECT_TRUE(p.is_depthwise());
  EXPECT_EQ(p.x_layout(), Layout::ncdhw);
  EXPECT_EQ(p.y_layout(), Layout::ncdhw);
  // 2 * outputs * taps = 2 * 512*59*45*80 * 75
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 512 * 59 * 45 * 80 * 75);
  // bytes: input + weight + output + bias, bf16; the brief's 442 MB.
  EXPECT_DOUBLE_EQ(p.min_bytes(), 2.0 * (512.0 * 61 * 45 * 80 + 512 * 75 + 512.0 * 59 * 45 * 80 + 512));
  EXPECT_NEAR(p.min_bytes() / 1e6, 442.4, 0.1);
}

TEST(Problem, ChannelsLastStridesAndLayout) {
  ConvParams prm;
  prm.padding = {1};
  const ConvProblem p = ConvProblem::dense(2, 8, 16, {4, 5, 6}, {3, 3, 3}, prm, DType::f32, Layout::ndhwc, false);
  EXPECT_EQ(p.x_layout(), Layout::ndhwc);
  EXPECT_EQ(p.y_layout(), Layout::ndhwc);
  EXPECT_EQ(p.x_strides[1], 1);            // C innermost
  EXPECT_EQ(p.x_strides[4], 8);            // W next
  EXPECT_EQ(p.x_strides[0], 4 * 5 * 6 * 8);
  EXPECT_EQ(p.w_strides[1], 1);            // filters follow the input's memory format (KTRSC)
}

TEST(Problem, OneAndTwoDimensionalAreUnitSized3D) {
  ConvParams prm;
  prm.stride = {2};
  prm.padding = {1};
  const ConvProblem p1 = make_problem(x5({2, 3, 17}), x5({4, 3, 5}), nullptr, nullptr, prm);
  EXPECT_EQ(p1.spatial_rank, 1);
  EXPECT_EQ(p1.D, 1);
  EXPECT_EQ(p1.H, 1);
  EXPECT_EQ(p1.Wo, (17 + 2 - 5) / 2 + 1);
  EXPECT_EQ(p1.Do, 1);
  EXPECT_EQ(p1.stride[0], 1);  // the unit dimensions get neutral parameters
  ConvParams prm2;
  prm2.stride = {1, 2};
  prm2.padding = {0, 1};
  prm2.padding_hi = {2, 0};
  const ConvProblem p2 = make_problem(x5({1, 3, 10, 11}), x5({6, 3, 3, 3}), nullptr, nullptr, prm2);
  EXPECT_EQ(p2.spatial_rank, 2);
  EXPECT_EQ(p2.Ho, 10 + 0 + 2 - 3 + 1);
  EXPECT_EQ(p2.Wo, (11 + 1 + 0 - 3) / 2 + 1);
  const auto sizes = conv_output_sizes(x5({1, 3, 10, 11}), x5({6, 3, 3, 3}), prm2);
  EXPECT_EQ(sizes, (std::vector<int64_t>{1, 6, p2.Ho, p2.Wo}));
}

TEST(Problem, DilationAndAsymmetricPaddingOutputSize) {
  EXPECT_EQ(conv_output_size(12, 3, 1, 2, 2, 2), 12);
  EXPECT_EQ(conv_output_size(10, 3, 2, 0, 1, 1), 5);
  EXPECT_EQ(conv_output_size(7, 7, 1, 0, 0, 1), 1);
}

TEST(Validation, PyTorchStyleMessages) {
  ConvParams prm;
  expect_error(x5({1, 4, 8, 8}), x5({4, 4, 3, 3, 3}), nullptr, nullptr, prm, "4-dimensional input");
  expect_error(x5({1, 4}), x5({4, 4}), nullptr, nullptr, prm, "Expected 3D, 4D or 5D (batched) input");
  expect_error(x5({1, 4, 8, 8, 8}), x5({4, 3, 3, 3, 3}), nullptr, nullptr, prm,
               "expected input[1, 4, 8, 8, 8] to have 3 channels, but got 4 channels instead");
  ConvParams g3;
  g3.groups = 3;
  expect_error(x5({1, 6, 8, 8, 8}), x5({4, 2, 3, 3, 3}), nullptr, nullptr, g3,
               "expected weight to be divisible by 3 at dimension 0");
  ConvParams bad;
  bad.stride = {0};
  expect_error(x5({1, 4, 8, 8, 8}), x5({4, 4, 3, 3, 3}), nullptr, nullptr, bad, "non-positive stride is not supported");
  bad = {};
  bad.dilation = {1, 0, 1};
  expect_error(x5({1, 4, 8, 8, 8}), x5({4, 4, 3, 3, 3}), nullptr, nullptr, bad, "dilation should be greater than zero");
  bad = {};
  bad.padding = {-1};
  expect_error(x5({1, 4, 8, 8, 8}), x5({4, 4, 3, 3, 3}), nullptr, nullptr, bad, "negative padding is not supported");
  bad = {};
  bad.groups = 0;
  expect_error(x5({1, 4, 8, 8, 8}), x5({4, 4, 3, 3, 3}), nullptr, nullptr, bad, "non-positive groups is not supported");
  bad = {};
  bad.stride = {1, 1};
  expect_error(x5({1, 4, 8, 8, 8}), x5({4, 4, 3, 3, 3}), nullptr, nullptr, bad,
               "expected stride to be a single integer value or a list of 3 values");
  expect_error(x5({1, 4, 2, 8, 8}), x5({4, 4, 3, 3, 3}), nullptr, nullptr, prm,
               "Calculated padded input size per channel: (2 x 8 x 8). Kernel size: (3 x 3 x 3). Kernel size can't be "
               "greater than actual input size");
  expect_error(x5({1, 4, 8, 8, 8}), x5({4, 4, 3, 3, 3}, DType::f32), nullptr, nullptr, prm,
               "expected input and weight to have the same dtype, but got input of dtype bf16 and weight of dtype f32");
  const TensorView b = TensorView::contiguous(nullptr, DType::bf16, {5});
  expect_error(x5({1, 4, 8, 8, 8}), x5({4, 4, 3, 3, 3}), &b, nullptr, prm,
               "expected bias to be 1-dimensional with 4 elements, but got bias of size [5] instead");
  const TensorView y = x5({1, 4, 6, 6, 5});
  expect_error(x5({1, 4, 8, 8, 8}), x5({4, 4, 3, 3, 3}), nullptr, &y, prm,
               "expected conv3d output of size [1, 4, 6, 6, 6], but got [1, 4, 6, 6, 5]");
  expect_error(x5({1, 4, 8, 8, 8}), x5({4, 4, 3, 0, 3}), nullptr, nullptr, prm, "expected non-zero kernel size");
}

TEST(Validation, SizeOverflowIsRefused) {
  ConvParams prm;
  const int64_t big = int64_t(1) << 40;
  expect_error(x5({big, big, 1, 1, 1}), x5({1, big, 1, 1, 1}), nullptr, nullptr, prm, "overflows 64-bit");
}

TEST(Validation, ZeroBatchIsValid) {
  const ConvProblem p = make_problem(x5({0, 4, 8, 8, 8}), x5({4, 4, 3, 3, 3}), nullptr, nullptr, ConvParams{});
  EXPECT_EQ(p.y_numel(), 0);
}

TEST(Problem, KeyDistinguishesLayoutsAndParameters) {
  ConvParams prm;
  const auto a = ConvProblem::dense(1, 8, 8, {4, 4, 4}, {3, 3, 3}, prm, DType::bf16, Layout::ncdhw, false);
  const auto b = ConvProblem::dense(1, 8, 8, {4, 4, 4}, {3, 3, 3}, prm, DType::bf16, Layout::ndhwc, false);
  prm.padding = {1};
  const auto c = ConvProblem::dense(1, 8, 8, {4, 4, 4}, {3, 3, 3}, prm, DType::bf16, Layout::ncdhw, false);
  EXPECT_NE(a.key(), b.key());
  EXPECT_NE(a.key(), c.key());
  EXPECT_EQ(a.key(), ConvProblem::dense(1, 8, 8, {4, 4, 4}, {3, 3, 3}, ConvParams{}, DType::bf16, Layout::ncdhw, false).key());
  ConvParams silu;
  silu.activation = Activation::silu;
  const auto d = ConvProblem::dense(1, 8, 8, {4, 4, 4}, {3, 3, 3}, silu, DType::bf16, Layout::ncdhw, false);
  EXPECT_EQ(d.activation, Activation::silu);
  EXPECT_EQ(d.key(), a.key() + " +silu");
}

TEST(Validation, ActivationNames) {
  EXPECT_EQ(parse_activation("silu"), Activation::silu);
  EXPECT_EQ(parse_activation("none"), Activation::none);
  EXPECT_STREQ(activation_name(Activation::silu), "silu");
  try {
    parse_activation("gelu");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown activation 'gelu': expected none or silu");
  }
  ConvParams bad;
  bad.activation = static_cast<Activation>(7);
  EXPECT_THROW(ConvProblem::dense(1, 8, 8, {4, 4, 4}, {3, 3, 3}, bad, DType::bf16, Layout::ncdhw, false), Error);
}

TEST(DType, NamesRoundTrip) {
  for (DType t : {DType::f32, DType::bf16, DType::f16, DType::fp8_e4m3}) EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  EXPECT_THROW(parse_dtype("int8"), Error);
  EXPECT_EQ(dtype_size(DType::fp8_e4m3), 1u);
}

}  // namespace
}  // namespace kforge
