// The benchmark loop on a small dense case (GPU): --interleave times the passing variants round-robin, refused
// ones stay untimed, and the cuDNN ratio comes from the same round-robin.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/bench.hpp"
#include "gpu_test_util.hpp"

namespace kforge {
namespace {

TEST(Bench, InterleaveTimesThePassingVariantsRoundRobin) {
  KF_REQUIRE_GPU();
  const Suite suite{"dense", "a test case", {}};
  SuiteCase c;
  c.name = "small_k333";
  c.C = c.K = 64;
  c.input = {6, 12, 20};
  c.kernel = {3, 3, 3};
  c.padding = {1, 1, 1};
  BenchOptions opt;
  opt.layout = Layout::ndhwc;
  opt.interleave = true;
  opt.timer.min_samples = opt.timer.max_samples = 5;
  opt.timer.target_rel_err = 0.0;
  opt.timer.settle_ms = 1;
  // v13 takes 1x1x1 convs only: refused here, so it is neither checked nor timed.
  opt.variants = {"dense_v3_persistent_256x128x64", "dense_v13_pointwise_gemm_256x128x64_ndhwc", "dense_v0_direct",
                  "cudnn"};
  Ceilings ceilings;
  ceilings.copy_tbps = 4.0;
  ceilings.gemm_bf16_tflops = 700.0;
  const std::vector<BenchRow> rows = bench_case(suite, c, opt, ceilings);

  ASSERT_EQ(rows.size(), 4u);
  for (const BenchRow& r : rows) {
    if (r.variant == "dense_v13_pointwise_gemm_256x128x64_ndhwc") {
      EXPECT_EQ(r.status, "SKIP");
      EXPECT_FALSE(r.timing);
      EXPECT_EQ(r.round_robin, 0);
      continue;
    }
    EXPECT_EQ(r.status, "PASS") << r.variant << ": " << r.reason;
    ASSERT_TRUE(r.timing) << r.variant;
    EXPECT_EQ(r.round_robin, 3) << r.variant;
    EXPECT_EQ(r.timing->samples_ms.size(), 5u) << r.variant;
    EXPECT_EQ(r.to_json()["samples_ms"].get<std::vector<double>>(), r.timing->samples_ms) << r.variant;
    ASSERT_EQ(r.samples_after.size(), 5u) << r.variant;
    for (const std::string& before : r.samples_after)
      EXPECT_EQ(before, r.variant) << "settled: every sample follows the variant itself";
    EXPECT_EQ(r.to_json()["settle_ms"].get<double>(), 1.0) << r.variant;
    EXPECT_EQ(r.timing->stop_reason, "sample limit") << r.variant;
    EXPECT_GT(r.timing->median_ms, 0.0) << r.variant;
    EXPECT_GT(r.x_cudnn, 0.0) << r.variant;
  }
  // The direct fallback is orders of magnitude slower than the tensor cores: the timings are each variant's own.
  EXPECT_GT(rows[2].timing->median_ms, 5 * rows[0].timing->median_ms);
}

}  // namespace
}  // namespace kforge
