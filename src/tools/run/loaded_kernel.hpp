// A kernel image loaded on the current GPU through the CUDA runtime's library API (cudaLibraryLoadData, the
// runtime face of cuLibraryLoadData: the static runtime finds the driver itself, so nothing links libcuda and the
// binaries still start on machines without one). PTX is compiled by the driver here, with its log kept.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "kforge/conv.hpp"
#include "kforge/run_abi.h"
#include "tools/asm.hpp"
#include "tools/run/kernel_build.hpp"
#include "tools/run/launch_rule.hpp"

namespace kforge {

class LoadedKernel {
 public:
  // Loads the image and reads its `kforge_kernel` and `kforge_launch`; throws kforge::Error saying which is
  // missing or why the driver refused the image (with the JIT's error log for PTX).
  explicit LoadedKernel(const KernelImage& image);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  const kforge_launch_rule& rule() const { return rule_; }
  // Registers, static shared memory and local memory (cudaFuncGetAttributes); spills from ptxas' report in the
  // build log (CUDA sources) or the driver's JIT log (PTX); none for a cubin.
  const KernelResources& resources() const { return resources_; }

  // "" when the kernel can run `p` on this GPU, else why not (the rule's checks, threads and shared memory).
  std::string accepts(const ConvProblem& p) const;
  LaunchGeometry geometry(const ConvProblem& p) const { return launch_geometry(rule_, p, sm_count_); }
  // Enqueues kforge_kernel on `stream`; `p` must be accepted. Launch errors throw.
  void launch(const ConvProblem& p, const void* x, const void* w, const void* bias, void* y, cudaStream_t stream) const;

 private:
  std::string label_;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  kforge_launch_rule rule_{};
  KernelResources resources_;
  int max_threads_per_block_ = 0;
  int64_t static_smem_ = 0, smem_optin_ = 0;
  int sm_count_ = 0;
};

}  // namespace kforge
