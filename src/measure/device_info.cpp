// What the GPU really has: every number from cudaDeviceGetAttribute / cudaGetDeviceProperties and the driver.
// Limits: clocks are the driver-reported maxima (CUDA 13 dropped them from cudaDeviceProp, so they come from
// attributes), not the clocks a kernel actually runs at.
#include "measure/device_info.hpp"

#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>

#include "core/cuda_check.hpp"

namespace kforge {
namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  KF_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

double DeviceInfo::peak_dram_tbps() const {
  // Double data rate: two transfers per memory clock over the whole bus.
  return 2.0 * static_cast<double>(mem_clock_khz) * 1e3 * static_cast<double>(mem_bus_bits) / 8.0 / 1e12;
}

nlohmann::json DeviceInfo::to_json() const {
  return nlohmann::json{
      {"ordinal", ordinal},
      {"name", name},
      {"cc_major", cc_major},
      {"cc_minor", cc_minor},
      {"sm_count", sm_count},
      {"smem_per_sm", smem_per_sm},
      {"smem_per_block_optin", smem_per_block_optin},
      {"smem_per_block", smem_per_block},
      {"l2_bytes", l2_bytes},
      {"persisting_l2_max", persisting_l2_max},
      {"regs_per_sm", regs_per_sm},
      {"regs_per_block", regs_per_block},
      {"max_threads_per_sm", max_threads_per_sm},
      {"max_blocks_per_sm", max_blocks_per_sm},
      {"warp_size", warp_size},
      {"sm_clock_khz", sm_clock_khz},
      {"mem_clock_khz", mem_clock_khz},
      {"mem_bus_bits", mem_bus_bits},
      {"global_mem_bytes", global_mem_bytes},
      {"driver_version", driver_version},
      {"runtime_version", runtime_version},
      {"peak_dram_tbps", peak_dram_tbps()},  // derived, kept alongside so reports need no recomputation
  };
}

DeviceInfo query_device(int ordinal) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    // Clear the (non-sticky) error so later CUDA calls do not report it again.
    cudaGetLastError();
    throw Error(std::string("no CUDA device: ") +
                (err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount returned 0 devices"));
  }
  if (ordinal < 0) KF_CUDA_CHECK(cudaGetDevice(&ordinal));
  if (ordinal >= count) {
    throw Error("expected a CUDA device ordinal in [0, " + std::to_string(count) + "), but got " +
                std::to_string(ordinal));
  }

  cudaDeviceProp prop{};
  KF_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = prop.name;
  d.global_mem_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  d.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, ordinal);
  d.cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, ordinal);
  d.sm_count = attribute(cudaDevAttrMultiProcessorCount, ordinal);
  d.smem_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, ordinal);
  d.smem_per_block_optin = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal);
  d.smem_per_block = attribute(cudaDevAttrMaxSharedMemoryPerBlock, ordinal);
  d.l2_bytes = attribute(cudaDevAttrL2CacheSize, ordinal);
  d.persisting_l2_max = attribute(cudaDevAttrMaxPersistingL2CacheSize, ordinal);
  d.regs_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor, ordinal);
  d.regs_per_block = attribute(cudaDevAttrMaxRegistersPerBlock, ordinal);
  d.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, ordinal);
  d.max_blocks_per_sm = attribute(cudaDevAttrMaxBlocksPerMultiprocessor, ordinal);
  d.warp_size = attribute(cudaDevAttrWarpSize, ordinal);
  d.sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  d.mem_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  d.mem_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  KF_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  KF_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  return d;
}

}  // namespace kforge
