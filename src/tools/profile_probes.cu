// The reference probes of `kforge profile --probe`: what memory-bound and compute-bound look like on this GPU.
#include "tools/profile_probes.hpp"

#include <algorithm>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "measure/gemm_bf16.hpp"

namespace kforge {
namespace {

constexpr size_t kCopyBytesMax = size_t{1} << 30;  // 1 GiB each way: 20x the H200's L2, so the copy streams DRAM
constexpr int kCopyThreads = 256;
constexpr int64_t kGemmSize = 8192;                // as the ceilings' bf16 GEMM

// Grid-stride copy of 16-byte vectors: one load and one store per element, nothing else.
__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

class CopyProbe final : public ProfileWorkload {
 public:
  explicit CopyProbe(cudaStream_t stream) {
    size_t free_bytes = 0, total_bytes = 0;
    KF_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // At most 1/8 of free memory per buffer: the probe never crowds out another process.
    n_ = static_cast<int64_t>(std::min(kCopyBytesMax, free_bytes / 8) / sizeof(uint4));
    if (n_ == 0) throw Error("profile probe copy: no free device memory");
    src_ = DeviceBuffer(static_cast<size_t>(n_) * sizeof(uint4));
    dst_ = DeviceBuffer(static_cast<size_t>(n_) * sizeof(uint4));
    KF_CUDA_CHECK(cudaMemsetAsync(src_.get(), 0, src_.bytes(), stream));
    int device = 0, sms = 0;
    KF_CUDA_CHECK(cudaGetDevice(&device));
    KF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    // Eight 256-thread CTAs per SM fill every warp slot of an sm_80/sm_90 SM; the grid stride covers the rest.
    blocks_ = static_cast<int>(std::min<int64_t>((n_ + kCopyThreads - 1) / kCopyThreads, int64_t{sms} * 8));
  }
  void launch(cudaStream_t stream) override {
    copy_kernel<<<blocks_, kCopyThreads, 0, stream>>>(src_.as<const uint4>(), dst_.as<uint4>(), n_);
    KF_LAUNCH_CHECK();
  }

 private:
  int64_t n_ = 0;
  int blocks_ = 0;
  DeviceBuffer src_, dst_;
};

class GemmProbe final : public ProfileWorkload {
 public:
  explicit GemmProbe(cudaStream_t stream) : gemm_(kGemmSize, stream) {}
  void launch(cudaStream_t stream) override { gemm_.run(stream); }

 private:
  GemmBf16 gemm_;
};

}  // namespace

std::unique_ptr<ProfileWorkload> make_copy_probe(cudaStream_t stream) { return std::make_unique<CopyProbe>(stream); }
std::unique_ptr<ProfileWorkload> make_gemm_probe(cudaStream_t stream) { return std::make_unique<GemmProbe>(stream); }

}  // namespace kforge
