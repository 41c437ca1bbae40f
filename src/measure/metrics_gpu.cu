// Correctness metrics on the device: a grid-stride reduction of ErrorSums finished on the host, and a bitwise
// buffer comparison. Limits: the block count depends only on n, so the result is deterministic for a given n
// on any GPU; both calls synchronize their stream.
#include <algorithm>
#include <utility>
#include <vector>

#include "core/cuda_check.hpp"
#include "measure/error_sums.hpp"
#include "measure/metrics.hpp"
#include "reference/device_decode.cuh"

namespace kforge {
namespace {

using metrics_detail::ErrorSums;

constexpr int kReduceThreads = 256;
constexpr int kWarps = kReduceThreads / 32;
constexpr int64_t kMaxReduceBlocks = 1024;

unsigned reduce_blocks(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kReduceThreads - 1) / kReduceThreads, 1, kMaxReduceBlocks));
}

// A stream-ordered scratch allocation freed on every path. The normal path frees through release() so the
// error is checked; the destructor only runs on the error path, where it must not throw.
class ScratchBuffer {
 public:
  ScratchBuffer(size_t bytes, cudaStream_t stream) : stream_(stream) {
    KF_CUDA_CHECK(cudaMallocAsync(&ptr_, bytes, stream));
  }
  ~ScratchBuffer() {
    if (ptr_ != nullptr) static_cast<void>(cudaFreeAsync(ptr_, stream_));
  }
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  void release() { KF_CUDA_CHECK(cudaFreeAsync(std::exchange(ptr_, nullptr), stream_)); }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

__device__ ErrorSums shuffle_down(const ErrorSums& s, int offset) {
  constexpr unsigned kAll = 0xffffffffu;
  ErrorSums o;
  o.xy = __shfl_down_sync(kAll, s.xy, offset);
  o.xx = __shfl_down_sync(kAll, s.xx, offset);
  o.yy = __shfl_down_sync(kAll, s.yy, offset);
  o.dd = __shfl_down_sync(kAll, s.dd, offset);
  o.max_abs = __shfl_down_sync(kAll, s.max_abs, offset);
  o.nan_count = __shfl_down_sync(kAll, s.nan_count, offset);
  o.inf_count = __shfl_down_sync(kAll, s.inf_count, offset);
  return o;
}

// One ErrorSums per block into partials[blockIdx.x]; the fixed tree order makes the sums reproducible.
template <typename Elem, typename Ref>
__global__ void __launch_bounds__(kReduceThreads)
    error_sums_kernel(const Elem* __restrict__ out, const Ref* __restrict__ ref, int64_t n,
                      ErrorSums* __restrict__ partials) {
  const reference_detail::DeviceDecode decode;
  ErrorSums sums;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    sums.add(decode(out[i]), decode(ref[i]));
  }
  for (int offset = 16; offset > 0; offset /= 2) sums.merge(shuffle_down(sums, offset));

  __shared__ ErrorSums warp_sums[kWarps];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_sums[warp] = sums;
  __syncthreads();
  if (threadIdx.x == 0) {
    ErrorSums block = warp_sums[0];
    for (int w = 1; w < kWarps; ++w) block.merge(warp_sums[w]);
    partials[blockIdx.x] = block;
  }
}

template <typename Elem, typename Ref>
void launch_error_sums(const void* out, const void* ref, int64_t n, ErrorSums* partials, unsigned blocks,
                       cudaStream_t stream) {
  error_sums_kernel<Elem, Ref><<<blocks, kReduceThreads, 0, stream>>>(static_cast<const Elem*>(out),
                                                                       static_cast<const Ref*>(ref), n, partials);
  KF_LAUNCH_CHECK();
}

// The reference is double (compare_device) or of the output's own type (compare_outputs_device).
template <typename Elem>
void launch_error_sums(bool ref_is_elem, const void* out, const void* ref, int64_t n, ErrorSums* partials,
                       unsigned blocks, cudaStream_t stream) {
  if (ref_is_elem) launch_error_sums<Elem, Elem>(out, ref, n, partials, blocks, stream);
  else launch_error_sums<Elem, double>(out, ref, n, partials, blocks, stream);
}

