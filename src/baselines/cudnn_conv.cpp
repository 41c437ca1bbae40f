// The comparison anchor: cuDNN 9's legacy cudnnConvolutionForward, run in-process, with the fastest algorithm
// found by cudnnFindConvolutionForwardAlgorithmEx on first use of each problem (PyTorch's cudnn.benchmark=True).
// Limits: dense NCDHW (filter KCTRS) or dense NDHWC (filter KTRSC) only, x/w/y in the same order; symmetric
// padding; bf16/f16/f32; every tensor below 2^31 elements (int32 descriptors). The first launch of a problem
// synchronizes (autotuning); later launches are asynchronous. Launches are serialized by one process-wide lock.
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/owned_handle.hpp"
#include "dispatch/registry.hpp"

namespace kforge {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
using Dims5 = std::array<int64_t, 5>;

// A memory order of rank-5 tensors (dimensions outermost first) and the filter format cuDNN calls it.
struct MemoryFormat {
  std::array<int, 5> order;
  cudnnTensorFormat_t filter_format;
};
constexpr MemoryFormat kChannelsFirst{{0, 1, 2, 3, 4}, CUDNN_TENSOR_NCHW};  // NCDHW, filter KCTRS
constexpr MemoryFormat kChannelsLast{{0, 2, 3, 4, 1}, CUDNN_TENSOR_NHWC};   // NDHWC, filter KTRSC

[[noreturn]] void throw_cudnn(cudnnStatus_t status, const char* call, const ConvProblem& p) {
  char detail[512] = {};
  cudnnGetLastErrorString(detail, sizeof(detail));
  std::string msg = std::string("cuDNN ") + call + " failed with " + cudnnGetErrorString(status);
  if (detail[0] != '\0') msg += std::string(" (") + detail + ")";
  throw Error(msg + " for " + p.describe());
}

#define KF_CUDNN_CHECK(expr, problem)                                               \
  do {                                                                              \
    const cudnnStatus_t kf_status_ = (expr);                                        \
    if (kf_status_ != CUDNN_STATUS_SUCCESS) throw_cudnn(kf_status_, #expr, problem); \
  } while (0)

using TensorDesc = OwnedHandle<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>;
using FilterDesc = OwnedHandle<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor>;
using ConvDesc = OwnedHandle<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor>;

Dims5 x_dims(const ConvProblem& p) { return {p.N, p.C, p.D, p.H, p.W}; }
Dims5 w_dims(const ConvProblem& p) { return {p.K, p.channels_per_group(), p.T, p.R, p.S}; }
Dims5 y_dims(const ConvProblem& p) { return {p.N, p.K, p.Do, p.Ho, p.Wo}; }

// Dense strides of `dims` laid out in `order` (outermost first).
Dims5 packed_strides(const Dims5& dims, const std::array<int, 5>& order) {
  Dims5 strides{};
  int64_t stride = 1;
  for (int i = 4; i >= 0; --i) {
    strides[order[i]] = stride;
    stride *= dims[order[i]];
  }
  return strides;
}

// True when `strides` are the dense strides of `dims` in `order`; a unit dimension may carry any stride.
bool is_packed(const Dims5& strides, const Dims5& dims, const std::array<int, 5>& order) {
  const Dims5 expect = packed_strides(dims, order);
  for (int i = 0; i < 5; ++i)
    if (dims[i] != 1 && strides[i] != expect[i]) return false;
  return true;
}

bool all_packed(const ConvProblem& p, const std::array<int, 5>& order) {
  return is_packed(p.x_strides, x_dims(p), order) && is_packed(p.w_strides, w_dims(p), order) &&
         is_packed(p.y_strides, y_dims(p), order);
}

template <size_t n>
std::string list_str(const std::array<int64_t, n>& v) {
  std::string s = "(";
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

// The memory format cuDNN is told about: channels-first when it describes all three tensors (checked first,
// so tensors that are both, e.g. C = 1, stay NCHW), else channels-last; null when neither fits.
const MemoryFormat* memory_format(const ConvProblem& p) {
  if (all_packed(p, kChannelsFirst.order)) return &kChannelsFirst;
  if (all_packed(p, kChannelsLast.order)) return &kChannelsLast;
  return nullptr;
}

std::string cudnn_accepts(const ConvProblem& p) {
  if (p.dtype == DType::fp8_e4m3)
    return "cuDNN's legacy convolution API has no fp8 e4m3 forward; the anchor runs bf16, f16 and f32 only";
  if (p.pad_lo != p.pad_hi) {
    return "cuDNN supports only symmetric padding, but got asymmetric padding: pad_lo " + list_str(p.pad_lo) +
           " != pad_hi " + list_str(p.pad_hi);
  }
  if (p.y_numel() == 0) return "";  // nothing to compute: launch returns at once
  if (p.x_numel() == 0) return "cuDNN descriptors need positive sizes, but the input has a zero-size dimension";
  if (!memory_format(p)) {
    return std::string("cuDNN's anchor needs x, w, y all dense NCDHW (w KCTRS) or all dense NDHWC (w KTRSC), but got x ") +
           layout_name(p.x_layout()) + ", y " + layout_name(p.y_layout()) + ", w strides " + list_str(p.w_strides);
  }
  // Packed tensors: every size and stride is at most the element count, so checking the count covers them.
  const std::pair<const char*, int64_t> counts[] = {{"x", p.x_numel()}, {"w", p.w_numel()}, {"y", p.y_numel()}};
  for (const auto& [name, numel] : counts) {
    if (numel > kInt32Max) {
      return std::string("cuDNN descriptors take int32 sizes and strides, but ") + name + " has " +
             std::to_string(numel) + " elements (> 2^31 - 1); splitting is not implemented";
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (p.pad_lo[i] > kInt32Max || p.stride[i] > kInt32Max || p.dilation[i] > kInt32Max)
      return "cuDNN descriptors take int32 padding, stride and dilation, but a value exceeds 2^31 - 1";
  }
  return "";
}

cudnnDataType_t cudnn_dtype(DType t) {
  switch (t) {
    case DType::f32: return CUDNN_DATA_FLOAT;
    case DType::bf16: return CUDNN_DATA_BFLOAT16;
    case DType::f16: return CUDNN_DATA_HALF;
    case DType::fp8_e4m3: break;
  }
  throw Error(std::string("cudnn: unsupported dtype ") + dtype_name(t));
}

std::array<int, 5> to_int(const Dims5& v) {
  std::array<int, 5> out{};
  for (int i = 0; i < 5; ++i) out[i] = static_cast<int>(v[i]);  // accepts() bounded every value by INT32_MAX
  return out;
}

std::array<int, 3> to_int(const std::array<int64_t, 3>& v) {
  return {static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2])};
}

// Descriptors and the chosen algorithm of one problem: built and autotuned once, reused by every launch.
struct Plan {
  TensorDesc x, y, bias;
  FilterDesc w;
  ConvDesc conv;
  cudnnConvolutionFwdAlgo_t algo{};
  size_t workspace_bytes = 0;
};

TensorDesc make_tensor(const ConvProblem& p, const Dims5& dims, const Dims5& strides) {
  cudnnTensorDescriptor_t raw = nullptr;
  KF_CUDNN_CHECK(cudnnCreateTensorDescriptor(&raw), p);
  TensorDesc desc(raw);
  const auto d = to_int(dims), s = to_int(strides);
  KF_CUDNN_CHECK(cudnnSetTensorNdDescriptor(desc.get(), cudnn_dtype(p.dtype), 5, d.data(), s.data()), p);
  return desc;
}

// Descriptors only (no algorithm yet). Strides are the packed strides of the chosen order: they equal the
// problem's strides on every non-unit dimension, and give unit dimensions the canonical value cuDNN expects.
std::unique_ptr<Plan> describe_problem(const ConvProblem& p) {
  const MemoryFormat& format = *memory_format(p);
  auto plan = std::make_unique<Plan>();
  plan->x = make_tensor(p, x_dims(p), packed_strides(x_dims(p), format.order));
  plan->y = make_tensor(p, y_dims(p), packed_strides(y_dims(p), format.order));
  plan->bias = make_tensor(p, {1, p.K, 1, 1, 1}, {p.K, 1, 1, 1, 1});

  cudnnFilterDescriptor_t raw_w = nullptr;
  KF_CUDNN_CHECK(cudnnCreateFilterDescriptor(&raw_w), p);
  plan->w.reset(raw_w);
  const auto wd = to_int(w_dims(p));
  KF_CUDNN_CHECK(cudnnSetFilterNdDescriptor(plan->w.get(), cudnn_dtype(p.dtype), format.filter_format, 5, wd.data()), p);

  cudnnConvolutionDescriptor_t raw_conv = nullptr;
  KF_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&raw_conv), p);
  plan->conv.reset(raw_conv);
  const auto pad = to_int(p.pad_lo), stride = to_int(p.stride), dilation = to_int(p.dilation);
  KF_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(plan->conv.get(), 3, pad.data(), stride.data(), dilation.data(),
                                                 CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                 p);
  KF_CUDNN_CHECK(cudnnSetConvolutionGroupCount(plan->conv.get(), static_cast<int>(p.groups)), p);
  // Half types: tensor cores. f32: CUDNN_DEFAULT_MATH, which permits TF32 on sm_80+, as PyTorch does by
  // default (torch.backends.cudnn.allow_tf32 = True); ALLOW_CONVERSION could down-convert f32 to f16.
  const cudnnMathType_t math = p.dtype == DType::f32 ? CUDNN_DEFAULT_MATH : CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
  KF_CUDNN_CHECK(cudnnSetConvolutionMathType(plan->conv.get(), math), p);

