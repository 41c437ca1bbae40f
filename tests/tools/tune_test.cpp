// The autotuner on the GPU: a small dense problem tuned end to end, and the dispatch rule following (or, when the
// entry no longer applies, ignoring) what the cache holds. Every test writes into its own cache folder.
#include "tools/tune.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "dispatch/tune_cache.hpp"
#include "gpu_test_util.hpp"
#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

using testing::ScopedEnv;
using testing::TempDir;

ConvProblem small_dense(int64_t K, DType dtype = DType::bf16) {
  ConvParams prm;
  prm.padding = {1};
  return ConvProblem::dense(1, 64, K, {6, 10, 12}, {3, 3, 3}, prm, dtype, Layout::ndhwc, true);
}

TEST(Tune, SmallDenseProblemRecordsAPassingWinnerThatDispatchFollows) {
  KF_REQUIRE_GPU();
  const TempDir tmp;
  const ScopedEnv dir("KFORGE_CACHE_DIR", tmp.path().c_str());
  const ScopedEnv on("KFORGE_AUTOTUNE", nullptr);
  const ConvProblem p = small_dense(64);
  TuneOptions opt;
  opt.max_seconds = 0.05;
  size_t calls = 0, timed_calls = 0;
  int candidates = 0;
  const TuneResult r = tune_problem(p, "dense", opt, [&](const BenchRow& row, int i, int n) {
    ++calls;
    if (row.timing) ++timed_calls;
    candidates = n;
    EXPECT_EQ(i == 0, row.status == "SKIP") << row.variant << ": refused variants are not numbered";
  });
  const size_t passed = static_cast<size_t>(
      std::count_if(r.rows.begin(), r.rows.end(), [](const BenchRow& row) { return row.status == "PASS"; }));
  ASSERT_GE(passed, 1u);
  const size_t finalists = std::min<size_t>(passed, static_cast<size_t>(opt.finalists));
  ASSERT_EQ(r.finalists.size(), finalists);
  const size_t final_calls = finalists < passed ? finalists : 0;  // no final round when every PASS is a finalist
  EXPECT_EQ(calls, r.rows.size() + passed + final_calls)
      << "once after each check, once more for each PASS after the screening, and for each finalist after the final";
  EXPECT_EQ(timed_calls, passed + final_calls);
  EXPECT_GE(candidates, 3) << "the direct fallback and the tensor-core kernels all accept this problem";
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const BenchRow& row = r.rows[i];
    EXPECT_TRUE(Registry::instance().find(row.variant)->library) << row.variant << ": anchors are not candidates";
    EXPECT_TRUE(row.status == "PASS" || row.status == "SKIP") << row.variant << " " << row.status << ": "
                                                              << row.reason << " " << row.error.summary();
    if (row.status != "PASS") continue;
    const bool finalist = std::find(r.finalists.begin(), r.finalists.end(), i) != r.finalists.end();
    EXPECT_EQ(row.round_robin, static_cast<int>(finalist ? finalists : passed)) << row.variant << " not round-robin";
    EXPECT_EQ(row.reason.rfind("not a finalist", 0) == 0, !finalist) << row.variant << ": " << row.reason;
  }
  const BenchRow* winner = r.winner();
  ASSERT_NE(winner, nullptr);
  ASSERT_TRUE(winner->timing.has_value());
  EXPECT_LE(winner->error.calc_diff, 1e-5);
  EXPECT_TRUE(winner->deterministic);
  for (size_t i : r.finalists) EXPECT_LE(winner->timing->median_ms, r.rows[i].timing->median_ms) << r.rows[i].variant;

  std::string why;
  const Variant* tuned = tuned_variant(p, &why);
  ASSERT_NE(tuned, nullptr) << why;
  EXPECT_EQ(tuned->name, winner->variant);
  EXPECT_NE(why.find("autotuned: fastest of"), std::string::npos) << why;
  EXPECT_EQ(choose_variant(p).name, winner->variant);

  const TuneCache file = TuneCache::load(tune_cache_path());
  const TuneEntry* e = file.find(device_key(query_device()).str(), p.key());
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->winner, winner->variant);
  EXPECT_DOUBLE_EQ(e->median_ms, winner->timing->median_ms);
  EXPECT_EQ(e->candidates.size(), r.rows.size());
  EXPECT_EQ(e->timed(), candidates);
}

TEST(Tune, RefusesAFinalOfNoCandidates) {
  TuneOptions opt;
  opt.finalists = 0;
  try {
    tune_problem(small_dense(64), "dense", opt);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "tune_problem: expected finalists >= 1, but got 0");
  }
}

TEST(Tune, RecordedWinnerOverridesTheTileRuleUnlessItNoLongerApplies) {
  KF_REQUIRE_GPU();
  const TempDir tmp;
  const ScopedEnv dir("KFORGE_CACHE_DIR", tmp.path().c_str());
  const ScopedEnv on("KFORGE_AUTOTUNE", nullptr);
  const ConvProblem wide = small_dense(256);  // the tile rule: a grid under two waves wants the ping-pong kernel
  const std::string rule = "dense_v63_pingpong_192x64x64_e64x64_biaswhengiven";  // its 192x64 tiles (DenseAccepts)
  ASSERT_EQ(choose_variant(wide).name, rule);
  const DeviceKey device = device_key(query_device());
  TuneEntry e;
  e.problem = wide.describe();
  e.median_ms = 1.0;
  e.tuned_at = "2026-12-01T10:00:00Z";
  auto winner_is = [&](const std::string& name, const ConvProblem& p) {
    e.winner = name;
    e.candidates = {{name, "PASS", 1.0, ""}};
    record_tuned(device, p, e);
  };

  winner_is("dense_v0_direct", wide);
  EXPECT_EQ(choose_variant(wide).name, "dense_v0_direct");
  {
    const ScopedEnv off("KFORGE_AUTOTUNE", "0");
    EXPECT_EQ(choose_variant(wide).name, rule);
  }

  std::string why;
  std::string anchor;
  for (const Variant* v : Registry::instance().family("dense"))
    if (!v->library) anchor = v->name;
  ASSERT_FALSE(anchor.empty());
  winner_is(anchor, wide);
  EXPECT_EQ(tuned_variant(wide, &why), nullptr);
  EXPECT_NE(why.find("comparison anchor"), std::string::npos) << why;
  EXPECT_EQ(choose_variant(wide).name, rule);

  winner_is("dense_v99_renamed", wide);
  EXPECT_EQ(tuned_variant(wide, &why), nullptr);
  EXPECT_NE(why.find("no longer registered"), std::string::npos) << why;
  EXPECT_EQ(choose_variant(wide).name, rule);

  const ConvProblem f16 = small_dense(256, DType::f16);  // the tensor-core kernels are bf16 only
  winner_is(rule, f16);
  EXPECT_EQ(tuned_variant(f16, &why), nullptr);
  EXPECT_NE(why.find("now refuses"), std::string::npos) << why;
  EXPECT_EQ(choose_variant(f16).name, "dense_v0_direct");
}

}  // namespace
}  // namespace kforge
