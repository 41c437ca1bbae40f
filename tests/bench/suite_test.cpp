// Suites: the project's copies parse, and build the problems their cases describe.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "bench/suite.hpp"
#include "tools/run/kernel_build.hpp"

namespace kforge {
namespace {

// The suites shipped in the source tree the tools read (source_root: $KFORGE_SOURCE_DIR, else the checkout holding
// the test binary).
std::filesystem::path shipped_suites() { return source_root() / "bench/suites"; }
std::string suite_path(const std::string& name) { return (shipped_suites() / (name + ".json")).string(); }

TEST(Suite, DepthwiseSuiteBuildsDepthwiseProblems) {
  const Suite s = load_suite(suite_path("depthwise"));
  EXPECT_EQ(s.name, "depthwise");
  ASSERT_GE(s.cases.size(), 8u);
  const SuiteCase& evo = s.find("evokernel");
  const ConvProblem p = evo.problem(DType::bf16, Layout::ncdhw);
  EXPECT_TRUE(p.is_depthwise());
  EXPECT_EQ(p.Do, 59);
  EXPECT_TRUE(p.has_bias);
  const ConvProblem m2 = s.find("dw_multiplier2").problem(DType::bf16, Layout::ndhwc);
  EXPECT_EQ(m2.K, 2 * m2.C);
  EXPECT_EQ(m2.x_layout(), Layout::ndhwc);
  for (const SuiteCase& c : s.cases) EXPECT_NO_THROW(c.problem(DType::bf16, Layout::ncdhw)) << c.name;
}

TEST(Suite, DenseSuiteIsGroupsOne) {
  const Suite s = load_suite(suite_path("dense"));
  for (const SuiteCase& c : s.cases) {
    EXPECT_EQ(c.groups, 1) << c.name;
    const ConvProblem p = c.problem(DType::bf16, Layout::ndhwc);
    EXPECT_FALSE(p.is_depthwise()) << c.name;
  }
  // Past 2^31 elements is described exactly.
  EXPECT_GT(s.find("c512_big_k133").problem(DType::bf16, Layout::ndhwc).x_numel(), int64_t(1) << 31);
}

TEST(Suite, ErrorsNameTheFileAndCase) {
  EXPECT_THROW(load_suite("/nonexistent/suite.json"), Error);
  const std::string bad = ::testing::TempDir() + "kforge_bad_suite.json";
  std::ofstream(bad) << R"({"suite":"dense","cases":[{"name":"x","N":1,"C":4,"K":4,"D":4,"H":4,"W":4,"kernel":[3,3]}]})";
  try {
    load_suite(bad);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("case x"), std::string::npos) << e.what();
  }
  const Suite s = load_suite(suite_path("dense"));
  EXPECT_THROW(s.find("no_such_case"), Error);
}

}  // namespace
}  // namespace kforge

namespace kforge {
namespace {

// Every suite the project ships (the acceptance copies, dense-vae, dense-rule) loads, is named as its file, runs a
// known family, and describes problems PyTorch would accept in both layouts, each case named once and explained.
TEST(Suite, EveryShippedSuiteLoads) {
  namespace fs = std::filesystem;
  const fs::path dir = shipped_suites();
  int suites = 0;
  for (const fs::directory_entry& f : fs::directory_iterator(dir)) {
    if (f.path().extension() != ".json") continue;
    ++suites;
    const Suite s = load_suite(f.path().string());
    EXPECT_EQ(s.name, f.path().stem().string());
    EXPECT_TRUE(s.family == "depthwise" || s.family == "dense") << s.name << " runs family " << s.family;
    EXPECT_FALSE(s.cases.empty()) << s.name;
    std::set<std::string> names;
    for (const SuiteCase& c : s.cases) {
      EXPECT_TRUE(names.insert(c.name).second) << s.name << ": case " << c.name << " twice";
      EXPECT_FALSE(c.why.empty()) << s.name << ": case " << c.name << " says not why it is there";
      for (Layout l : {Layout::ncdhw, Layout::ndhwc}) {
        EXPECT_NO_THROW(c.problem(DType::bf16, l)) << s.name << "/" << c.name;
      }
    }
  }
  EXPECT_GE(suites, 4) << "in " << dir;
}

// bench/suites holds copies of the project's acceptance suites (../shared/suites); they must not drift apart.
TEST(Suite, CopiesMatchTheSharedSuites) {
  const std::string shared = (source_root() / "../shared/suites/").string();
  for (const char* name : {"depthwise", "dense"}) {
    std::ifstream a(shared + name + ".json"), b(suite_path(name));
    if (!a) GTEST_SKIP() << "no " << shared << name << ".json beside this checkout to compare with";
    const std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
    EXPECT_EQ(sa, sb) << name << ".json differs from the shared suite: copy it again";
  }
}

}  // namespace
}  // namespace kforge
