// kforge run's builds on the CPU (NVRTC needs no GPU): the cache is hit on a second build, missed when an option
// or an included header changes, rebuilt when an entry is damaged; the example kernels compile for sm_90a and
// sm_80 without spills; PTX and cubin files are taken as they are.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kforge/types.hpp"
#include "measure/device_info.hpp"
#include "tools/run/kernel_build.hpp"
#include "tools/run/kernel_cache.hpp"
#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const std::string kExamples = testing::run_examples_dir();

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A minimal kernel of the ABI whose behaviour depends on a local header and on a macro.
constexpr const char* kKernel = R"(#include <kforge/run_abi.h>
#include "knob.h"
extern "C" __device__ const kforge_launch_rule kforge_launch = {KFORGE_RUN_ABI_VERSION, 128, 0,
    KFORGE_GRID_OUTPUTS, 128, 0, KFORGE_DTYPES_FLOAT, 0};
extern "C" __global__ void kforge_kernel(kforge_run_params p) {
  if (blockIdx.x == 0 && threadIdx.x == 0) kforge_store(p.y, 0, p.dtype, KNOB + EXTRA);
}
)";

class KernelBuild : public ::testing::Test {
 protected:
  KernelBuild() : cache_(fs::path(cache_dir_.path()) / "kernels") {
    write(kernel(), kKernel);
    write(fs::path(src_dir_.path()) / "knob.h", "#define KNOB 1.0f\n");
  }
  std::string kernel() const { return (fs::path(src_dir_.path()) / "kernel.cu").string(); }
  KernelImage build(std::vector<std::string> options = {"-DEXTRA=0.5f"}) const {
    return build_kernel({kernel(), std::move(options), "sm_90a"}, cache_, default_include_dirs());
  }

  TempDir src_dir_, cache_dir_;
  KernelCache cache_;
};

TEST_F(KernelBuild, SecondBuildHitsTheCache) {
  const KernelImage first = build();
  EXPECT_EQ(first.cache, "miss");
  EXPECT_EQ(first.kind, ImageKind::cubin);
  EXPECT_EQ(first.bytes.substr(0, 4), "\x7f" "ELF");
  EXPECT_NE(first.log.find("Used"), std::string::npos) << "ptxas' resource report is in the log: " << first.log;
  EXPECT_TRUE(fs::exists(first.cache_file));
  const KernelImage second = build();
  EXPECT_EQ(second.cache, "hit");
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(second.bytes, first.bytes);
  EXPECT_EQ(second.log, first.log);
  EXPECT_EQ(second.label, "kernel.cu -DEXTRA=0.5f");
}

TEST_F(KernelBuild, AChangedOptionRebuilds) {
  const KernelImage base = build();
  const KernelImage other = build({"-DEXTRA=0.25f"});
  EXPECT_EQ(other.cache, "miss");
  EXPECT_NE(other.key, base.key);
  EXPECT_NE(other.bytes, base.bytes);  // the constant is in the code
  EXPECT_EQ(build().cache, "hit");     // the first build's entry is still there
}

TEST_F(KernelBuild, AChangedIncludedHeaderRebuilds) {
  const KernelImage base = build();
  write(fs::path(src_dir_.path()) / "knob.h", "#define KNOB 2.0f\n");
  const KernelImage changed = build();
  EXPECT_EQ(changed.cache, "miss");
  EXPECT_NE(changed.key, base.key);
  EXPECT_NE(changed.bytes, base.bytes);
}

TEST_F(KernelBuild, AChangedHeaderOnAUserIncludeFolderRebuilds) {
  const TempDir extra;
  write(kernel(), std::string("#include <extra.h>\n") + kKernel);
  write(fs::path(extra.path()) / "extra.h", "#define UNUSED 1\n");
  const std::vector<std::string> options{"-DEXTRA=0.5f", "-I" + extra.path()};
  const KernelImage base = build(options);
  EXPECT_EQ(build(options).cache, "hit");
  write(fs::path(extra.path()) / "extra.h", "#define UNUSED 2\n");
  const KernelImage changed = build(options);
  EXPECT_EQ(changed.cache, "miss");
  EXPECT_NE(changed.key, base.key);
}

