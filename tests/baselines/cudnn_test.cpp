// The cuDNN anchor: what accepts() refuses and why (CPU), and its output against the fp64 CPU reference on small
// shapes covering dense, groups, depthwise, NDHWC, bias, stride and dilation (GPU).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/random.hpp"
#include "dispatch/registry.hpp"
#include "gpu_test_util.hpp"
#include "measure/metrics.hpp"
#include "reference/reference.hpp"
#include "reference/reference_test_util.hpp"

namespace kforge {
namespace {


const Variant& cudnn_variant() {
  const Variant* v = Registry::instance().find("cudnn");
  if (!v) throw Error("the cudnn variant is not registered");
  return *v;
}

ConvParams params(std::vector<int64_t> padding, std::vector<int64_t> stride = {1}, std::vector<int64_t> dilation = {1},
                  int64_t groups = 1) {
  ConvParams p;
  p.padding = std::move(padding);
  p.stride = std::move(stride);
  p.dilation = std::move(dilation);
  p.groups = groups;
  return p;
}

void expect_refusal(const ConvProblem& p, const std::string& needle) {
  const std::string why = cudnn_variant().accepts(p);
  EXPECT_NE(why.find(needle), std::string::npos) << "reason was: '" << why << "' for " << p.describe();
}

TEST(CudnnAnchor, RegisteredAsANonLibraryBaseline) {
  const Variant& v = cudnn_variant();
  EXPECT_EQ(v.family, "baseline");
  EXPECT_FALSE(v.library);
  EXPECT_FALSE(v.idea.empty());
}

TEST(CudnnAnchor, AcceptsDenseLayoutsInHalfAndSingleTypes) {
  for (DType t : {DType::bf16, DType::f16, DType::f32}) {
    for (Layout l : {Layout::ncdhw, Layout::ndhwc}) {
      const ConvProblem p = ConvProblem::dense(2, 8, 16, {5, 6, 7}, {3, 3, 3}, params({1}), t, l, true);
      EXPECT_EQ(cudnn_variant().accepts(p), "") << p.describe();
    }
  }
}

TEST(CudnnAnchor, RefusesAsymmetricPadding) {
  ConvParams prm = params({1});
  prm.padding_hi = {2};
  expect_refusal(ConvProblem::dense(1, 4, 4, {8, 8, 8}, {3, 3, 3}, prm, DType::bf16, Layout::ncdhw, false),
                 "asymmetric padding");
}

TEST(CudnnAnchor, RefusesFp8) {
  expect_refusal(
      ConvProblem::dense(1, 4, 4, {8, 8, 8}, {3, 3, 3}, params({1}), DType::fp8_e4m3, Layout::ncdhw, false), "fp8");
}

TEST(CudnnAnchor, RefusesTensorsPastInt32Descriptors) {
  // x has 64 * 64 * 1024 * 1024 = 2^32 elements.
  expect_refusal(ConvProblem::dense(1, 64, 8, {64, 1024, 1024}, {1, 1, 1}, params({0}), DType::bf16, Layout::ncdhw,
                                    false),
                 "int32");
}

TEST(CudnnAnchor, RefusesMixedLayouts) {
  const TensorView x = TensorView::channels_last(nullptr, DType::bf16, {1, 4, 6, 6, 6});
  const TensorView w = TensorView::channels_last(nullptr, DType::bf16, {4, 4, 3, 3, 3});
  const TensorView y = TensorView::contiguous(nullptr, DType::bf16, {1, 4, 4, 4, 4});
  expect_refusal(make_problem(x, w, nullptr, &y, ConvParams{}), "dense NCDHW");
}

// Runs the anchor twice (the first launch autotunes, the second reuses the plan) on fresh random inputs and
// checks each output, poisoned with NaN beforehand, against the CPU reference.
void check_against_reference(const ConvProblem& p, uint64_t seed) {
  const Variant& v = cudnn_variant();
  ASSERT_EQ(v.accepts(p), "") << p.describe();
  const size_t e = dtype_size(p.dtype);
  DeviceBuffer x(p.x_numel() * e), w(p.w_numel() * e), b(p.K * e), y(p.y_numel() * e);
  cudaStream_t s = nullptr;
  KF_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  fill_uniform(x.get(), p.dtype, p.x_numel(), seed, -1, 1, s);
  fill_uniform(w.get(), p.dtype, p.w_numel(), seed + 1, -1, 1, s);
  fill_uniform(b.get(), p.dtype, p.K, seed + 2, -1, 1, s);
  KF_CUDA_CHECK(cudaStreamSynchronize(s));

  const auto hx = x.download<unsigned char>(), hw = w.download<unsigned char>(), hb = b.download<unsigned char>();
  std::vector<double> ref(p.y_numel());
  reference_conv_cpu(p, hx.data(), hw.data(), p.has_bias ? hb.data() : nullptr, ref.data());

  const ConvArgs args{x.get(), w.get(), p.has_bias ? b.get() : nullptr, y.get(), nullptr};
  for (const char* launch : {"first (autotuning)", "second (cached plan)"}) {
    fill_nan(y.get(), p.dtype, p.y_numel(), s);
    v.launch(p, args, s);
    KF_CUDA_CHECK(cudaStreamSynchronize(s));
    const auto hy = y.download<unsigned char>();
    const ErrorStats st = compare_host(hy.data(), p.dtype, ref.data(), p.y_numel());
    EXPECT_TRUE(st.passes(1e-5, 1e-2)) << p.describe() << ", " << launch << " launch: " << st.summary();
  }
  KF_CUDA_CHECK(cudaStreamDestroy(s));
}

TEST(CudnnAnchor, MatchesReference) {
  KF_REQUIRE_GPU();
  const std::vector<ConvProblem> problems = {
      // dense NCDHW f32
      ConvProblem::dense(2, 3, 4, {5, 6, 7}, {3, 3, 3}, params({1}), DType::f32, Layout::ncdhw, false),
      // groups = 2, stride 2, bf16
      ConvProblem::dense(1, 4, 6, {6, 7, 8}, {3, 3, 3}, params({1}, {2}), DType::bf16, Layout::ncdhw, false),
      // depthwise with bias, anisotropic kernel and padding, f16
      ConvProblem::dense(2, 8, 8, {7, 8, 9}, {3, 5, 5}, params({1, 2, 2}, {1}, {1}, 8), DType::f16, Layout::ncdhw,
                         true),
      // NDHWC (KTRSC filter) with bias, bf16
      ConvProblem::dense(2, 16, 8, {5, 6, 7}, {3, 3, 3}, params({1}), DType::bf16, Layout::ndhwc, true),
      // NDHWC depthwise, depth multiplier 2, dilation 2, bias
      ConvProblem::dense(1, 8, 16, {6, 9, 9}, {3, 3, 3}, params({2}, {1}, {2}, 8), DType::bf16, Layout::ndhwc, true),
      // a 2D problem as 3D with unit depth, groups = 2
      ConvProblem::dense(2, 4, 6, {1, 12, 13}, {1, 3, 3}, params({0, 1, 1}, {1}, {1}, 2), DType::f32, Layout::ncdhw,
                         true),
  };
  uint64_t seed = 100;
  for (const ConvProblem& p : problems) check_against_reference(p, seed += 8);
}

}  // namespace
}  // namespace kforge
