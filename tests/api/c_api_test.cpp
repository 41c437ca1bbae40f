// The C ABI: every failure is a status plus a message, never an exception or an abort.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "kforge/kforge.h"

namespace {

kforge_tensor tensor(void* data, std::vector<int64_t> sizes, int dtype = KFORGE_BF16) {
  kforge_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(sizes.size());
  int64_t stride = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    t.sizes[i] = sizes[i];
    t.strides[i] = stride;
    stride *= sizes[i];
  }
  return t;
}

kforge_conv_params params(int64_t groups = 1) {
  kforge_conv_params p{};
  for (int i = 0; i < 3; ++i) {
    p.stride[i] = 1;
    p.dilation[i] = 1;
  }
  p.groups = groups;
  return p;
}

TEST(CApi, NullTensorIsInvalidArgument) {
  kforge_tensor w = tensor(nullptr, {4, 4, 3, 3, 3}), y = tensor(nullptr, {1, 4, 6, 6, 6});
  const kforge_conv_params p = params();
  EXPECT_EQ(kforge_conv(nullptr, &w, nullptr, &y, &p, nullptr, nullptr), KFORGE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kforge_last_error()).find("expected input tensor, but got NULL"), std::string::npos);
}

TEST(CApi, UnknownActivationIsInvalidArgument) {
  kforge_tensor x = tensor(nullptr, {1, 4, 8, 8, 8}), w = tensor(nullptr, {4, 4, 3, 3, 3}),
                y = tensor(nullptr, {1, 4, 6, 6, 6});
  kforge_conv_params p = params();
  p.activation = 5;
  EXPECT_EQ(kforge_conv(&x, &w, nullptr, &y, &p, nullptr, nullptr), KFORGE_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(kforge_last_error(), "unknown activation 5: expected KFORGE_ACTIVATION_NONE or KFORGE_ACTIVATION_SILU");
}

TEST(CApi, BadDtypeAndRank) {
  kforge_tensor x = tensor(nullptr, {1, 4, 8, 8, 8}, 9), w = tensor(nullptr, {4, 4, 3, 3, 3}),
                y = tensor(nullptr, {1, 4, 6, 6, 6});
  const kforge_conv_params p = params();
  EXPECT_EQ(kforge_conv(&x, &w, nullptr, &y, &p, nullptr, nullptr), KFORGE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kforge_last_error()).find("dtype"), std::string::npos);
  x = tensor(nullptr, {1, 4, 8, 8, 8});
  x.rank = 7;
  EXPECT_EQ(kforge_conv(&x, &w, nullptr, &y, &p, nullptr, nullptr), KFORGE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kforge_last_error()).find("rank between 1 and 5"), std::string::npos);
}

TEST(CApi, ShapeErrorsCarryPyTorchMessages) {
  kforge_tensor x = tensor(nullptr, {1, 4, 8, 8, 8}), w = tensor(nullptr, {4, 3, 3, 3, 3}),
                y = tensor(nullptr, {1, 4, 6, 6, 6});
  const kforge_conv_params p = params();
  EXPECT_EQ(kforge_conv(&x, &w, nullptr, &y, &p, nullptr, nullptr), KFORGE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kforge_last_error()).find("to have 3 channels, but got 4 channels instead"), std::string::npos);
}

TEST(CApi, HostPointersAreRefused) {
  std::vector<uint16_t> hx(8 * 8 * 8 * 4), hw(4 * 4 * 27), hy(4 * 216);
  kforge_tensor x = tensor(hx.data(), {1, 4, 8, 8, 8}), w = tensor(hw.data(), {4, 4, 3, 3, 3}),
                y = tensor(hy.data(), {1, 4, 6, 6, 6});
  const kforge_conv_params p = params();
  EXPECT_EQ(kforge_conv(&x, &w, nullptr, &y, &p, nullptr, nullptr), KFORGE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kforge_last_error()).find("to be a CUDA device tensor"), std::string::npos)
      << kforge_last_error();
}

TEST(CApi, ZeroBatchSucceedsWithoutLaunching) {
  kforge_tensor x = tensor(nullptr, {0, 4, 8, 8, 8}), w = tensor(nullptr, {4, 4, 3, 3, 3}),
                y = tensor(nullptr, {0, 4, 6, 6, 6});
  const kforge_conv_params p = params();
  EXPECT_EQ(kforge_conv(&x, &w, nullptr, &y, &p, nullptr, nullptr), KFORGE_OK) << kforge_last_error();
  EXPECT_STREQ(kforge_last_error(), "");
}

TEST(CApi, UnknownVariantIsReported) {
  KF_REQUIRE_GPU();
  void *dx, *dw, *dy;
  ASSERT_EQ(cudaMalloc(&dx, 4 * 512 * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dw, 4 * 27 * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dy, 4 * 216 * 2), cudaSuccess);
  kforge_tensor x = tensor(dx, {1, 4, 8, 8, 8}), w = tensor(dw, {4, 1, 3, 3, 3}), y = tensor(dy, {1, 4, 6, 6, 6});
  const kforge_conv_params p = params(4);
  EXPECT_EQ(kforge_conv(&x, &w, nullptr, &y, &p, nullptr, "no_such_variant"), KFORGE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kforge_last_error()).find("unknown kforge variant 'no_such_variant'"), std::string::npos);
  EXPECT_EQ(kforge_conv(&x, &w, nullptr, &y, &p, nullptr, nullptr), KFORGE_OK) << kforge_last_error();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(dx);
  cudaFree(dw);
  cudaFree(dy);
}

TEST(CApi, Version) { EXPECT_STREQ(kforge_version(), KFORGE_VERSION); }

}  // namespace
