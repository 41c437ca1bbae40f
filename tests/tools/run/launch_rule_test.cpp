// The run ABI's host side without a GPU: parameters packed from a problem, the launch rule's checks, the grid.
#include <gtest/gtest.h>

#include "tools/run/launch_rule.hpp"

namespace kforge {
namespace {

ConvProblem depthwise(DType dtype = DType::bf16, Layout layout = Layout::ncdhw) {
  ConvParams params;
  params.padding = {0, 2, 2};
  params.stride = {1, 1, 2};
  params.groups = 8;
  return ConvProblem::dense(2, 8, 8, {5, 6, 20}, {3, 5, 5}, params, dtype, layout, /*has_bias=*/true);
}

kforge_launch_rule rule(int grid_over = KFORGE_GRID_OUTPUTS, long long per_block = 256) {
  return {KFORGE_RUN_ABI_VERSION, 256, 0, grid_over, per_block, 0, KFORGE_DTYPES_FLOAT, 0};
}

TEST(LaunchRule, ParamsCarryTheProblemAndPointers) {
  const ConvProblem p = depthwise(DType::f16, Layout::ndhwc);
  int x = 0, w = 0, b = 0, y = 0;
  const kforge_run_params r = run_params(p, &x, &w, &b, &y);
  EXPECT_EQ(r.N, 2);
  EXPECT_EQ(r.C, 8);
  EXPECT_EQ(r.K, 8);
  EXPECT_EQ(r.W, 20);
  EXPECT_EQ(r.S, 5);
  EXPECT_EQ(r.Do, p.Do);
  EXPECT_EQ(r.Wo, p.Wo);
  EXPECT_EQ(r.stride[2], 2);
  EXPECT_EQ(r.pad[1], 2);
  EXPECT_EQ(r.dilation[0], 1);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(r.x_stride[i], p.x_strides[i]);
    EXPECT_EQ(r.w_stride[i], p.w_strides[i]);
    EXPECT_EQ(r.y_stride[i], p.y_strides[i]);
  }
  EXPECT_EQ(r.x_stride[1], 1);  // NDHWC: channels innermost
  EXPECT_EQ(r.groups, 8);
  EXPECT_EQ(r.has_bias, 1);
  EXPECT_EQ(r.dtype, KFORGE_RUN_F16);
  EXPECT_EQ(r.x, &x);
  EXPECT_EQ(r.bias, &b);
  EXPECT_EQ(r.y, &y);
}

TEST(LaunchRule, GridCoversTheChosenExtent) {
  const ConvProblem p = depthwise();
  const int64_t outputs = p.N * p.K * p.Do * p.Ho * p.Wo;
  EXPECT_EQ(launch_geometry(rule(KFORGE_GRID_OUTPUTS, 256), p, 132).blocks, (outputs + 255) / 256);
  EXPECT_EQ(launch_geometry(rule(KFORGE_GRID_ROWS, 1), p, 132).blocks, p.N * p.K * p.Do * p.Ho);
  EXPECT_EQ(launch_geometry(rule(KFORGE_GRID_PLANES, 2), p, 132).blocks, (p.N * p.K * p.Do + 1) / 2);
  EXPECT_EQ(launch_geometry(rule(KFORGE_GRID_CHANNELS, 1), p, 132).blocks, p.N * p.K);
  kforge_launch_rule persistent = rule(KFORGE_GRID_OUTPUTS, 1);
  persistent.max_blocks_per_sm = 2;
  EXPECT_EQ(launch_geometry(persistent, p, 4).blocks, 8);
  const LaunchGeometry g = launch_geometry(rule(), p, 132);
  EXPECT_EQ(g.threads, 256);
  EXPECT_EQ(g.dynamic_smem_bytes, 0);
}

TEST(LaunchRule, AnEmptyOutputLaunchesNothing) {
  ConvProblem p = depthwise();
  p.N = 0;
  EXPECT_EQ(launch_geometry(rule(), p, 132).blocks, 0);
}

TEST(LaunchRule, RefusesMalformedRulesAndUnhandledProblems) {
  const ConvProblem p = depthwise();
  EXPECT_EQ(rule_refusal(rule(), p), "");
  auto refusal = [&](auto edit, const ConvProblem& problem) {
    kforge_launch_rule r = rule();
    edit(r);
    return rule_refusal(r, problem);
  };
  EXPECT_NE(refusal([](auto& r) { r.abi_version = 0; }, p).find("abi_version"), std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r.block_threads = 2048; }, p).find("block_threads"), std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r.per_block = 0; }, p).find("per_block"), std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r.grid_over = 9; }, p).find("grid_over"), std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r.dynamic_smem_bytes = -1; }, p).find("dynamic_smem_bytes"), std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r.needs = 0x80; }, p).find("needs"), std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r.dtypes = KFORGE_DTYPE_BIT(KFORGE_RUN_F32); }, p).find("does not handle bf16"),
            std::string::npos);
  EXPECT_EQ(refusal([](auto& r) { r.needs = KFORGE_NEEDS_DEPTHWISE; }, p), "");
  ConvParams dense_params;
  const ConvProblem dense =
      ConvProblem::dense(1, 8, 16, {4, 4, 4}, {3, 3, 3}, dense_params, DType::bf16, Layout::ncdhw, false);
  EXPECT_NE(refusal([](auto& r) { r.needs = KFORGE_NEEDS_DEPTHWISE; }, dense).find("depthwise"),
            std::string::npos);
}

}  // namespace
}  // namespace kforge
