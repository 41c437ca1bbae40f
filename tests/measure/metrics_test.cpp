// Correctness metrics and device fills: compare_host on crafted data, uniform_value's host stream, and on a
// GPU compare_device vs compare_host, fill_uniform vs uniform_value, fill_nan and bitwise_equal_device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/random.hpp"
#include "gpu_test_util.hpp"
#include "measure/metrics.hpp"
#include "reference/reference.hpp"
#include "reference/reference_test_util.hpp"

namespace kforge {
namespace {


const double kInf = std::numeric_limits<double>::infinity();
const DType kAllDTypes[4] = {DType::f32, DType::bf16, DType::f16, DType::fp8_e4m3};

ErrorStats compare_f32(const std::vector<float>& out, const std::vector<double>& ref) {
  EXPECT_EQ(out.size(), ref.size());
  return compare_host(out.data(), DType::f32, ref.data(), static_cast<int64_t>(out.size()));
}

TEST(CompareHost, IdenticalDataScoresZero) {
  const ErrorStats s = compare_f32({1.f, -2.f, 3.5f, 0.f}, {1.0, -2.0, 3.5, 0.0});
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.calc_diff, 0.0);
  EXPECT_EQ(s.rel_l2, 0.0);
  EXPECT_EQ(s.max_abs, 0.0);
  EXPECT_DOUBLE_EQ(s.ref_l2, std::sqrt(1.0 + 4.0 + 12.25));
  EXPECT_TRUE(s.passes(0.0, 0.0));
}

TEST(CompareHost, KnownPerturbation) {
  // ref (3, 4) has norm 5; the error (0, 0.5) has norm 0.5.
  const ErrorStats s = compare_f32({3.f, 4.5f}, {3.0, 4.0});
  EXPECT_DOUBLE_EQ(s.rel_l2, 0.1);
  EXPECT_DOUBLE_EQ(s.calc_diff, 1.0 - 2.0 * 27.0 / (29.25 + 25.0));
  EXPECT_DOUBLE_EQ(s.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(s.ref_l2, 5.0);
  EXPECT_TRUE(s.passes(1e-2, 0.2));
  EXPECT_FALSE(s.passes(1e-3, 0.2));   // calc_diff 4.6e-3 too large
  EXPECT_FALSE(s.passes(1e-2, 0.05));  // rel_l2 0.1 too large
}

TEST(CompareHost, NaNOutputAlwaysFails) {
  const ErrorStats s = compare_f32({1.f, std::nanf("")}, {1.0, 1.0});
  EXPECT_EQ(s.nan_count, 1);
  EXPECT_FALSE(s.passes(1e30, 1e30));
  EXPECT_NE(s.summary().find("nan 1 inf 0"), std::string::npos) << s.summary();
}

TEST(CompareHost, InfOutputFails) {
  const ErrorStats s = compare_f32({std::numeric_limits<float>::infinity(), 1.f}, {2.0, 1.0});
  EXPECT_EQ(s.inf_count, 1);
  EXPECT_EQ(s.nan_count, 0);
  EXPECT_EQ(s.max_abs, kInf);
  EXPECT_FALSE(s.passes(1e30, 1e30));
}

TEST(CompareHost, AllZeroOutputAgainstNonZeroReferenceFails) {
  const ErrorStats s = compare_f32({0.f, 0.f, 0.f}, {1.0, -2.0, 0.5});
  EXPECT_EQ(s.calc_diff, 1.0);
  EXPECT_EQ(s.rel_l2, 1.0);
  EXPECT_FALSE(s.passes(1e-3, 1e-2));
}

TEST(CompareHost, NonZeroOutputAgainstZeroReferenceFails) {
  const ErrorStats s = compare_f32({0.f, 1e-3f}, {0.0, 0.0});
  EXPECT_EQ(s.calc_diff, 1.0);
  EXPECT_EQ(s.rel_l2, kInf);
  EXPECT_FALSE(s.passes(1e-3, 1e-2));
}

TEST(CompareHost, BothZeroPasses) {
  const ErrorStats s = compare_f32({0.f, -0.f}, {0.0, 0.0});
  EXPECT_EQ(s.calc_diff, 0.0);
  EXPECT_EQ(s.rel_l2, 0.0);
  EXPECT_TRUE(s.passes(0.0, 0.0));
}

TEST(CompareHost, CosineSimilarity) {
  EXPECT_DOUBLE_EQ(compare_f32({3.f, 4.f}, {6.0, 8.0}).cosine, 1.0);  // parallel, whatever the scale
  EXPECT_DOUBLE_EQ(compare_f32({1.f, 0.f}, {0.0, 1.0}).cosine, 0.0);  // orthogonal
  EXPECT_DOUBLE_EQ(compare_f32({-1.f, -2.f}, {1.0, 2.0}).cosine, -1.0);
  EXPECT_DOUBLE_EQ(compare_f32({0.f, 0.f}, {0.0, 0.0}).cosine, 1.0);  // both zero: identical
  EXPECT_DOUBLE_EQ(compare_f32({0.f, 0.f}, {1.0, 0.0}).cosine, 0.0);
}

TEST(CompareHost, DecodesNarrowDTypes) {
  const std::vector<double> ref{1.0, -2.0, 0.5};
  const uint16_t bf16[3] = {0x3f80, 0xc000, 0x3f00};
  const uint16_t f16[3] = {0x3c00, 0xc000, 0x3800};
  const uint8_t e4m3[3] = {0x38, 0xc0, 0x30};
  EXPECT_EQ(compare_host(bf16, DType::bf16, ref.data(), 3).max_abs, 0.0);
  EXPECT_EQ(compare_host(f16, DType::f16, ref.data(), 3).max_abs, 0.0);
  EXPECT_EQ(compare_host(e4m3, DType::fp8_e4m3, ref.data(), 3).max_abs, 0.0);
  const uint8_t e4m3_nan[1] = {0x7f};
  EXPECT_EQ(compare_host(e4m3_nan, DType::fp8_e4m3, ref.data(), 1).nan_count, 1);
}

TEST(CompareHost, RefusesNegativeCount) {
  const float out = 0.f;
  const double ref = 0.0;
  EXPECT_THROW(compare_host(&out, DType::f32, &ref, -1), Error);
}

TEST(UniformValue, DeterministicInRangeAndCentered) {
  const int n = 100000;
  double sum = 0.0;
  int repeats = 0;
  for (int i = 0; i < n; ++i) {
    const float v = uniform_value(42, i, -3.f, 5.f);
    ASSERT_GE(v, -3.f);
    ASSERT_LT(v, 5.f);
    ASSERT_EQ(v, uniform_value(42, i, -3.f, 5.f));
    repeats += v == uniform_value(43, i, -3.f, 5.f);
    sum += v;
  }
  EXPECT_NEAR(sum / n, 1.0, 0.05);  // standard error of the mean: 8/sqrt(12 n) = 0.007
  EXPECT_LT(repeats, 10);           // another seed is another stream
  EXPECT_NE(uniform_value(42, 0, 0.f, 1.f), uniform_value(42, 1, 0.f, 1.f));
}

// Random output in `dtype` (device) and a reference near it, with a few NaN and Inf outputs planted.
TEST(CompareDevice, EqualsCompareHost) {
  KF_REQUIRE_GPU();
  const int64_t n = (1 << 20) + 7;
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    DeviceBuffer out(n * dtype_size(dtype));
    fill_uniform(out.get(), dtype, n, 5, -2.f, 2.f, nullptr);
    std::vector<unsigned char> host_out = out.download<unsigned char>();
    std::vector<double> ref(n);
    for (int64_t i = 0; i < n; ++i) ref[i] = load_as_double(host_out.data(), dtype, i) + 1e-3 * uniform_value(6, i, -1.f, 1.f);
    if (dtype != DType::fp8_e4m3) testing::store_as(dtype, INFINITY, host_out.data(), 1000);  // e4m3 has no Inf
    testing::store_as(dtype, NAN, host_out.data(), n - 1);
    const DeviceBuffer planted(host_out), ref_device(ref);

    const ErrorStats host = compare_host(host_out.data(), dtype, ref.data(), n);
    const ErrorStats device = compare_device(planted.get(), dtype, ref_device.as<double>(), n, nullptr);
    EXPECT_EQ(device.count, host.count);
    EXPECT_EQ(device.nan_count, 1);
    EXPECT_EQ(device.nan_count, host.nan_count);
    EXPECT_EQ(device.inf_count, host.inf_count);
    EXPECT_EQ(device.max_abs, host.max_abs);  // a max does not depend on the order
    EXPECT_NEAR(device.calc_diff, host.calc_diff, 1e-12);
    EXPECT_NEAR(device.rel_l2, host.rel_l2, 1e-12 * host.rel_l2);
    EXPECT_NEAR(device.ref_l2, host.ref_l2, 1e-12 * host.ref_l2);
    EXPECT_GT(host.calc_diff, 0.0);

    const ErrorStats again = compare_device(planted.get(), dtype, ref_device.as<double>(), n, nullptr);
    EXPECT_EQ(std::memcmp(&again.calc_diff, &device.calc_diff, sizeof(double)), 0) << "not deterministic";
  }
}

// Two device outputs of one dtype against each other (kforge compare's B vs A): the reference is decoded from
// the same dtype, so the result equals compare_host against its values as doubles.
TEST(CompareOutputsDevice, EqualsCompareHostAgainstTheDecodedReference) {
  KF_REQUIRE_GPU();
  const int64_t n = (1 << 18) + 3;
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    DeviceBuffer out(n * dtype_size(dtype)), ref(n * dtype_size(dtype));
    fill_uniform(out.get(), dtype, n, 11, -2.f, 2.f, nullptr);
    fill_uniform(ref.get(), dtype, n, 12, -2.f, 2.f, nullptr);
    const std::vector<unsigned char> host_out = out.download<unsigned char>(), host_ref = ref.download<unsigned char>();
    std::vector<double> ref_doubles(n);
    for (int64_t i = 0; i < n; ++i) ref_doubles[i] = load_as_double(host_ref.data(), dtype, i);

    const ErrorStats host = compare_host(host_out.data(), dtype, ref_doubles.data(), n);
    const ErrorStats device = compare_outputs_device(out.get(), ref.get(), dtype, n, nullptr);
    EXPECT_EQ(device.count, n);
    EXPECT_EQ(device.max_abs, host.max_abs);
    EXPECT_NEAR(device.calc_diff, host.calc_diff, 1e-12);
    EXPECT_NEAR(device.cosine, host.cosine, 1e-12);
    EXPECT_GT(host.calc_diff, 0.5);  // independent draws: far apart
    const ErrorStats self = compare_outputs_device(out.get(), out.get(), dtype, n, nullptr);
    EXPECT_EQ(self.calc_diff, 0.0);
    EXPECT_DOUBLE_EQ(self.cosine, 1.0);
  }
}

