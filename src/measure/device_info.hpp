// What the GPU really has, read from cudaGetDeviceProperties and the driver.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace kforge {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t smem_per_sm = 0;           // bytes
  int64_t smem_per_block_optin = 0;  // bytes a block may get after cudaFuncSetAttribute
  int64_t smem_per_block = 0;        // default per-block limit
  int64_t l2_bytes = 0;
  int64_t persisting_l2_max = 0;
  int regs_per_sm = 0, regs_per_block = 0;
  int max_threads_per_sm = 0, max_blocks_per_sm = 0, warp_size = 0;
  int sm_clock_khz = 0, mem_clock_khz = 0, mem_bus_bits = 0;  // driver-reported max clocks
  int64_t global_mem_bytes = 0;
  int driver_version = 0, runtime_version = 0;
  double peak_dram_tbps() const;  // 2 * mem clock * bus width (the datasheet-style theoretical number)
  nlohmann::json to_json() const;
};

// Throws kforge::Error when no device is present (message says so).
DeviceInfo query_device(int ordinal = -1);  // -1: the current device

}  // namespace kforge
