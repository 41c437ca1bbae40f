// Tasks of kforge run: suite cases by SUITE/CASE with dtype and layout overrides, task files with tolerance,
// and the errors for specs that do not resolve.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tools/run/task.hpp"
#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string error_of(const std::string& spec) {
  try {
    resolve_task(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Task, ASuiteCaseIsATask) {
  const RunTask t = resolve_task("depthwise/evokernel");
  EXPECT_EQ(t.name, "depthwise/evokernel");
  EXPECT_EQ(t.suite, "depthwise");
  EXPECT_EQ(t.case_name, "evokernel");
  EXPECT_EQ(t.problem.C, 512);
  EXPECT_EQ(t.problem.groups, 512);
  EXPECT_EQ(t.problem.T, 3);
  EXPECT_TRUE(t.problem.has_bias);
  EXPECT_EQ(t.problem.dtype, DType::bf16);
  EXPECT_EQ(t.problem.x_layout(), Layout::ncdhw);
  EXPECT_EQ(t.max_calc_diff, BenchOptions{}.max_calc_diff);
  const RunTask f32 = resolve_task("depthwise/evokernel", "f32", "ndhwc");
  EXPECT_EQ(f32.problem.dtype, DType::f32);
  EXPECT_EQ(f32.problem.x_layout(), Layout::ndhwc);
}

TEST(Task, ATaskFileCarriesDtypeLayoutAndTolerance) {
  const TempDir tmp;
  const std::string path = (fs::path(tmp.path()) / "tiny.json").string();
  std::ofstream(path) << R"({"suite": "dense", "name": "tiny", "N": 1, "C": 4, "K": 6, "D": 3, "H": 5, "W": 7,
    "kernel": [1, 3, 3], "padding": [0, 1, 1], "bias": true, "dtype": "f16", "layout": "ndhwc",
    "tolerance": {"calc_diff": 2e-5, "rel_l2": 3e-2}})";
  const RunTask t = resolve_task(path);
  EXPECT_EQ(t.name, path);
  EXPECT_EQ(t.suite, "dense");
  EXPECT_EQ(t.case_name, "tiny");
  EXPECT_EQ(t.problem.K, 6);
  EXPECT_EQ(t.problem.groups, 1);
  EXPECT_EQ(t.problem.Ho, 5);
  EXPECT_EQ(t.problem.dtype, DType::f16);
  EXPECT_EQ(t.problem.x_layout(), Layout::ndhwc);
  EXPECT_EQ(t.max_calc_diff, 2e-5);
  EXPECT_EQ(t.max_rel_l2, 3e-2);
  EXPECT_EQ(resolve_task(path, "bf16", "ncdhw").problem.dtype, DType::bf16);  // the command line wins
}

TEST(Task, SpecsThatDoNotResolveSayWhy) {
  EXPECT_NE(error_of("evokernel").find("expected a task SUITE/CASE"), std::string::npos);
  EXPECT_NE(error_of("depthwise/").find("expected a task SUITE/CASE"), std::string::npos);
  EXPECT_NE(error_of("depthwise/nope").find("cases: evokernel"), std::string::npos);
  EXPECT_NE(error_of("nosuite/x").find("suite 'nosuite' not found"), std::string::npos);
  EXPECT_NE(error_of("/no/such/task.json").find("cannot open task file"), std::string::npos);
  const TempDir tmp;
  const std::string path = (fs::path(tmp.path()) / "bad.json").string();
  std::ofstream(path) << R"({"suite": "dense", "name": "x", "N": 1})";
  EXPECT_NE(error_of(path).find("task file " + path), std::string::npos);
}

}  // namespace
}  // namespace kforge
