// kforge::conv end to end on the GPU: the dispatcher's choice against the fp64 CPU reference, 1D/2D/3D.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/random.hpp"
#include "gpu_test_util.hpp"
#include "kforge/conv.hpp"
#include "measure/metrics.hpp"
#include "reference/reference.hpp"

namespace kforge {
namespace {

struct Case {
  std::vector<int64_t> x, w;
  ConvParams prm;
  bool bias;
  int64_t offset = 0;  // every tensor starts this many elements into its allocation (a view, maybe misaligned)
  // In bf16, the dispatched variant's name must contain `runs` and must not contain `avoids` (when set).
  std::string runs = "", avoids = "";
};

// Runs kforge::conv on fresh inputs and checks against the CPU fp64 reference.
void check(const Case& c, DType dtype, uint64_t seed) {
  auto make = [&](void* data, const std::vector<int64_t>& s) {
    TensorView v = TensorView::contiguous(data, dtype, {1});
    v.rank = static_cast<int>(s.size());
    int64_t st = 1;
    for (int i = v.rank - 1; i >= 0; --i) {
      v.sizes[i] = s[i];
      v.strides[i] = st;
      st *= s[i];
    }
    return v;
  };
  TensorView x = make(nullptr, c.x), w = make(nullptr, c.w);
  const std::vector<int64_t> ys = conv_output_sizes(x, w, c.prm);
  TensorView y = make(nullptr, ys), b = make(nullptr, {c.w[0]});
  const size_t e = dtype_size(dtype);
  std::vector<void*> allocations;
  for (TensorView* t : {&x, &w, &y, &b}) {
    ASSERT_EQ(cudaMalloc(&t->data, (t->numel() + c.offset) * e), cudaSuccess);
    allocations.push_back(t->data);
    t->data = static_cast<char*>(t->data) + c.offset * e;
  }
  fill_uniform(x.data, dtype, x.numel(), seed, -1, 1, nullptr);
  fill_uniform(w.data, dtype, w.numel(), seed + 1, -1, 1, nullptr);
  fill_uniform(b.data, dtype, b.numel(), seed + 2, -1, 1, nullptr);
  fill_nan(y.data, dtype, y.numel(), nullptr);
  const std::string ran = conv(x, w, c.bias ? &b : nullptr, y, c.prm, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (dtype == DType::bf16) {
    EXPECT_NE(ran.find(c.runs), std::string::npos) << ran;
    if (!c.avoids.empty()) EXPECT_EQ(ran.find(c.avoids), std::string::npos) << ran;
  }

  const ConvProblem p = make_problem(x, w, c.bias ? &b : nullptr, &y, c.prm);
  std::vector<char> hx(x.numel() * e), hw(w.numel() * e), hb(b.numel() * e), hy(y.numel() * e);
  cudaMemcpy(hx.data(), x.data, hx.size(), cudaMemcpyDeviceToHost);
  cudaMemcpy(hw.data(), w.data, hw.size(), cudaMemcpyDeviceToHost);
  cudaMemcpy(hb.data(), b.data, hb.size(), cudaMemcpyDeviceToHost);
  cudaMemcpy(hy.data(), y.data, hy.size(), cudaMemcpyDeviceToHost);
  std::vector<double> ref(y.numel());
  reference_conv_cpu(p, hx.data(), hw.data(), c.bias ? hb.data() : nullptr, ref.data());
  const ErrorStats st = compare_host(hy.data(), dtype, ref.data(), y.numel());
  EXPECT_TRUE(st.passes(1e-5, 1e-2)) << p.describe() << " via " << ran << ": " << st.summary();
  for (void* ptr : allocations) cudaFree(ptr);
}

TEST(Conv, DispatchedVariantsMatchReference) {
  KF_REQUIRE_GPU();
  ConvParams dw;
  dw.groups = 6;
  dw.padding = {1};
  ConvParams dense;
  dense.stride = {2};
  dense.padding = {1};
  dense.padding_hi = {0};
  ConvParams grouped;
  grouped.groups = 2;
  grouped.dilation = {2};
  const std::vector<Case> cases = {
      {{2, 6, 5, 9, 10}, {12, 1, 3, 3, 3}, dw, true},          // depthwise, multiplier 2
      {{1, 5, 7, 8, 9}, {4, 5, 3, 3, 3}, dense, true},         // dense, stride 2, asymmetric padding
      {{1, 4, 9, 9, 9}, {6, 2, 3, 3, 3}, grouped, false},      // groups 2, dilation 2
      {{3, 4, 33}, {4, 1, 5}, [] { ConvParams p; p.groups = 4; p.padding = {2}; return p; }(), true},  // conv1d dw
      {{2, 3, 12, 13}, {5, 3, 3, 3}, [] { ConvParams p; p.padding = {1}; return p; }(), false},        // conv2d
      // Pointwise: the GEMM on the tensors in place; views one / three elements in (misaligned for TMA) are staged.
      {{2, 16, 4, 6, 8}, {24, 16, 1, 1, 1}, ConvParams{}, true, 0, "pointwise_gemm"},
      {{2, 16, 4, 6, 8}, {24, 16, 1, 1, 1}, ConvParams{}, true, 1, "dense_v", "pointwise_gemm"},
      {{1, 16, 6, 8}, {16, 16, 1, 1}, ConvParams{}, false, 3, "dense_v", "pointwise_gemm"},  // conv2d
  };
  uint64_t seed = 100;
  for (const Case& c : cases)
    for (DType t : {DType::bf16, DType::f32}) check(c, t, seed += 10);
}

}  // namespace
}  // namespace kforge
