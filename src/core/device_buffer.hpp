// An owning device allocation (cudaMalloc/cudaFree): nothing leaks when a checked CUDA call throws.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>
#include <vector>

#include "core/cuda_check.hpp"

namespace kforge {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes) KF_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
  }
  template <typename T>
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size() * sizeof(T)) {
    if (!bytes_) return;
    KF_CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes_, cudaMemcpyHostToDevice));
    // From pageable memory cudaMemcpy may return once the data is staged, before the DMA lands, and kforge's
    // non-blocking streams do not wait for the legacy stream that carries it: wait here, so a kernel on any
    // stream sees the data.
    KF_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  }
  ~DeviceBuffer() { static_cast<void>(cudaFree(ptr_)); }  // a destructor must not throw
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  template <typename T>
  std::vector<T> download() const {
    std::vector<T> host(bytes_ / sizeof(T));
    if (!host.empty()) KF_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace kforge