  std::array<int, 5> out{};
  KF_CUDNN_CHECK(cudnnGetConvolutionNdForwardOutputDim(plan->conv.get(), plan->x.get(), plan->w.get(), 5, out.data()), p);
  KF_CHECK(out == to_int(y_dims(p)), "cuDNN output dims " + list_str(Dims5{out[0], out[1], out[2], out[3], out[4]}) +
                                         " differ from the problem's " + list_str(y_dims(p)) + " for " + p.describe());
  return plan;
}

// Times every algorithm on the caller's buffers (y is overwritten) and keeps the fastest that succeeded.
void choose_algorithm(cudnnHandle_t handle, const ConvProblem& p, const ConvArgs& a, Plan& plan) {
  int algo_count = 0;
  KF_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &algo_count), p);
  // Offer the largest workspace any algorithm asks for, capped at half the free memory.
  size_t offered = 0;
  for (int i = 0; i < algo_count; ++i) {
    size_t bytes = 0;
    const cudnnStatus_t s = cudnnGetConvolutionForwardWorkspaceSize(
        handle, plan.x.get(), plan.w.get(), plan.conv.get(), plan.y.get(), static_cast<cudnnConvolutionFwdAlgo_t>(i),
        &bytes);
    if (s == CUDNN_STATUS_SUCCESS) offered = std::max(offered, bytes);  // unsupported algorithms report errors
  }
  size_t free_bytes = 0, total_bytes = 0;
  KF_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  offered = std::min(offered, free_bytes / 2);
  const DeviceBuffer find_workspace(offered);

  std::vector<cudnnConvolutionFwdAlgoPerf_t> results(static_cast<size_t>(algo_count));
  int returned = 0;
  KF_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(handle, plan.x.get(), a.x, plan.w.get(), a.w, plan.conv.get(),
                                                        plan.y.get(), a.y, algo_count, &returned, results.data(),
                                                        find_workspace.get(), offered),
                 p);
  for (int i = 0; i < returned; ++i) {  // sorted fastest first
    const cudnnConvolutionFwdAlgoPerf_t& r = results[static_cast<size_t>(i)];
    if (r.status != CUDNN_STATUS_SUCCESS || r.memory > offered) continue;
    plan.algo = r.algo;
    plan.workspace_bytes = r.memory;
    // The timing was taken with this math type; running with another could pick a different kernel.
    KF_CUDNN_CHECK(cudnnSetConvolutionMathType(plan.conv.get(), r.mathType), p);
    return;
  }
  throw Error("cuDNN found no working forward algorithm (" + std::to_string(returned) + " tried) for " + p.describe());
}

