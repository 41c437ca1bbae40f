// kforge asm on CPU: every kernel unit's PTX re-assembles byte-identical to nvcc's cubin with the recorded flags;
// an edited PTX gives a different cubin; resource usage and SASS of a known cubin name its kernel and registers;
// parsers on canned tool output; a missing tool's message. Tests that need the build's manifest, ptxas or
// cuobjdump skip with the reason when they are missing (a binary carried to a GPU machine without its build tree).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>

#include "dispatch/registry.hpp"
#include "tools/asm.hpp"
#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;
using testing::ScopedEnv;
using testing::TempDir;

// "" when the build's manifest and its ptxas are usable, else why not.
std::string assembler_unavailable(AsmManifest* out) {
  const std::string path = default_asm_manifest_path();
  if (!fs::exists(path))
    return "no kernel build manifest at " + path + " (built with KFORGE_ASM=OFF, or carried away from the build tree)";
  *out = load_asm_manifest(path);
  if (access(out->ptxas.c_str(), X_OK) == 0) return "";
  try {
    find_cuda_tool("ptxas");
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

#define KF_REQUIRE_ASSEMBLER(manifest)                                         \
  AsmManifest manifest;                                                        \
  do {                                                                         \
    const std::string kf_why_ = assembler_unavailable(&manifest);              \
    if (!kf_why_.empty()) GTEST_SKIP() << "needs the build's ptxas: " << kf_why_; \
  } while (0)

#define KF_REQUIRE_TOOL(name)                                               \
  do {                                                                      \
    try {                                                                   \
      find_cuda_tool(name);                                                 \
    } catch (const Error& e) {                                              \
      GTEST_SKIP() << "needs " << name << ": " << e.what();                \
    }                                                                       \
  } while (0)

// A hand-written kernel: out[0] = threadIdx.x + 42.
std::string probe_ptx(int constant) {
  return ".version 9.0\n.target sm_90a\n.address_size 64\n\n"
         ".visible .entry kforge_probe_add(.param .u64 out)\n{\n"
         "  .reg .b32 %r<3>;\n  .reg .b64 %rd<3>;\n"
         "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd2, %rd1;\n  mov.u32 %r1, %tid.x;\n"
         "  add.s32 %r2, %r1, " + std::to_string(constant) + ";\n  st.global.u32 [%rd2], %r2;\n  ret;\n}\n";
}

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(Asm, EveryVariantWithASourceHasABuiltUnit) {
  KF_REQUIRE_ASSEMBLER(m);
  ASSERT_FALSE(m.units.empty());
  int with_source = 0;
  for (const Variant& v : Registry::instance().all()) {
    if (v.source.empty()) continue;
    ++with_source;
    EXPECT_EQ(unit_of_variant(m, v.name).source, v.source);
  }
  EXPECT_GT(with_source, 0);
  try {
    unit_of_variant(m, "cudnn");
    ADD_FAILURE() << "the cuDNN anchor has no kforge translation unit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("comparison anchor"), std::string::npos) << e.what();
  }
}

TEST(Asm, RoundtripIsByteIdenticalForEveryKernelUnit) {
  KF_REQUIRE_ASSEMBLER(m);
  TempDir work;
  for (const AsmUnit& u : m.units) {
    const RoundtripResult r = roundtrip(m, u, work.path());
    EXPECT_GT(r.nvcc_bytes, 0);
    if (!r.changed_sources.empty()) {
      // Someone edited a source after the build: ptxas stamps the new file times into .debug_line, nowhere else.
      std::cout << "note: " << u.source << " is stale (" << r.changed_sources[0] << " changed after the build)\n";
      EXPECT_EQ(r.section, ".debug_line") << u.source;
      continue;
    }
    EXPECT_FALSE(r.first_difference.has_value())
        << u.source << ": first difference at byte " << r.first_difference.value_or(-1) << " in " << r.section;
    EXPECT_EQ(r.nvcc_bytes, r.ptxas_bytes) << u.source;
  }
}

TEST(Asm, EditedPtxGivesADifferentCubin) {
  KF_REQUIRE_ASSEMBLER(m);
  TempDir dir;
  const std::string a = dir.path() + "/a.cubin", again = dir.path() + "/again.cubin", b = dir.path() + "/b.cubin";
  assemble_ptx(m, write_file(dir.path() + "/a.ptx", probe_ptx(42)), a);
  assemble_ptx(m, write_file(dir.path() + "/again.ptx", probe_ptx(42)), again);
  assemble_ptx(m, write_file(dir.path() + "/b.ptx", probe_ptx(43)), b);
  EXPECT_FALSE(first_difference(a, again).has_value()) << "ptxas is not deterministic: the edit test means nothing";
  EXPECT_TRUE(first_difference(a, b).has_value());
  EXPECT_EQ(elf_section_at(a, 0), "ELF header");
}

TEST(Asm, BrokenPtxReportsPtxasMessage) {
  KF_REQUIRE_ASSEMBLER(m);
  TempDir dir;
  const std::string ptx = write_file(dir.path() + "/bad.ptx", probe_ptx(1) + "this is not ptx\n");
  try {
    assemble_ptx(m, ptx, dir.path() + "/bad.cubin");
    ADD_FAILURE() << "ptxas accepted broken PTX";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ptxas failed on " + ptx), std::string::npos) << e.what();
  }
}

TEST(Asm, DumpOfAKnownCubinShowsKernelNamesAndRegisterCounts) {
  KF_REQUIRE_ASSEMBLER(m);
  KF_REQUIRE_TOOL("cuobjdump");
  TempDir dir;
  const std::string cubin = dir.path() + "/probe.cubin";
  const std::string verbose = assemble_ptx(m, write_file(dir.path() + "/probe.ptx", probe_ptx(42)), cubin, "", {"-v"});
  // ptxas -v says "Used N registers"; cuobjdump must report the same N for the same kernel.
  std::smatch used;
  ASSERT_TRUE(std::regex_search(verbose, used, std::regex("Used ([0-9]+) registers"))) << verbose;
  const auto kernels = resource_usage(cubin);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].name, "kforge_probe_add");
  EXPECT_EQ(kernels[0].registers, std::stoi(used[1]));
  EXPECT_GT(kernels[0].registers, 0);
  const std::string sass = disassemble(cubin);
  EXPECT_NE(sass.find("kforge_probe_add"), std::string::npos);
  EXPECT_NE(sass.find("STG"), std::string::npos) << sass;  // the global store
  EXPECT_EQ(embedded_ptx(cubin), "");                          // a cubin holds no PTX

  // A built unit (the smallest: ptxas -v re-assembles it), with spills for every kernel.
  const AsmUnit& small = *std::min_element(m.units.begin(), m.units.end(), [](const AsmUnit& a, const AsmUnit& b) {
    return fs::file_size(a.cubin) < fs::file_size(b.cubin);
  });
  const auto unit_kernels = unit_resource_usage(m, small, dir.path());
  EXPECT_FALSE(unit_kernels.empty()) << small.source;
  for (const KernelResources& k : unit_kernels) {
    EXPECT_GT(k.registers, 0) << k.name;
    EXPECT_TRUE(k.spill_store_bytes.has_value()) << k.name;
  }
}

