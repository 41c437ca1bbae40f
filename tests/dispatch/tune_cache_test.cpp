// The autotune cache file without a GPU: device keys, round trips, stale and foreign sections, corrupt files,
// atomic writes, and KFORGE_AUTOTUNE=0.
#include "dispatch/tune_cache.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

using testing::ScopedEnv;
using testing::TempDir;

ConvProblem problem(Layout layout) {
  ConvParams prm;
  prm.padding = {1};
  return ConvProblem::dense(1, 64, 64, {6, 10, 12}, {3, 3, 3}, prm, DType::bf16, layout, false);
}

DeviceKey h200() { return DeviceKey{"NVIDIA H200", 132, 13000, "0.1.0", kTuneCacheSchema}; }

TuneEntry entry(const std::string& winner, double ms) {
  TuneEntry e;
  e.problem = "N1 C64 K64 ...";
  e.winner = winner;
  e.median_ms = ms;
  e.tuned_at = "2026-12-01T10:00:00Z";
  e.candidates = {{"dense_v0_direct", "SKIP", std::nullopt, "not benchmarked above 200 GFLOP"},
                  {winner, "PASS", ms, ""},
                  {"dense_v3_persistent_256x128x64", "PASS", ms * 1.5, ""},
                  {"dense_v5_streamk_128x256x64", "FAIL", std::nullopt, "calc_diff 3.0e-02 rel_l2 0.2"}};
  return e;
}

std::filesystem::path file_in(const TempDir& dir) { return std::filesystem::path(dir.path()) / "autotune.json"; }

void write_text(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string read_text(const std::filesystem::path& path) {
  std::stringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

TEST(DeviceKey, NamesEveryPartThatInvalidatesAMeasurement) {
  EXPECT_EQ(h200().str(), "NVIDIA H200, 132 SMs, CUDA runtime 13.0, kforge 0.1.0, autotune schema 1");
  std::set<std::string> keys{h200().str()};
  DeviceKey k = h200();
  k.gpu = "NVIDIA H100 80GB HBM3";
  keys.insert(k.str());
  k = h200();
  k.sm_count = 114;
  keys.insert(k.str());
  k = h200();
  k.cuda_runtime = 13010;
  keys.insert(k.str());
  k = h200();
  k.kforge_version = "0.2.0";
  keys.insert(k.str());
  k = h200();
  k.schema = kTuneCacheSchema + 1;
  keys.insert(k.str());
  EXPECT_EQ(keys.size(), 6u) << "every part of the key must change it";
}

TEST(DeviceKey, OfADeviceCarriesThisBuildsVersionAndSchema) {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  d.runtime_version = 12080;
  const DeviceKey k = device_key(d);
  EXPECT_EQ(k.gpu, "NVIDIA H200");
  EXPECT_EQ(k.sm_count, 132);
  EXPECT_EQ(k.cuda_runtime, 12080);
  EXPECT_EQ(k.kforge_version, KFORGE_VERSION);
  EXPECT_EQ(k.schema, kTuneCacheSchema);
  EXPECT_NE(k.str().find("CUDA runtime 12.8"), std::string::npos) << k.str();
}

TEST(TuneCache, RoundTripsEntriesKeyedByProblem) {
  const TempDir tmp;
  TuneCache c = TuneCache::load(file_in(tmp));
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.corrupt(), "");
  const ConvProblem ncdhw = problem(Layout::ncdhw), ndhwc = problem(Layout::ndhwc);
  ASSERT_NE(ncdhw.key(), ndhwc.key());
  c.put(h200(), ncdhw.key(), entry("dense_v2_persistent_128x256x64", 1.5));
  c.put(h200(), ndhwc.key(), entry("dense_v4_persistent_128x256x64_c2x1", 0.75));
  c.save();

  const TuneCache back = TuneCache::load(file_in(tmp));
  EXPECT_EQ(back.corrupt(), "");
  const TuneEntry* a = back.find(h200().str(), ncdhw.key());
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->winner, "dense_v2_persistent_128x256x64");
  EXPECT_DOUBLE_EQ(a->median_ms, 1.5);
  EXPECT_EQ(a->tuned_at, "2026-12-01T10:00:00Z");
  EXPECT_EQ(a->problem, "N1 C64 K64 ...");
  ASSERT_EQ(a->candidates.size(), 4u);
  EXPECT_EQ(a->candidates[0].status, "SKIP");
  EXPECT_FALSE(a->candidates[0].median_ms.has_value());
  EXPECT_EQ(a->candidates[0].reason, "not benchmarked above 200 GFLOP");
  EXPECT_DOUBLE_EQ(a->candidates[2].median_ms.value_or(0), 2.25);
  EXPECT_EQ(a->candidates[3].reason, "calc_diff 3.0e-02 rel_l2 0.2");
  EXPECT_EQ(a->timed(), 2);
  const TuneEntry* b = back.find(h200().str(), ndhwc.key());
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->winner, "dense_v4_persistent_128x256x64_c2x1");
  EXPECT_EQ(back.dump(), c.dump()) << "a round trip loses or reorders nothing";
}

