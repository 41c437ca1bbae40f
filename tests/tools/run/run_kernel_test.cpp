// kforge run / compare on a GPU with the example kernels: both pass small suite tasks in every layout and dtype
// they claim; PTX (JIT by the driver) and cubin files run like sources; a depthwise-only kernel refuses a depth
// multiplier; a wrong build fails and compare refuses to time it; agreeing builds are timed and a build doing
// twice the work is SLOWER (and the other order FASTER).
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpu_test_util.hpp"
#include "measure/ceilings.hpp"
#include "tools/run/compare_kernels.hpp"
#include "tools/run/kernel_build.hpp"
#include "tools/run/run_kernel.hpp"
#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const std::string kExamples = testing::run_examples_dir();

// Ceilings only scale the floor column; fixed values keep these tests from measuring them.
Ceilings fixed_ceilings() {
  Ceilings c;
  c.copy_tbps = 4.0;
  c.gemm_bf16_tflops = 700;
  c.gemm_fp8_tflops = 1400;
  return c;
}

class RunOnGpu : public ::testing::Test {
 protected:
  void SetUp() override { KF_REQUIRE_GPU(); }
  KernelImage build(const std::string& file, std::vector<std::string> options = {}) const {
    return build_kernel({kExamples + file, std::move(options), device_arch(query_device())}, cache_,
                        default_include_dirs());
  }
  static RunSettings check_only() {
    RunSettings s;
    s.time = false;
    return s;
  }

  TempDir cache_dir_;
  KernelCache cache_{cache_dir_.path()};
};

TEST_F(RunOnGpu, ExamplesPassSmallTasksInEveryLayoutAndDtype) {
  for (const std::string file : {"direct_conv.cu", "dw_wtile.cu"}) {
    const KernelImage image = build(file);
    for (const char* layout : {"ncdhw", "ndhwc"}) {
      for (const char* dtype : {"bf16", "f16", "f32"}) {
        for (const char* task : {"depthwise/dw3_dilated", "depthwise/dw3_stride2", "depthwise/dw7_convnext"}) {
          const KernelRun r = run_kernel(resolve_task(task, dtype, layout), image, fixed_ceilings(), check_only());
          EXPECT_EQ(r.row.status, "PASS") << file << " " << task << " " << layout << " " << dtype << ": "
                                          << r.row.reason << " " << r.row.error.summary();
          EXPECT_TRUE(r.row.deterministic);
          EXPECT_GT(r.resources.registers, 0);
        }
      }
    }
  }
  // The generic kernel also takes a depth multiplier.
  const KernelRun m = run_kernel(resolve_task("depthwise/dw_multiplier2"), build("direct_conv.cu"), fixed_ceilings(),
                                 check_only());
  EXPECT_EQ(m.row.status, "PASS") << m.row.reason << " " << m.row.error.summary();
}

TEST_F(RunOnGpu, IsTimedOnTheMeasurementCore) {
  RunSettings s;
  s.timer.max_seconds = 0.5;
  const KernelRun r = run_kernel(resolve_task("depthwise/dw3_dilated"), build("dw_wtile.cu"), fixed_ceilings(), s);
  ASSERT_EQ(r.row.status, "PASS") << r.row.reason;
  ASSERT_TRUE(r.row.timing.has_value());
  EXPECT_GT(r.row.timing->median_ms, 0);
  EXPECT_GT(r.row.pct_of_floor(), 0);
  EXPECT_GT(r.geometry.blocks, 0);
  EXPECT_EQ(r.geometry.threads, 128);
}