TEST(Asm, ParsesResourceUsageAndSpills) {
  const std::string res =
      "\nFatbin elf code:\n================\narch = sm_90a\ncode version = [1,8]\n\nResource usage:\n Common:\n"
      "  GLOBAL:0\n Function _Z6kernelPf:\n  REG:40 STACK:16 SHARED:1024 LOCAL:8 CONSTANT[0]:896 TEXTURE:0 "
      "SURFACE:0 SAMPLER:0\n Function other:\n  REG:8 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:360\n";
  auto k = parse_res_usage(res);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].arch, "sm_90a");
  EXPECT_EQ(k[0].name, "_Z6kernelPf");
  EXPECT_EQ(demangle(k[0].name), "kernel(float*)");
  EXPECT_EQ(k[0].registers, 40);
  EXPECT_EQ(k[0].stack_bytes, 16);
  EXPECT_EQ(k[0].shared_bytes, 1024);
  EXPECT_EQ(k[0].local_bytes, 8);
  EXPECT_EQ(k[0].constant0_bytes, 896);
  EXPECT_EQ(k[1].name, "other");
  EXPECT_EQ(demangle(k[1].name), "other");
  add_spills(k,
             "ptxas info    : Function properties for _Z6kernelPf\n"
             "    16 bytes stack frame, 12 bytes spill stores, 20 bytes spill loads\n"
             "ptxas info    : Used 40 registers, used 1 barriers\n");
  EXPECT_EQ(k[0].spill_store_bytes, 12);
  EXPECT_EQ(k[0].spill_load_bytes, 20);
  EXPECT_FALSE(k[1].spill_store_bytes.has_value());
}

TEST(Asm, FirstDifferenceFindsTheOffset) {
  TempDir dir;
  const std::string a = write_file(dir.path() + "/a", "abcdefgh");
  const std::string same = write_file(dir.path() + "/same", "abcdefgh");
  const std::string changed = write_file(dir.path() + "/changed", "abcdeXgh");
  const std::string prefix = write_file(dir.path() + "/prefix", "abc");
  EXPECT_FALSE(first_difference(a, same).has_value());
  EXPECT_EQ(first_difference(a, changed), 5);
  EXPECT_EQ(first_difference(a, prefix), 3);
  EXPECT_EQ(elf_section_at(a, 0), "");  // not an ELF file
}

TEST(Asm, MissingToolGivesAClearMessage) {
  TempDir empty;
  ScopedEnv path("PATH", empty.path().c_str()), cuda("CUDA_HOME", empty.path().c_str()),
      source("KFORGE_SOURCE_DIR", empty.path().c_str());
  try {
    find_cuda_tool("cuobjdump");
    ADD_FAILURE() << "found a cuobjdump in an empty folder";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cuobjdump not found (looked in PATH, " + empty.path() + "/bin and " + empty.path() +
                       "/third_party/cuda-tools/nvidia/cu13/bin)"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("scripts/setup"), std::string::npos) << msg;
    EXPECT_NE(msg.find("nvidia-cuda-cuobjdump"), std::string::npos) << msg;
  }
}

TEST(Asm, MissingManifestSaysHowToBuildIt) {
  try {
    load_asm_manifest("/nonexistent/asm/manifest.json");
    ADD_FAILURE() << "loaded a manifest that does not exist";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ninja -C build kforge_asm"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kforge