TEST(FillUniform, DeviceValuesAreHostValuesConverted) {
  KF_REQUIRE_GPU();
  const int64_t n = 100003;
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    const size_t elem = dtype_size(dtype);
    DeviceBuffer device(n * elem);
    fill_uniform(device.get(), dtype, n, 9, -4.f, 4.f, nullptr);
    KF_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<unsigned char> got = device.download<unsigned char>();
    std::vector<unsigned char> expected(n * elem);
    for (int64_t i = 0; i < n; ++i) testing::store_as(dtype, uniform_value(9, i, -4.f, 4.f), expected.data(), i);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(std::memcmp(&got[i * elem], &expected[i * elem], elem), 0)
          << "element " << i << ": device " << load_as_double(got.data(), dtype, i) << ", host "
          << load_as_double(expected.data(), dtype, i);
    }

    // A shorter fill launches a different grid but writes the same prefix.
    DeviceBuffer shorter(1000 * elem);
    fill_uniform(shorter.get(), dtype, 1000, 9, -4.f, 4.f, nullptr);
    EXPECT_EQ(shorter.download<unsigned char>(), std::vector<unsigned char>(got.begin(), got.begin() + 1000 * elem));
  }
}

TEST(FillNaN, EveryElementIsNaN) {
  KF_REQUIRE_GPU();
  const int64_t n = 4099;
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    DeviceBuffer device(n * dtype_size(dtype));
    fill_uniform(device.get(), dtype, n, 1, -1.f, 1.f, nullptr);
    fill_nan(device.get(), dtype, n, nullptr);
    KF_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<unsigned char> got = device.download<unsigned char>();
    for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(std::isnan(load_as_double(got.data(), dtype, i))) << "element " << i;
  }
}

TEST(BitwiseEqualDevice, FindsASingleDifferentByte) {
  KF_REQUIRE_GPU();
  const size_t bytes = (1 << 16) + 13;
  std::vector<unsigned char> host(bytes);
  for (size_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>(i * 131 + 7);
  const DeviceBuffer a(host);
  EXPECT_TRUE(bitwise_equal_device(a.get(), DeviceBuffer(host).get(), bytes, nullptr));
  for (size_t position : {size_t{0}, size_t{4097}, bytes - 1}) {
    std::vector<unsigned char> changed = host;
    changed[position] ^= 0x10;
    const DeviceBuffer b(changed);
    EXPECT_FALSE(bitwise_equal_device(a.get(), b.get(), bytes, nullptr)) << "byte " << position;
    // Misaligned starts take the byte path; the difference is still inside the compared range.
    if (position > 0) {
      EXPECT_FALSE(bitwise_equal_device(a.as<unsigned char>() + 1, b.as<unsigned char>() + 1, bytes - 1, nullptr));
    }
  }
  EXPECT_TRUE(bitwise_equal_device(a.get(), a.get(), 0, nullptr));
}

}  // namespace
}  // namespace kforge