TEST_F(RunOnGpu, PtxAndCubinFilesRunLikeTheirSource) {
  const TempDir tmp;
  // The PTX of direct_conv.cu for this GPU, as NVRTC writes it.
  std::ifstream in(kExamples + "direct_conv.cu");
  std::stringstream text;
  text << in.rdbuf();
  nvrtcProgram prog = nullptr;
  ASSERT_EQ(nvrtcCreateProgram(&prog, text.str().c_str(), "direct_conv.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  const std::string arch = "-arch=compute_" + device_arch(query_device()).substr(3);
  const std::string include = "-I" + default_include_dirs().front();
  const char* options[] = {arch.c_str(), include.c_str()};
  ASSERT_EQ(nvrtcCompileProgram(prog, 2, options), NVRTC_SUCCESS);
  size_t size = 0;
  ASSERT_EQ(nvrtcGetPTXSize(prog, &size), NVRTC_SUCCESS);
  std::string ptx(size, '\0');
  ASSERT_EQ(nvrtcGetPTX(prog, ptx.data()), NVRTC_SUCCESS);
  nvrtcDestroyProgram(&prog);
  ptx.resize(ptx.find('\0'));
  const std::string ptx_file = (fs::path(tmp.path()) / "direct_conv.ptx").string();
  std::ofstream(ptx_file) << ptx;
  const std::string cubin_file = (fs::path(tmp.path()) / "direct_conv.cubin").string();
  std::ofstream(cubin_file, std::ios::binary) << build("direct_conv.cu").bytes;

  const RunTask task = resolve_task("depthwise/dw3_dilated");
  for (const std::string& file : {ptx_file, cubin_file}) {
    const KernelImage image = build_kernel({file, {}, ""}, cache_, {});
    const KernelRun r = run_kernel(task, image, fixed_ceilings(), check_only());
    EXPECT_EQ(r.row.status, "PASS") << file << ": " << r.row.reason;
    EXPECT_GT(r.resources.registers, 0);
  }
}

TEST_F(RunOnGpu, ADepthwiseOnlyKernelRefusesADepthMultiplier) {
  const KernelRun r = run_kernel(resolve_task("depthwise/dw_multiplier2"), build("dw_wtile.cu"), fixed_ceilings(),
                                 check_only());
  EXPECT_EQ(r.row.status, "SKIP");
  EXPECT_NE(r.row.reason.find("requires a depthwise problem"), std::string::npos) << r.row.reason;
}

TEST_F(RunOnGpu, AWrongBuildFailsAndCompareRefusesToTimeIt) {
  const RunTask task = resolve_task("depthwise/dw3_dilated");
  const KernelImage right = build("direct_conv.cu"), wrong = build("direct_conv.cu", {"-DKFORGE_OUTPUT_SCALE=1.01f"});
  const KernelRun r = run_kernel(task, wrong, fixed_ceilings(), check_only());
  EXPECT_EQ(r.row.status, "FAIL");
  const KernelComparison c = compare_kernels(task, right, wrong, fixed_ceilings(), RunSettings{});
  EXPECT_FALSE(c.refusal.empty());
  EXPECT_NE(c.refusal.find("B (direct_conv.cu -DKFORGE_OUTPUT_SCALE=1.01f)"), std::string::npos) << c.refusal;
  EXPECT_FALSE(c.verdict.has_value());
  EXPECT_FALSE(c.a.row.timing.has_value());
  EXPECT_FALSE(c.bitwise_equal);
}

TEST_F(RunOnGpu, CompareTimesAgreeingBuildsAndSeesDoubleWork) {
  const RunTask task = resolve_task("depthwise/dw3_dilated");
  const KernelImage direct = build("direct_conv.cu"), doubled = build("direct_conv.cu", {"-DKFORGE_EXTRA_WORK=100"});
  RunSettings s;
  s.timer.min_samples = 30;
  const KernelComparison slower = compare_kernels(task, direct, doubled, fixed_ceilings(), s);
  ASSERT_TRUE(slower.refusal.empty()) << slower.refusal;
  EXPECT_TRUE(slower.bitwise_equal);  // the extra work keeps the first result
  EXPECT_EQ(slower.b_vs_a.calc_diff, 0.0);
  ASSERT_TRUE(slower.verdict.has_value());
  EXPECT_EQ(slower.verdict->verdict, AbVerdict::slower) << slower.verdict->reason;
  const KernelComparison faster = compare_kernels(task, doubled, direct, fixed_ceilings(), s);
  ASSERT_TRUE(faster.verdict.has_value());
  EXPECT_EQ(faster.verdict->verdict, AbVerdict::faster) << faster.verdict->reason;
  // The two examples sum the same taps in the same order: they agree, bit for bit in practice.
  const KernelComparison pair = compare_kernels(task, direct, build("dw_wtile.cu"), fixed_ceilings(), s);
  EXPECT_TRUE(pair.refusal.empty()) << pair.refusal;
  EXPECT_LT(pair.b_vs_a.calc_diff, 1e-6);
}

}  // namespace
}  // namespace kforge
