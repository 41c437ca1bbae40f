// Float64 references: the CPU one against hand-computed convolutions and across layouts; the GPU one against
// the CPU one on random shapes covering groups, depthwise, stride, dilation, asymmetric padding, bias and dtypes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include "core/random.hpp"
#include "gpu_test_util.hpp"
#include "reference/reference.hpp"
#include "reference/reference_test_util.hpp"

namespace kforge {
namespace {

using testing::for_each_index;
using testing::offset_of;
using testing::strided_buffer;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

TensorView view(DType dtype, const std::vector<int64_t>& s, bool channels_last) {
  const auto make = channels_last ? &TensorView::channels_last : &TensorView::contiguous;
  switch (s.size()) {
    case 1: return make(nullptr, dtype, {s[0]});
    case 3: return make(nullptr, dtype, {s[0], s[1], s[2]});
    case 4: return make(nullptr, dtype, {s[0], s[1], s[2], s[3]});
    case 5: return make(nullptr, dtype, {s[0], s[1], s[2], s[3], s[4]});
  }
  throw Error("test view: unsupported rank " + std::to_string(s.size()));
}

// The problem kforge::conv would build for these views (the output view in the input's layout).
ConvProblem problem_of(const std::vector<int64_t>& x_sizes, const std::vector<int64_t>& w_sizes, bool has_bias,
                       const ConvParams& params, DType dtype = DType::f32, bool channels_last = false) {
  const TensorView x = view(dtype, x_sizes, channels_last);
  const TensorView w = view(dtype, w_sizes, channels_last);
  const TensorView b = view(dtype, {w_sizes[0]}, false);
  const TensorView y = view(dtype, conv_output_sizes(x, w, params), channels_last);
  return make_problem(x, w, has_bias ? &b : nullptr, &y, params);
}

// CPU reference of a dense contiguous f32 problem; the result is in logical (row-major) order.
std::vector<double> cpu_conv(const std::vector<int64_t>& x_sizes, const std::vector<float>& x,
                             const std::vector<int64_t>& w_sizes, const std::vector<float>& w,
                             const std::vector<float>& bias, const ConvParams& params) {
  const ConvProblem p = problem_of(x_sizes, w_sizes, !bias.empty(), params);
  EXPECT_EQ(static_cast<int64_t>(x.size()), p.x_numel());
  EXPECT_EQ(static_cast<int64_t>(w.size()), p.w_numel());
  std::vector<double> y(p.y_numel(), kNaN);
  reference_conv_cpu(p, x.data(), w.data(), bias.empty() ? nullptr : bias.data(), y.data());
  return y;
}

// 3x3 image [[1,2,3],[4,5,6],[7,8,9]] and 2x2 filter [[1,2],[3,4]] as 3D problems with unit depth.
const std::vector<int64_t> kImageSizes{1, 1, 1, 3, 3};
const std::vector<float> kImage{1, 2, 3, 4, 5, 6, 7, 8, 9};
const std::vector<int64_t> kFilterSizes{1, 1, 1, 2, 2};
const std::vector<float> kFilter{1, 2, 3, 4};

TEST(CpuReference, ValidConvolutionByHand) {
  EXPECT_EQ(cpu_conv(kImageSizes, kImage, kFilterSizes, kFilter, {}, {}), (std::vector<double>{37, 47, 67, 77}));
}

TEST(CpuReference, BiasIsAddedToEveryOutput) {
  EXPECT_EQ(cpu_conv(kImageSizes, kImage, kFilterSizes, kFilter, {0.5f}, {}),
            (std::vector<double>{37.5, 47.5, 67.5, 77.5}));
}

TEST(CpuReference, StrideTwoWithPadding) {
  ConvParams params;
  params.stride = {1, 2, 2};
  params.padding = {0, 1, 1};
  // Output (i, j) reads input rows/cols 2i-1 .. 2i and 2j-1 .. 2j; row/col -1 is padding.
  EXPECT_EQ(cpu_conv(kImageSizes, kImage, kFilterSizes, kFilter, {}, params), (std::vector<double>{4, 18, 36, 77}));
}

TEST(CpuReference, DilationTwo) {
  ConvParams params;
  params.dilation = {1, 2, 2};
  // The dilated 2x2 filter touches the four corners: 1*1 + 3*2 + 7*3 + 9*4.
  EXPECT_EQ(cpu_conv(kImageSizes, kImage, kFilterSizes, kFilter, {}, params), (std::vector<double>{64}));
}

TEST(CpuReference, AsymmetricPadding) {
  ConvParams params;
  params.padding = {0, 0, 1};     // h: 0 above, w: 1 on the left
  params.padding_hi = {0, 1, 0};  // h: 1 below, w: 0 on the right
  const std::vector<double> expected{18, 37, 47,   // row 0: column -1 is padding
                                     36, 67, 77,   //
                                     14, 23, 26};  // row 2 reads row 3, which is padding
  EXPECT_EQ(cpu_conv(kImageSizes, kImage, kFilterSizes, kFilter, {}, params), expected);
}

TEST(CpuReference, GroupsReadOnlyTheirOwnChannels) {
  ConvParams params;
  params.groups = 2;
  // Four channels of width 2; filter k=0 sees channels 0,1 and filter k=1 sees channels 2,3.
  const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<float> w{1, 10, 100, 1000};
  EXPECT_EQ(cpu_conv({1, 4, 1, 1, 2}, x, {2, 2, 1, 1, 1}, w, {}, params),
            (std::vector<double>{31, 42, 7500, 8600}));
}

TEST(CpuReference, DepthMultiplierTwo) {
  ConvParams params;
  params.groups = 2;
  // Two channels, four filters: outputs 0,1 scale channel 0 by 1,2 and outputs 2,3 scale channel 1 by 3,4.
  EXPECT_EQ(cpu_conv({1, 2, 1, 1, 2}, {1, 2, 3, 4}, {4, 1, 1, 1, 1}, {1, 2, 3, 4}, {}, params),
            (std::vector<double>{1, 2, 2, 4, 9, 12, 12, 16}));
}

TEST(CpuReference, Conv1dWithBatchStrideAndPadding) {
  ConvParams params;
  params.stride = {2};
  params.padding = {1};
  const ConvProblem p = problem_of({2, 1, 5}, {1, 1, 3}, false, params);
  EXPECT_EQ(p.spatial_rank, 1);
  EXPECT_EQ(p.Wo, 3);
  // Central difference x[i-1] - x[i+1] at i = 0, 2, 4 of two batches.
  EXPECT_EQ(cpu_conv({2, 1, 5}, {1, 2, 3, 4, 5, 5, 4, 3, 2, 1}, {1, 1, 3}, {1, 0, -1}, {}, params),
            (std::vector<double>{-2, -2, 4, -4, 2, 2}));
}

TEST(CpuReference, Conv2dTwoChannelsWithBiasAndPadding) {
  ConvParams params;
  params.padding = {0, 1};
  const std::vector<float> x{1, 2, 3, 4, /* channel 1 */ 5, 6, 7, 8};
  const std::vector<float> w{1, 1, 1, 1, /* channel 1 */ 2, 0, 0, -1};
  // Output column j reads input columns j-1, j: the full overlap is 10 + 2, the edges see one column each.
  EXPECT_EQ(cpu_conv({1, 2, 2, 2}, x, {1, 2, 2, 2}, w, {-2}, params), (std::vector<double>{-5, 10, 16}));
}

// Random x, w, bias for problem p (values in [-1, 1) by logical index, stored in p's layout).
struct HostInputs {
  std::vector<unsigned char> x, w, bias;
};

HostInputs random_inputs(const ConvProblem& p, uint64_t seed) {
  const int64_t cpg = p.channels_per_group();
  HostInputs in;
  in.x = strided_buffer(p.dtype, {p.N, p.C, p.D, p.H, p.W}, p.x_strides,
                        [&](int64_t j) { return uniform_value(seed, j, -1.f, 1.f); });
  in.w = strided_buffer(p.dtype, {p.K, cpg, p.T, p.R, p.S}, p.w_strides,
                        [&](int64_t j) { return uniform_value(seed + 1, j, -1.f, 1.f); });
  in.bias.resize(p.K * dtype_size(p.dtype));
  for (int64_t k = 0; k < p.K; ++k) testing::store_as(p.dtype, uniform_value(seed + 2, k, -1.f, 1.f), in.bias.data(), k);
  return in;
}

std::vector<double> cpu_reference(const ConvProblem& p, const HostInputs& in, int threads = 0) {
  std::vector<double> y(testing::span_of({p.N, p.K, p.Do, p.Ho, p.Wo}, p.y_strides), kNaN);
  reference_conv_cpu(p, in.x.data(), in.w.data(), p.has_bias ? in.bias.data() : nullptr, y.data(), threads);
  return y;
}

TEST(CpuReference, SameValuesInChannelsLastLayout) {
  ConvParams params;
  params.groups = 2;
  params.stride = {1, 2, 1};
  params.padding = {1, 0, 2};
  params.padding_hi = {0, 1, 1};
  params.dilation = {2, 1, 1};
  for (DType dtype : {DType::f32, DType::bf16}) {
    const ConvProblem first = problem_of({2, 4, 5, 6, 7}, {6, 2, 2, 3, 2}, true, params, dtype, false);
    const ConvProblem last = problem_of({2, 4, 5, 6, 7}, {6, 2, 2, 3, 2}, true, params, dtype, true);
    ASSERT_EQ(first.x_layout(), Layout::ncdhw);
    ASSERT_EQ(last.x_layout(), Layout::ndhwc);
    const std::vector<double> y_first = cpu_reference(first, random_inputs(first, 7));
    const std::vector<double> y_last = cpu_reference(last, random_inputs(last, 7));
    int64_t compared = 0;
    // Same arithmetic in the same order, so the values are bitwise equal, only stored elsewhere.
    for_each_index({first.N, first.K, first.Do, first.Ho, first.Wo}, [&](const std::array<int64_t, 5>& i, int64_t) {
      const double a = y_first[offset_of(i, first.y_strides)];
      const double b = y_last[offset_of(i, last.y_strides)];
      ASSERT_FALSE(std::isnan(a));
      ASSERT_EQ(a, b) << "output index " << i[0] << "," << i[1] << "," << i[2] << "," << i[3] << "," << i[4];
      ++compared;
    });
    EXPECT_EQ(compared, first.y_numel());
  }
}

TEST(CpuReference, ThreadCountDoesNotChangeTheResult) {
  ConvParams params;
  params.groups = 3;
  params.padding = {1};
  const ConvProblem p = problem_of({3, 6, 4, 5, 6}, {9, 2, 3, 3, 3}, true, params, DType::bf16);
  const HostInputs in = random_inputs(p, 11);
  const std::vector<double> one = cpu_reference(p, in, 1);
  EXPECT_EQ(one, cpu_reference(p, in, 4));
  EXPECT_EQ(one, cpu_reference(p, in, 0));
}

TEST(CpuReference, RefusesProblemWithoutOutputStrides) {
  const TensorView x = view(DType::f32, {1, 1, 1, 3, 3}, false);
  const TensorView w = view(DType::f32, {1, 1, 1, 2, 2}, false);
  const ConvProblem p = make_problem(x, w, nullptr, nullptr, {});  // y_strides stay zero
  std::vector<float> buf(9);
  std::vector<double> y(4);
  EXPECT_THROW(reference_conv_cpu(p, buf.data(), buf.data(), nullptr, y.data()), Error);
}

TEST(CpuReference, RefusesMissingBias) {
  const ConvProblem p = problem_of(kImageSizes, kFilterSizes, true, {});
  std::vector<double> y(4);
  EXPECT_THROW(reference_conv_cpu(p, kImage.data(), kFilter.data(), nullptr, y.data()), Error);
}

// Decodes every bit pattern of the narrow formats exactly as CUDA's conversion headers do.
TEST(LoadAsDouble, MatchesCudaConversionsForEveryBitPattern) {
  const auto same = [](double a, float b) { return std::isnan(b) ? std::isnan(a) : a == static_cast<double>(b); };
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t b16 = static_cast<uint16_t>(bits);
    __half_raw h;
    h.x = b16;
    __nv_bfloat16_raw bf;
    bf.x = b16;
    ASSERT_TRUE(same(load_as_double(&b16, DType::f16, 0), __half2float(__half(h)))) << std::hex << bits;
    ASSERT_TRUE(same(load_as_double(&b16, DType::bf16, 0), __bfloat162float(__nv_bfloat16(bf)))) << std::hex << bits;
  }
  for (uint32_t bits = 0; bits < 0x100; ++bits) {
    __nv_fp8_e4m3 e;
    e.__x = static_cast<__nv_fp8_storage_t>(bits);
    ASSERT_TRUE(same(load_as_double(&e.__x, DType::fp8_e4m3, 0), static_cast<float>(e))) << std::hex << bits;
  }
  const float values[3] = {1.5f, -0.0f, 3.0e38f};
  EXPECT_EQ(load_as_double(values, DType::f32, 2), 3.0e38f);
  EXPECT_TRUE(std::signbit(load_as_double(values, DType::f32, 1)));
}

// A random problem of one of four channel structures (i % 4: dense, grouped, depthwise, depth multiplier 2).
ConvProblem random_problem(std::mt19937_64& rng, int i, DType dtype, bool channels_last) {
  const auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  ConvParams params;
  int64_t C = 1, K = 1;
  switch (i % 4) {
    case 0: C = pick(1, 5), K = pick(1, 5); break;
    case 1: params.groups = pick(2, 3), C = params.groups * pick(1, 3), K = params.groups * pick(1, 2); break;
    case 2: C = K = params.groups = pick(2, 8); break;
    case 3: C = params.groups = pick(2, 5), K = 2 * C; break;
  }
  params.stride.resize(3);
  params.padding.resize(3);
  params.padding_hi.resize(3);
  params.dilation.resize(3);
  std::vector<int64_t> x_sizes{pick(1, 2), C}, w_sizes{K, C / params.groups};
  for (int d = 0; d < 3; ++d) {
    const int64_t kernel = pick(1, 3);
    params.stride[d] = pick(1, 2);
    params.dilation[d] = pick(1, 2);
    params.padding[d] = pick(0, 2);
    params.padding_hi[d] = pick(0, 2);
    const int64_t extent = params.dilation[d] * (kernel - 1) + 1;
    x_sizes.push_back(pick(std::max<int64_t>(1, extent - params.padding[d] - params.padding_hi[d]), extent + 5));
    w_sizes.push_back(kernel);
  }
  return problem_of(x_sizes, w_sizes, pick(0, 1) == 1, params, dtype, channels_last);
}

TEST(GpuReference, MatchesCpuReferenceOnRandomShapes) {
  KF_REQUIRE_GPU();
  std::mt19937_64 rng(2024);
  const DType dtypes[4] = {DType::f32, DType::bf16, DType::f16, DType::fp8_e4m3};
  int strided = 0, dilated = 0, asymmetric = 0, biased = 0, batched = 0, grouped = 0, depthwise = 0;
  double worst_calc_diff = 0, worst_rel_l2 = 0;
  for (int i = 0; i < 32; ++i) {
    const ConvProblem p = random_problem(rng, i, dtypes[(i / 8) % 4], (i / 4) % 2 == 1);
    SCOPED_TRACE(p.describe());
    const HostInputs in = random_inputs(p, 100 + i);
    const std::vector<double> cpu = cpu_reference(p, in);

    const DeviceBuffer x(in.x), w(in.w), bias(in.bias);
    DeviceBuffer y(cpu.size() * sizeof(double));
    KF_CUDA_CHECK(cudaMemset(y.get(), 0xff, cpu.size() * sizeof(double)));  // NaN: an unwritten element shows
    reference_conv_gpu(p, x.get(), w.get(), p.has_bias ? bias.get() : nullptr, y.as<double>(), nullptr);
    KF_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<double> gpu = y.download<double>();

    double xy = 0, xx = 0, yy = 0, dd = 0;
    for (size_t j = 0; j < cpu.size(); ++j) {
      ASSERT_FALSE(std::isnan(gpu[j])) << "element " << j;
      xy += gpu[j] * cpu[j], xx += gpu[j] * gpu[j], yy += cpu[j] * cpu[j], dd += (gpu[j] - cpu[j]) * (gpu[j] - cpu[j]);
    }
    ASSERT_GT(yy, 0.0);
    EXPECT_LT(1.0 - 2.0 * xy / (xx + yy), 1e-12);
    EXPECT_LT(std::sqrt(dd / yy), 1e-12);
    worst_calc_diff = std::max(worst_calc_diff, 1.0 - 2.0 * xy / (xx + yy));
    worst_rel_l2 = std::max(worst_rel_l2, std::sqrt(dd / yy));

    strided += p.stride[0] * p.stride[1] * p.stride[2] > 1;
    dilated += p.dilation[0] * p.dilation[1] * p.dilation[2] > 1;
    asymmetric += p.pad_lo != p.pad_hi;
    biased += p.has_bias;
    batched += p.N > 1;
    grouped += p.groups > 1 && !p.is_depthwise();
    depthwise += p.is_depthwise();
  }
  // The evidence the foundation issue asks for, printed with the test log.
  std::cout << "GPU vs CPU fp64 reference on 32 random shapes: worst calc_diff " << worst_calc_diff
            << ", worst rel_l2 " << worst_rel_l2 << "\n";
  // The seed is fixed; these guard the coverage the test claims if the generator changes.
  EXPECT_GT(strided, 0);
  EXPECT_GT(dilated, 0);
  EXPECT_GT(asymmetric, 0);
  EXPECT_GT(biased, 0);
  EXPECT_GT(batched, 0);
  EXPECT_GT(grouped, 0);
  EXPECT_GT(depthwise, 0);
}

}  // namespace
}  // namespace kforge
