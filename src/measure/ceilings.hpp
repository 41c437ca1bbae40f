// Measured ceilings of the device (copy bandwidth, cuBLAS bf16 and fp8 GEMM rates), cached per device.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "measure/device_info.hpp"

namespace kforge {

struct Ceilings {
  std::string device;          // DeviceInfo::name
  int sm_count = 0;
  std::string measured_at;     // ISO date-time (UTC)
  double copy_tbps = 0;        // device-to-device copy, bytes read + written
  double gemm_bf16_tflops = 0; // cuBLAS bf16 8192^3, fp32 accumulation, random data
  double gemm_fp8_tflops = 0;  // cuBLASLt e4m3 8192^3, fp32 accumulation, random data
  nlohmann::json to_json() const;
  static Ceilings from_json(const nlohmann::json& j);
};

// Measures the three ceilings now (about 5-10 s).
Ceilings measure_ceilings(const DeviceInfo& dev);

// The cache file: $KFORGE_CACHE_DIR or $XDG_CACHE_HOME/kforge or ~/.cache/kforge, file
// ceilings-<sanitized device name>-<sm count>.json.
std::string ceilings_cache_path(const DeviceInfo& dev);

// Cached ceilings for this device, measuring (and writing the cache atomically) when absent, unreadable or
// when remeasure is set. A corrupt cache is reported on stderr and rebuilt.
Ceilings load_or_measure_ceilings(const DeviceInfo& dev, bool remeasure = false);

}  // namespace kforge