TEST(TuneCache, EntriesOfAnotherDeviceKeyAreIgnoredButKept) {
  const TempDir tmp;
  const std::string key = problem(Layout::ndhwc).key();
  DeviceKey older_runtime = h200();
  older_runtime.cuda_runtime = 12080;
  TuneCache c = TuneCache::load(file_in(tmp));
  c.put(older_runtime, key, entry("dense_v0_direct", 9.0));
  c.save();

  TuneCache back = TuneCache::load(file_in(tmp));
  EXPECT_EQ(back.find(h200().str(), key), nullptr) << "an entry measured under another CUDA runtime is stale";
  EXPECT_EQ(back.other_devices(h200()), std::vector<std::string>{older_runtime.str()});
  back.put(h200(), key, entry("dense_v2_persistent_128x256x64", 1.0));
  back.save();

  const TuneCache again = TuneCache::load(file_in(tmp));
  ASSERT_NE(again.find(h200().str(), key), nullptr);
  EXPECT_EQ(again.find(h200().str(), key)->winner, "dense_v2_persistent_128x256x64");
  ASSERT_NE(again.find(older_runtime.str(), key), nullptr) << "the other device's section was dropped";
  EXPECT_EQ(again.find(older_runtime.str(), key)->winner, "dense_v0_direct");
}

TEST(TuneCache, SectionsOfAnotherSchemaAreKeptUnread) {
  const TempDir tmp;
  write_text(file_in(tmp), R"({"devices": {"a future key": {"schema": 99, "shape": ["anything", 1]}}})");
  TuneCache c = TuneCache::load(file_in(tmp));
  EXPECT_EQ(c.corrupt(), "");
  EXPECT_EQ(c.other_devices(h200()), std::vector<std::string>{"a future key"});
  c.put(h200(), problem(Layout::ndhwc).key(), entry("dense_v2_persistent_128x256x64", 1.0));
  c.save();
  const std::string text = read_text(file_in(tmp));
  EXPECT_NE(text.find("\"shape\""), std::string::npos) << text;
  EXPECT_EQ(TuneCache::load(file_in(tmp)).corrupt(), "");
}

TEST(TuneCache, CorruptFilesReadAsEmptyAndAreReplacedOnSave) {
  const std::string valid_section =
      R"("NVIDIA H200, 132 SMs, CUDA runtime 13.0, kforge 0.1.0, autotune schema 1": {"gpu": "NVIDIA H200",
         "sm_count": 132, "cuda_runtime": 13000, "kforge": "0.1.0", "schema": 1, "problems": )";
  const std::string valid_entry =
      R"({"problem": "p", "winner": "dense_v0_direct", "median_ms": 1.0, "tuned_at": "t", "candidates": []})";
  // Sanity: the pieces form a valid file, so each case below is corrupt by its one change only.
  {
    const TempDir tmp;
    write_text(file_in(tmp), "{\"devices\": {" + valid_section + "{\"k\": " + valid_entry + "}}}}");
    ASSERT_EQ(TuneCache::load(file_in(tmp)).corrupt(), "");
  }
  std::string wrong_winner = valid_entry;
  wrong_winner.replace(wrong_winner.find("\"dense_v0_direct\""), 17, "5");
  std::string zero_ms = valid_entry;
  zero_ms.replace(zero_ms.find("1.0"), 3, "0");
  std::string other_fields = valid_section;
  other_fields.replace(other_fields.find("132,"), 3, "114");
  const std::vector<std::string> corrupt = {
      "{ not json",
      "[1, 2]",
      R"({"devices": []})",
      "{\"devices\": {" + valid_section + "{\"k\": " + wrong_winner + "}}}}",
      "{\"devices\": {" + valid_section + "{\"k\": " + zero_ms + "}}}}",
      "{\"devices\": {" + valid_section + "[]}}}",
      "{\"devices\": {" + other_fields + "{}}}}",
  };
  for (const std::string& text : corrupt) {
    SCOPED_TRACE(text);
    const TempDir tmp;
    write_text(file_in(tmp), text);
    TuneCache c = TuneCache::load(file_in(tmp));
    EXPECT_NE(c.corrupt(), "");
    EXPECT_TRUE(c.empty());
    c.put(h200(), "k", entry("dense_v2_persistent_128x256x64", 1.0));
    c.save();
    EXPECT_EQ(c.corrupt(), "");
    const TuneCache rebuilt = TuneCache::load(file_in(tmp));
    EXPECT_EQ(rebuilt.corrupt(), "");
    ASSERT_NE(rebuilt.find(h200().str(), "k"), nullptr);
    EXPECT_TRUE(rebuilt.other_devices(h200()).empty());
  }
}