ErrorStats error_stats(const char* caller, const void* out, DType dtype, const void* ref, bool ref_is_elem, int64_t n,
                       cudaStream_t stream) {
  if (n < 0) throw Error(std::string(caller) + ": expected a non-negative element count, but got " + std::to_string(n));
  if (n == 0) return metrics_detail::finish(ErrorSums{}, 0);
  if (out == nullptr || ref == nullptr) throw Error(std::string(caller) + ": expected non-null out and ref pointers");

  const unsigned blocks = reduce_blocks(n);
  ScratchBuffer partials(blocks * sizeof(ErrorSums), stream);
  ErrorSums* p = partials.as<ErrorSums>();
  switch (dtype) {
    case DType::f32: launch_error_sums<float>(ref_is_elem, out, ref, n, p, blocks, stream); break;
    case DType::bf16: launch_error_sums<__nv_bfloat16>(ref_is_elem, out, ref, n, p, blocks, stream); break;
    case DType::f16: launch_error_sums<__half>(ref_is_elem, out, ref, n, p, blocks, stream); break;
    case DType::fp8_e4m3: launch_error_sums<__nv_fp8_e4m3>(ref_is_elem, out, ref, n, p, blocks, stream); break;
    default: throw Error(std::string(caller) + ": unknown dtype " + std::to_string(static_cast<int>(dtype)));
  }
  std::vector<ErrorSums> host(blocks);
  KF_CUDA_CHECK(cudaMemcpyAsync(host.data(), p, blocks * sizeof(ErrorSums), cudaMemcpyDeviceToHost, stream));
  partials.release();
  KF_CUDA_CHECK(cudaStreamSynchronize(stream));

  ErrorSums total;
  for (const ErrorSums& block : host) total.merge(block);
  return metrics_detail::finish(total, n);
}

// Sets *differs when any byte differs. 16-byte loads when both buffers allow them, bytes for the rest.
__global__ void bitwise_diff_kernel(const unsigned char* __restrict__ a, const unsigned char* __restrict__ b,
                                    size_t bytes, bool vector_loads, unsigned* differs) {
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t vectors = vector_loads ? bytes / sizeof(uint4) : 0;
  bool same = true;
  for (size_t i = first; i < vectors; i += step) {
    const uint4 va = reinterpret_cast<const uint4*>(a)[i];
    const uint4 vb = reinterpret_cast<const uint4*>(b)[i];
    same &= va.x == vb.x && va.y == vb.y && va.z == vb.z && va.w == vb.w;
  }
  for (size_t i = vectors * sizeof(uint4) + first; i < bytes; i += step) same &= a[i] == b[i];
  if (!same) *differs = 1u;  // every writer stores the same value, so the race is benign
}

}  // namespace

ErrorStats compare_device(const void* out, DType dtype, const double* ref, int64_t n, cudaStream_t stream) {
  return error_stats("compare_device", out, dtype, ref, /*ref_is_elem=*/false, n, stream);
}

ErrorStats compare_outputs_device(const void* out, const void* ref, DType dtype, int64_t n, cudaStream_t stream) {
  return error_stats("compare_outputs_device", out, dtype, ref, /*ref_is_elem=*/true, n, stream);
}

bool bitwise_equal_device(const void* a, const void* b, size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return true;
  if (a == nullptr || b == nullptr) throw Error("bitwise_equal_device: expected non-null device pointers");

  ScratchBuffer differs(sizeof(unsigned), stream);
  KF_CUDA_CHECK(cudaMemsetAsync(differs.as<unsigned>(), 0, sizeof(unsigned), stream));
  const bool vector_loads =
      reinterpret_cast<uintptr_t>(a) % sizeof(uint4) == 0 && reinterpret_cast<uintptr_t>(b) % sizeof(uint4) == 0;
  const size_t per_block = kReduceThreads * (vector_loads ? sizeof(uint4) : 1);
  const auto blocks = static_cast<unsigned>(std::clamp<size_t>((bytes + per_block - 1) / per_block, 1, 4096));
  bitwise_diff_kernel<<<blocks, kReduceThreads, 0, stream>>>(static_cast<const unsigned char*>(a),
                                                             static_cast<const unsigned char*>(b), bytes,
                                                             vector_loads, differs.as<unsigned>());
  KF_LAUNCH_CHECK();
  unsigned host_differs = 0;
  KF_CUDA_CHECK(cudaMemcpyAsync(&host_differs, differs.as<unsigned>(), sizeof(unsigned), cudaMemcpyDeviceToHost,
                                stream));
  differs.release();
  KF_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host_differs == 0;
}

}  // namespace kforge
