// kforge::conv: validate -> choose a variant -> run.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "core/cuda_check.hpp"
#include "dispatch/registry.hpp"
#include "kforge/conv.hpp"

namespace kforge {
namespace {

// A device-accessible pointer aligned to its element size; null only where the tensor is empty.
void check_pointer(const TensorView& t, const char* name) {
  if (t.numel() == 0) return;
  if (t.data == nullptr) throw Error(std::string("expected ") + name + " to have a data pointer, but got null");
  const auto addr = reinterpret_cast<std::uintptr_t>(t.data);
  if (addr % dtype_size(t.dtype) != 0) {
    throw Error(std::string("expected ") + name + " data pointer to be aligned to " +
                std::to_string(dtype_size(t.dtype)) + " bytes (its element size), but got address " +
                std::to_string(addr));
  }
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, t.data);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls are not blamed
    throw Error(std::string("expected ") + name + " to be a CUDA device tensor, but its pointer could not be queried (" +
                cudaGetErrorString(err) + ")");
  }
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged) {
    throw Error(std::string("expected ") + name + " to be a CUDA device tensor, but got a " +
                (attr.type == cudaMemoryTypeHost ? "pinned host" : "host") + " pointer");
  }
}

// Negative strides and outputs whose elements overlap would make results depend on write order.
void check_strides(const TensorView& t, const char* name, bool is_output) {
  for (int i = 0; i < t.rank; ++i) {
    if (t.strides[i] < 0) throw Error(std::string("expected non-negative strides for ") + name + ", but got stride " + std::to_string(t.strides[i]) + " at dimension " + std::to_string(i));
  }
  if (!is_output || t.numel() == 0) return;
  // Non-overlapping: sorted by stride, each stride must be at least the span of the dimensions inside it.
  std::array<int, 5> order{0, 1, 2, 3, 4};
  std::sort(order.begin(), order.begin() + t.rank, [&](int a, int b) { return t.strides[a] < t.strides[b]; });
  int64_t span = 1;
  for (int i = 0; i < t.rank; ++i) {
    const int d = order[i];
    if (t.sizes[d] == 1) continue;
    if (t.strides[d] < span) throw Error(std::string("expected ") + name + " to have non-overlapping memory (outputs must not alias), but got strides that overlap");
    span = t.strides[d] * t.sizes[d];
  }
}

}  // namespace

std::string conv(const TensorView& x, const TensorView& w, const TensorView* bias, const TensorView& y,
                 const ConvParams& params, cudaStream_t stream, const ConvOptions& options) {
  const ConvProblem p = make_problem(x, w, bias, &y, params);
  check_strides(x, "input", false);
  check_strides(w, "weight", false);
  check_strides(y, "output", true);
  if (p.y_numel() == 0) return "none (empty output)";
  check_pointer(x, "input");
  check_pointer(w, "weight");
  if (bias) check_pointer(*bias, "bias");
  check_pointer(y, "output");

  const Variant* v = nullptr;
  if (!options.variant.empty()) {
    v = Registry::instance().find(options.variant);
    if (!v) throw Error("unknown kforge variant '" + options.variant + "' (kforge list shows them)");
    const std::string refusal = v->accepts(p);
    if (!refusal.empty()) throw UnsupportedError("variant " + v->name + " does not accept " + p.describe() + ": " + refusal);
  } else {
    v = &choose_variant(p);
  }
  ConvArgs args{x.data, w.data, bias ? bias->data : nullptr, y.data, nullptr};
  const size_t ws = v->workspace(p);
  if (ws) KF_CUDA_CHECK(cudaMallocAsync(&args.workspace, ws, stream));
  try {
    v->launch(p, args, stream);
  } catch (...) {
    if (ws) cudaFreeAsync(args.workspace, stream);
    throw;
  }
  if (ws) KF_CUDA_CHECK(cudaFreeAsync(args.workspace, stream));
  return v->name;
}

}  // namespace kforge
