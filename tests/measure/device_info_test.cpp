// Device query and the ceilings cache: the no-GPU error, the real device's numbers, the cache's JSON and path
// rules (CPU), and a corrupt cache being reported and rebuilt (GPU, measures the ceilings once: ~10 s).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpu_test_util.hpp"
#include "kforge/types.hpp"
#include "measure/ceilings.hpp"
#include "measure/device_info.hpp"
#include "tools/tools_test_util.hpp"

namespace kforge {
namespace {

using testing::ScopedEnv;
using testing::TempDir;

TEST(DeviceInfo, NoDeviceIsAnError) {
  if (testing::gpu_unavailable_reason().empty()) GTEST_SKIP() << "a GPU is present; this checks the CPU-only error";
  try {
    query_device();
    FAIL() << "expected kforge::Error on a machine without a CUDA device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
}

TEST(DeviceInfo, RealDeviceNumbers) {
  KF_REQUIRE_GPU();
  const DeviceInfo d = query_device();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.smem_per_sm, 0);
  EXPECT_GE(d.smem_per_block_optin, d.smem_per_block);
  EXPECT_GT(d.l2_bytes, 0);
  EXPECT_EQ(d.warp_size, 32);
  EXPECT_GT(d.peak_dram_tbps(), 0.0);
  const nlohmann::json j = d.to_json();
  for (const char* key : {"name", "sm_count", "smem_per_sm", "l2_bytes", "mem_clock_khz", "driver_version"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["sm_count"].get<int>(), d.sm_count);
}

Ceilings sample_ceilings() {
  Ceilings c;
  c.device = "NVIDIA H200";
  c.sm_count = 132;
  c.measured_at = "2025-01-01T00:00:00Z";
  c.copy_tbps = 4.1;
  c.gemm_bf16_tflops = 700.5;
  c.gemm_fp8_tflops = 1300.25;
  return c;
}

TEST(Ceilings, JsonRoundTripWithSchema) {
  const nlohmann::json j = sample_ceilings().to_json();
  EXPECT_EQ(j.at("schema").get<int>(), 1);
  const Ceilings back = Ceilings::from_json(j);
  EXPECT_EQ(back.device, "NVIDIA H200");
  EXPECT_EQ(back.sm_count, 132);
  EXPECT_EQ(back.measured_at, "2025-01-01T00:00:00Z");
  EXPECT_DOUBLE_EQ(back.copy_tbps, 4.1);
  EXPECT_DOUBLE_EQ(back.gemm_bf16_tflops, 700.5);
  EXPECT_DOUBLE_EQ(back.gemm_fp8_tflops, 1300.25);
}

TEST(Ceilings, FromJsonRefusesWrongSchemaMissingFieldsAndZeroRates) {
  nlohmann::json j = sample_ceilings().to_json();
  j["schema"] = 2;
  EXPECT_THROW(Ceilings::from_json(j), Error);
  j = sample_ceilings().to_json();
  j.erase("copy_tbps");
  EXPECT_THROW(Ceilings::from_json(j), Error);
  j = sample_ceilings().to_json();
  j["gemm_bf16_tflops"] = 0.0;
  EXPECT_THROW(Ceilings::from_json(j), Error);
}

TEST(Ceilings, CachePathUsesCacheDirAndSanitizedName) {
  const ScopedEnv dir("KFORGE_CACHE_DIR", "/some/cache");
  DeviceInfo d;
  d.name = "NVIDIA H200 (MIG 1g/18gb)";
  d.sm_count = 16;
  EXPECT_EQ(ceilings_cache_path(d), "/some/cache/ceilings-NVIDIA_H200__MIG_1g_18gb_-16.json");
}

TEST(Ceilings, CachePathFallsBackToXdgCacheHome) {
  const ScopedEnv dir("KFORGE_CACHE_DIR", "");
  const ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
  DeviceInfo d;
  d.name = "GPU";
  d.sm_count = 8;
  EXPECT_EQ(ceilings_cache_path(d), "/xdg/kforge/ceilings-GPU-8.json");
}

TEST(Ceilings, ValidCacheIsReadWithoutMeasuring) {
  // No GPU call happens on a cache hit, so this holds on a CPU-only machine too.
  const TempDir tmp;
  const ScopedEnv dir("KFORGE_CACHE_DIR", tmp.path().c_str());
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  std::ofstream(ceilings_cache_path(d)) << sample_ceilings().to_json().dump();
  const Ceilings c = load_or_measure_ceilings(d);
  EXPECT_EQ(c.measured_at, "2025-01-01T00:00:00Z");
  EXPECT_DOUBLE_EQ(c.gemm_fp8_tflops, 1300.25);
}

TEST(Ceilings, CorruptCacheIsReportedAndRebuilt) {
  KF_REQUIRE_GPU();
  const TempDir tmp;
  const ScopedEnv dir("KFORGE_CACHE_DIR", tmp.path().c_str());
  const DeviceInfo d = query_device();
  const std::string path = ceilings_cache_path(d);
  std::ofstream(path) << "{ not json";

  ::testing::internal::CaptureStderr();
  const Ceilings measured = load_or_measure_ceilings(d);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("kforge: ceilings cache " + path + " is unreadable ("), std::string::npos) << err;
  EXPECT_NE(err.find("); measuring again"), std::string::npos) << err;
  EXPECT_EQ(measured.device, d.name);
  EXPECT_GT(measured.copy_tbps, 0.1);
  EXPECT_GT(measured.gemm_bf16_tflops, 10.0);
  EXPECT_GT(measured.gemm_fp8_tflops, 10.0);
  // The floor of every benchmark divides by these: the copy cannot beat the datasheet DRAM peak by much.
  EXPECT_LT(measured.copy_tbps, 1.1 * d.peak_dram_tbps());

  // The rebuilt cache is read back as is (same measurement time), with no message.
  ::testing::internal::CaptureStderr();
  const Ceilings cached = load_or_measure_ceilings(d);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(cached.measured_at, measured.measured_at);
  EXPECT_DOUBLE_EQ(cached.copy_tbps, measured.copy_tbps);
}

}  // namespace
}  // namespace kforge
