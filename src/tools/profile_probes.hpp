// The workloads `kforge profile` runs under ncu: a registered variant on a suite case (profile_target.cpp) and two
// reference probes whose classification is known, a DRAM-streaming copy (memory-bound) and a large cuBLAS bf16
// GEMM (compute-bound), so that a reading of a kforge kernel can be set against both.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

namespace kforge {

// A workload with its inputs in place: launch() is the one launch that gets profiled.
class ProfileWorkload {
 public:
  virtual ~ProfileWorkload() = default;
  virtual void launch(cudaStream_t stream) = 0;
};

// A device-to-device copy kernel of 16-byte vectors over two buffers of up to 1 GiB (far past L2).
std::unique_ptr<ProfileWorkload> make_copy_probe(cudaStream_t stream);
// The bf16 GEMM of the ceilings (cuBLAS, 8192^3, fp32 accumulation).
std::unique_ptr<ProfileWorkload> make_gemm_probe(cudaStream_t stream);

}  // namespace kforge
