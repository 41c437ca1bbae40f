// kforge profile on a GPU: the profile target runs a variant and both probes (no ncu needed), and, where ncu can
// read the counters, the probes classify as what they are: the copy memory-bound, the bf16 GEMM compute-bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "gpu_test_util.hpp"
#include "kforge/types.hpp"
#include "tools/profile_classify.hpp"
#include "tools/profile_ncu.hpp"
#include "tools/profile_target.hpp"
#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;

TEST(ProfileGpu, TargetRunsAVariantAndBothProbes) {
  KF_REQUIRE_GPU();
  ProfileTarget variant;
  variant.case_name = "evokernel";
  variant.variant = "dw_v6_mma_hoisted";
  variant.layout = "ncdhw";  // dw_v6 reads NCDHW only
  run_profile_target(variant);
  for (const char* probe : {"copy", "gemm"}) {
    ProfileTarget t;
    t.probe = probe;
    run_profile_target(t);
  }
}

// ncu's reading of one probe, run through the kforge executable built next to this test.
std::vector<KernelProfile> profile_probe(const std::string& ncu, const std::string& probe) {
  const fs::path kforge = fs::read_symlink("/proc/self/exe").parent_path() / "kforge";
  testing::TempDir work;
  const NcuRun run = run_ncu(ncu, {kforge.string(), "_profile-target", "--probe", probe}, work.path());
  std::vector<KernelProfile> out;
  for (const NcuKernel& k : parse_ncu_csv(run.csv)) out.push_back(read_profile(k));
  return out;
}

TEST(ProfileGpu, ProbesClassifyAsWhatTheyAre) {
  KF_REQUIRE_GPU();
  std::string ncu;
  try {
    ncu = find_ncu(default_ncu_search(""));
  } catch (const Error& e) {
    GTEST_SKIP() << "ncu test skipped: " << e.what();
  }
  if (!fs::exists(fs::read_symlink("/proc/self/exe").parent_path() / "kforge"))
    GTEST_SKIP() << "ncu test skipped: no kforge executable next to the test binary";
  std::vector<KernelProfile> copy;
  try {
    copy = profile_probe(ncu, "copy");
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (msg.find("ERR_NVGPUCTRPERM") != std::string::npos || msg.find("could not start its profiler") != std::string::npos)
      GTEST_SKIP() << "ncu test skipped: this machine hides the GPU's counters: " << msg;
    throw;
  }
  ASSERT_EQ(copy.size(), 1u);
  EXPECT_EQ(classify(copy[0]), Bound::memory) << reading(copy[0], classify(copy[0]));
  EXPECT_GT(copy[0].dram_pct.value_or(0), 60) << reading(copy[0], classify(copy[0]));
  const std::vector<KernelProfile> gemm = profile_probe(ncu, "gemm");
  ASSERT_FALSE(gemm.empty());
  const auto longest = std::max_element(gemm.begin(), gemm.end(), [](const KernelProfile& a, const KernelProfile& b) {
    return a.duration_s.value_or(0) < b.duration_s.value_or(0);
  });
  EXPECT_EQ(classify(*longest), Bound::compute) << reading(*longest, classify(*longest));
  EXPECT_GT(longest->tensor_pct.value_or(0), 50) << reading(*longest, classify(*longest));
}

}  // namespace
}  // namespace kforge