TEST_F(KernelBuild, ADamagedEntryIsReportedAndRebuilt) {
  const KernelImage base = build();
  std::string entry;
  {
    std::ifstream in(base.cache_file, std::ios::binary);
    entry.assign(std::istreambuf_iterator<char>(in), {});
  }
  // A flipped cubin byte fails the checksum; a cut-off file fails the size; garbage fails the header.
  for (const std::string& damaged : {entry.substr(0, entry.size() - 1) + char(entry.back() ^ 0x55),
                                     entry.substr(0, entry.size() / 2), std::string("not a cache entry")}) {
    write(base.cache_file, damaged);
    const KernelImage rebuilt = build();
    EXPECT_EQ(rebuilt.cache.rfind("rebuilt (the entry was damaged: ", 0), 0u) << rebuilt.cache;
    EXPECT_EQ(rebuilt.bytes, base.bytes);
    EXPECT_EQ(build().cache, "hit");  // the rebuilt entry is whole again
  }
}

TEST_F(KernelBuild, ACompileErrorCarriesTheLog) {
  write(kernel(), "extern \"C\" __global__ void kforge_kernel() { this is not cuda; }\n");
  try {
    build();
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nvrtc could not compile"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("error"), std::string::npos) << e.what();
  }
}

TEST(KernelBuildFiles, PtxAndCubinAreTakenAsTheyAreAndRefuseOptions) {
  const TempDir tmp;
  const std::string ptx = (fs::path(tmp.path()) / "k.ptx").string(), cubin = (fs::path(tmp.path()) / "k.cubin").string();
  write(ptx, ".version 9.0\n.target sm_90a\n");
  write(cubin, "\x7f" "ELF");
  const KernelCache cache(fs::path(tmp.path()) / "kernels");
  const KernelImage p = build_kernel({ptx, {}, "sm_90a"}, cache, {});
  EXPECT_EQ(p.kind, ImageKind::ptx);
  EXPECT_EQ(p.bytes, ".version 9.0\n.target sm_90a\n");
  EXPECT_TRUE(p.key.empty());
  EXPECT_EQ(build_kernel({cubin, {}, "sm_90a"}, cache, {}).kind, ImageKind::cubin);
  EXPECT_THROW(build_kernel({ptx, {"-DX=1"}, "sm_90a"}, cache, {}), Error);
  EXPECT_FALSE(fs::exists(cache.dir()));  // nothing was compiled, nothing cached
}

TEST(KernelBuildExamples, CompileWithoutSpillsForHopperAndAmpere) {
  const TempDir tmp;
  const KernelCache cache(tmp.path());
  for (const std::string arch : {"sm_90a", "sm_80"}) {
    for (const BuildRequest& r : {BuildRequest{kExamples + "direct_conv.cu", {}, arch},
                                  BuildRequest{kExamples + "direct_conv.cu", {"-DKFORGE_EXTRA_WORK=10"}, arch},
                                  BuildRequest{kExamples + "direct_conv.cu", {"-DKFORGE_OUTPUT_SCALE=1.01f"}, arch},
                                  BuildRequest{kExamples + "dw_wtile.cu", {}, arch}}) {
      const KernelImage image = build_kernel(r, cache, default_include_dirs());
      EXPECT_NE(image.log.find("0 bytes spill stores, 0 bytes spill loads"), std::string::npos)
          << image.label << " for " << arch << ":\n" << image.log;
    }
  }
}

TEST(KernelBuildArch, HopperGetsTheArchSpecificTarget) {
  DeviceInfo h200;
  h200.cc_major = 9;
  h200.cc_minor = 0;
  EXPECT_EQ(device_arch(h200), "sm_90a");
  DeviceInfo a100;
  a100.cc_major = 8;
  a100.cc_minor = 0;
  EXPECT_EQ(device_arch(a100), "sm_80");
}

TEST(KernelBuildOptions, DefaultsComeFirstAndTheSourcesFolderIsSearchedFirst) {
  const std::vector<std::string> o = nvrtc_options({"/k/kernel.cu", {"-DA=1"}, "sm_90a"}, {"/inc"});
  const std::vector<std::string> expected{"-arch=sm_90a", "-std=c++20", "-lineinfo", "-Xptxas=-v", "-I/k", "-I/inc", "-DA=1"};
  EXPECT_EQ(o, expected);
  const std::vector<std::string> dirs = default_include_dirs();
  ASSERT_FALSE(dirs.empty());
  EXPECT_TRUE(fs::exists(fs::path(dirs.front()) / "kforge/run_abi.h")) << dirs.front();
}

}  // namespace
}  // namespace kforge