// Per device: one handle, one workspace that only grows, the plans of every problem seen. Never destroyed:
// cuDNN and the CUDA runtime may already be torn down when static destructors run.
struct DeviceState {
  cudnnHandle_t handle = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  std::map<std::string, std::unique_ptr<Plan>> plans;  // by ConvProblem::key() and filter order
};

std::mutex& state_mutex() {
  static std::mutex mu;
  return mu;
}

DeviceState& state_for_current_device(const ConvProblem& p) {
  static auto* states = new std::map<int, DeviceState>;
  int device = 0;
  KF_CUDA_CHECK(cudaGetDevice(&device));
  DeviceState& st = (*states)[device];
  if (!st.handle) KF_CUDNN_CHECK(cudnnCreate(&st.handle), p);
  return st;
}

void ensure_workspace(DeviceState& st, size_t bytes) {
  if (bytes <= st.workspace_bytes) return;
  // cudaFree waits for the whole device, so no launch still in flight can be using the old buffer.
  KF_CUDA_CHECK(cudaFree(st.workspace));
  st.workspace = nullptr;
  st.workspace_bytes = 0;
  KF_CUDA_CHECK(cudaMalloc(&st.workspace, bytes));
  st.workspace_bytes = bytes;
}

void cudnn_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t stream) {
  if (const std::string why = cudnn_accepts(p); !why.empty())
    throw Error("cudnn: cannot run " + p.describe() + ": " + why);
  if (p.y_numel() == 0) return;
  // One lock around the whole enqueue: the handle's stream and the shared workspace belong to this launch
  // until its work is queued.
  std::lock_guard<std::mutex> lock(state_mutex());
  DeviceState& st = state_for_current_device(p);
  KF_CUDNN_CHECK(cudnnSetStream(st.handle, stream), p);
  // The filter format joins the key: when x is both NCDHW and NDHWC (C = 1, or 1x1x1 input), the problem key
  // does not say which order w has.
  const char* filter_order = memory_format(p) == &kChannelsLast ? " cudnn-filter:ktrsc" : " cudnn-filter:kctrs";
  std::unique_ptr<Plan>& plan = st.plans[p.key() + filter_order];
  if (!plan) {
    auto fresh = describe_problem(p);
    choose_algorithm(st.handle, p, a, *fresh);
    plan = std::move(fresh);
  }
  ensure_workspace(st, plan->workspace_bytes);
  const float one = 1.0f, zero = 0.0f;  // scaling factors are float for f32, f16 and bf16 tensors
  KF_CUDNN_CHECK(cudnnConvolutionForward(st.handle, &one, plan->x.get(), a.x, plan->w.get(), a.w, plan->conv.get(),
                                         plan->algo, st.workspace, plan->workspace_bytes, &zero, plan->y.get(), a.y),
                 p);
  if (p.has_bias) {
    KF_CUDNN_CHECK(cudnnAddTensor(st.handle, &one, plan->bias.get(), a.bias, &one, plan->y.get(), a.y), p);
  }
}

}  // namespace

void register_baseline_variants(Registry& r) {
  Variant v;
  v.name = "cudnn";
  v.family = "baseline";
  v.idea =
      "the anchor: cuDNN 9 cudnnConvolutionForward with the fastest algorithm from "
      "cudnnFindConvolutionForwardAlgorithmEx (PyTorch's cudnn.benchmark=True); bias by a separate cudnnAddTensor";
  v.accepts = cudnn_accepts;
  v.launch = cudnn_launch;
  v.library = false;
  r.add(std::move(v));
}

}  // namespace kforge
