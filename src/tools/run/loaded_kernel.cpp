// Loading, inspecting and launching a run-ABI kernel with the CUDA runtime's library API.
#include "tools/run/loaded_kernel.hpp"

#include <vector>

#include "core/cuda_check.hpp"

namespace kforge {
namespace {

constexpr unsigned kJitLogBytes = 64 * 1024;
constexpr int64_t kDefaultSmemLimit = 48 * 1024;  // above this a kernel must opt in (cudaFuncSetAttribute)

std::string c_string(const std::vector<char>& buffer) { return std::string(buffer.data()); }

// Loads `image`; PTX goes through the driver's JIT with verbose info (ptxas' resource report) into *jit_log.
cudaLibrary_t load_library(const KernelImage& image, std::string* jit_log) {
  std::vector<char> info(kJitLogBytes, '\0'), error(kJitLogBytes, '\0');
  cudaJitOption options[] = {cudaJitInfoLogBuffer, cudaJitInfoLogBufferSizeBytes, cudaJitErrorLogBuffer,
                             cudaJitErrorLogBufferSizeBytes, cudaJitLogVerbose};
  void* values[] = {info.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(kJitLogBytes)), error.data(),
                    reinterpret_cast<void*>(static_cast<uintptr_t>(kJitLogBytes)),
                    reinterpret_cast<void*>(static_cast<uintptr_t>(1))};
  const bool ptx = image.kind == ImageKind::ptx;
  cudaLibrary_t library = nullptr;
  // The driver reads PTX up to its terminating NUL, which std::string keeps after its bytes.
  const cudaError_t e = cudaLibraryLoadData(&library, image.bytes.c_str(), ptx ? options : nullptr,
                                            ptx ? values : nullptr, ptx ? 5 : 0, nullptr, nullptr, 0);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error("cannot load " + image.file + " on this GPU: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                ")" + (error[0] ? "\n" + c_string(error) : ""));
  }
  *jit_log = c_string(info);
  return library;
}

}  // namespace

LoadedKernel::LoadedKernel(const KernelImage& image) : label_(image.label) {
  std::string jit_log;
  library_ = load_library(image, &jit_log);
  try {
    if (cudaLibraryGetKernel(&kernel_, library_, "kforge_kernel") != cudaSuccess) {
      cudaGetLastError();
      throw Error(image.file + " has no kernel `extern \"C\" __global__ void kforge_kernel(kforge_run_params)` "
                  "(docs/run-kernels.md)");
    }
    void* rule_ptr = nullptr;
    size_t rule_bytes = 0;
    if (cudaLibraryGetGlobal(&rule_ptr, &rule_bytes, library_, "kforge_launch") != cudaSuccess) {
      cudaGetLastError();
      throw Error(image.file + " defines no `extern \"C\" __device__ const kforge_launch_rule kforge_launch` "
                  "(docs/run-kernels.md)");
    }
    if (rule_bytes != sizeof(kforge_launch_rule))
      throw Error(image.file + ": kforge_launch has " + std::to_string(rule_bytes) + " bytes, expected " +
                  std::to_string(sizeof(kforge_launch_rule)) + " (a kforge_launch_rule of run_abi.h version " +
                  std::to_string(KFORGE_RUN_ABI_VERSION) + ")");
    KF_CUDA_CHECK(cudaMemcpy(&rule_, rule_ptr, sizeof(rule_), cudaMemcpyDeviceToHost));

    // The runtime takes a cudaKernel_t wherever it takes a kernel's address.
    const void* fn = reinterpret_cast<const void*>(kernel_);
    cudaFuncAttributes attr{};
    KF_CUDA_CHECK(cudaFuncGetAttributes(&attr, fn));
    resources_.name = "kforge_kernel";
    resources_.registers = attr.numRegs;
    resources_.shared_bytes = static_cast<int64_t>(attr.sharedSizeBytes);
    resources_.local_bytes = static_cast<int64_t>(attr.localSizeBytes);
    resources_.constant0_bytes = static_cast<int64_t>(attr.constSizeBytes);
    std::vector<KernelResources> one{resources_};
    add_spills(one, image.kind == ImageKind::ptx ? jit_log : image.log);
    resources_ = one.front();
    max_threads_per_block_ = attr.maxThreadsPerBlock;
    static_smem_ = static_cast<int64_t>(attr.sharedSizeBytes);

    int device = 0, optin = 0;
    KF_CUDA_CHECK(cudaGetDevice(&device));
    KF_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    KF_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
    smem_optin_ = optin;
    if (rule_.dynamic_smem_bytes > kDefaultSmemLimit && rule_.dynamic_smem_bytes + static_smem_ <= smem_optin_)
      KF_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, rule_.dynamic_smem_bytes));
  } catch (...) {
    cudaLibraryUnload(library_);
    throw;
  }
}

LoadedKernel::~LoadedKernel() { static_cast<void>(cudaLibraryUnload(library_)); }

std::string LoadedKernel::accepts(const ConvProblem& p) const {
  if (std::string why = rule_refusal(rule_, p); !why.empty()) return why;
  if (rule_.block_threads > max_threads_per_block_)
    return "kforge_launch.block_threads is " + std::to_string(rule_.block_threads) + ", but the kernel as compiled " +
           "launches at most " + std::to_string(max_threads_per_block_) + " threads per block (registers or " +
           "__launch_bounds__)";
  if (rule_.dynamic_smem_bytes + static_smem_ > smem_optin_)
    return "the kernel needs " + std::to_string(rule_.dynamic_smem_bytes + static_smem_) +
           " bytes of shared memory per block (static + dynamic), but this GPU allows " + std::to_string(smem_optin_);
  return "";
}

void LoadedKernel::launch(const ConvProblem& p, const void* x, const void* w, const void* bias, void* y,
                          cudaStream_t stream) const {
  const LaunchGeometry g = geometry(p);
  if (g.blocks == 0) return;
  kforge_run_params params = run_params(p, x, w, bias, y);
  void* args[] = {&params};
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(g.blocks));
  config.blockDim = dim3(static_cast<unsigned>(g.threads));
  config.dynamicSmemBytes = static_cast<size_t>(g.dynamic_smem_bytes);
  config.stream = stream;
  const cudaError_t e = cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel_), args);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw CudaError("launching kforge_kernel of " + label_ + " (" + std::to_string(g.blocks) + " blocks of " +
                    std::to_string(g.threads) + " threads, " + std::to_string(g.dynamic_smem_bytes) +
                    " bytes of dynamic shared memory) failed: " + cudaGetErrorString(e));
  }
}

}  // namespace kforge