TEST(TuneCache, CorruptFileIsReportedOnceOnStderr) {
  const TempDir tmp;
  const ScopedEnv dir("KFORGE_CACHE_DIR", tmp.path().c_str());
  const std::string path = tune_cache_path().string();
  EXPECT_EQ(path, file_in(tmp).string());
  write_text(path, "{ not json");
  ::testing::internal::CaptureStderr();
  const TuneCache first = tune_cache();
  std::string why;
  tuned_variant(problem(Layout::ndhwc), &why);
  {
    const TempDir elsewhere;  // another folder and back: the same corrupt file is read again
    const ScopedEnv other("KFORGE_CACHE_DIR", elsewhere.path().c_str());
    tune_cache();
  }
  const TuneCache again = tune_cache();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(first.empty());
  EXPECT_NE(again.corrupt(), "");
  const std::string report = "kforge: autotune cache " + path + " is corrupt (";
  const size_t at = err.find(report);
  ASSERT_NE(at, std::string::npos) << err;
  EXPECT_EQ(err.find(report, at + 1), std::string::npos) << "reported more than once:\n" << err;
  EXPECT_NE(err.find("): rebuilding it\n"), std::string::npos) << err;
}

TEST(TuneCache, SaveLeavesNoTemporaryFiles) {
  const TempDir tmp;
  TuneCache c = TuneCache::load(file_in(tmp));
  c.put(h200(), "k", entry("dense_v2_persistent_128x256x64", 1.0));
  c.save();
  c.put(h200(), "k2", entry("dense_v3_persistent_256x128x64", 2.0));
  c.save();
  std::vector<std::string> names;
  for (const auto& f : std::filesystem::directory_iterator(tmp.path())) names.push_back(f.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"autotune.json"});
}

TEST(TunedVariant, KforgeAutotuneZeroDisablesTheLookup) {
  const ConvProblem p = problem(Layout::ndhwc);
  std::string why;
  {
    const TempDir empty;
    const ScopedEnv dir("KFORGE_CACHE_DIR", empty.path().c_str());
    const ScopedEnv unset("KFORGE_AUTOTUNE", nullptr);
    EXPECT_EQ(tuned_variant(p, &why), nullptr);
    EXPECT_EQ(why, "nothing tuned (kforge tune)");
  }
  // An entry for this problem (under some device): without the switch, the lookup goes on to the device.
  const TempDir tmp;
  const ScopedEnv dir("KFORGE_CACHE_DIR", tmp.path().c_str());
  TuneCache c = TuneCache::load(tune_cache_path());
  c.put(h200(), p.key(), entry("dense_v0_direct", 1.0));
  c.save();
  {
    const ScopedEnv off("KFORGE_AUTOTUNE", "0");
    EXPECT_EQ(tuned_variant(p, &why), nullptr);
    EXPECT_EQ(why, "autotune off (KFORGE_AUTOTUNE=0)");
  }
  {
    const ScopedEnv on("KFORGE_AUTOTUNE", "1");
    tuned_variant(p, &why);
    EXPECT_NE(why, "autotune off (KFORGE_AUTOTUNE=0)");
    EXPECT_NE(why, "nothing tuned (kforge tune)") << "the file of the new cache folder was not read";
  }
}

}  // namespace
}  // namespace kforge
