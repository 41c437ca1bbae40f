// Host side of the CUTLASS-composed dense kernels: ConvProblem -> CUTLASS arguments, can_implement as a refusal
// reason, and one registry Variant per instantiation (channels-last staging for every other layout).
#pragma once

#include <cuda_runtime_api.h>

#include <limits>
#include <string>

#include "core/device_arch.hpp"
#include "dense/channels_last.hpp"
#include "dense/sm90_conv_common.cuh"
#include "dispatch/registry.hpp"

namespace kforge::dense::sm90 {

inline ConvShape conv_shape(const ConvProblem& in) {
  // in: packed NDHWC x, KTRSC w, NDHWC y (a channels-last plan's inner problem). CUTLASS takes int extents.
  auto i32 = [](int64_t v) { return static_cast<int>(v); };
  return ConvShape(cutlass::conv::Mode::kCrossCorrelation,
                   {i32(in.N), i32(in.D), i32(in.H), i32(in.W), i32(in.C)},
                   {in.x_strides[0], in.x_strides[2], in.x_strides[3], in.x_strides[4], 1},
                   {i32(in.K), i32(in.T), i32(in.R), i32(in.S), i32(in.C)},
                   {in.w_strides[0], in.w_strides[2], in.w_strides[3], in.w_strides[4], 1},
                   {i32(in.pad_lo[0]), i32(in.pad_lo[1]), i32(in.pad_lo[2])},
                   {i32(in.pad_hi[0]), i32(in.pad_hi[1]), i32(in.pad_hi[2])},
                   {i32(in.stride[0]), i32(in.stride[1]), i32(in.stride[2])},
                   {i32(in.dilation[0]), i32(in.dilation[1]), i32(in.dilation[2])}, 1);
}

inline cutlass::KernelHardwareInfo hardware_info() {
  cutlass::KernelHardwareInfo hw;
  KF_CUDA_CHECK(cudaGetDevice(&hw.device_id));
  hw.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(hw.device_id);
  return hw;
}

// Placeholder device addresses for can_implement before any tensor exists: TMA-aligned, never dereferenced.
inline const Element* aligned_placeholder() { return reinterpret_cast<const Element*>(uintptr_t{1} << 20); }

// Initializes CUTLASS's device operator with `args` and runs it on `s`; a failure names the problem.
template <class Device>
void run_cutlass(const typename Device::Arguments& args, void* workspace, cudaStream_t s, const ConvProblem& p) {
  Device op;
  cutlass::Status st = op.initialize(args, workspace, s);
  if (st == cutlass::Status::kSuccess) st = op.run(s);
  KF_CHECK(st == cutlass::Status::kSuccess,
           std::string("CUTLASS kernel failed: ") + cutlassGetStatusString(st) + " for " + p.describe());
  KF_LAUNCH_CHECK();
}

// Registry glue shared by every instantiation: `arguments(inner, x, w, bias, y, hw)` builds Conv's arguments;
// `out`: the order its epilogue writes y in. accepts() runs without a GPU (CPU tests, `kforge list`), so it passes
// an empty hardware description.
template <class Conv, class MakeArguments>
Variant make_variant(std::string name, std::string idea, std::string source, OutputOrder out,
                     MakeArguments arguments) {
  auto accepts = [arguments, out](const ConvProblem& p) -> std::string {
    if (std::string why = bf16_sm90a_refusal(p); !why.empty()) return why;
    if (std::string why = channels_last_refusal(p); !why.empty()) return why;
    if (std::string why = output_order_refusal(p, out); !why.empty()) return why;
    const ChannelsLastPlan plan = plan_channels_last(p, out);
    const ConvProblem& in = plan.inner;
    constexpr int64_t int_max = std::numeric_limits<int>::max();
    for (int64_t v : {in.N, in.C, in.K, in.D, in.H, in.W, in.N * in.Do * in.Ho * in.Wo, in.C * in.T * in.R * in.S})
      if (v > int_max) return "an extent or the GEMM M/K exceeds int32 (CUTLASS conv extents are int)";
    for (int d = 0; d < 3; ++d)
      if (in.pad_lo[d] > int_max || in.pad_hi[d] > int_max || in.stride[d] > int_max || in.dilation[d] > int_max)
        return "a padding, stride or dilation exceeds int32 (CUTLASS conv parameters are int)";
    typename Conv::Device::Arguments args =
        arguments(in, aligned_placeholder(), aligned_placeholder(), p.has_bias ? aligned_placeholder() : nullptr,
                  const_cast<Element*>(aligned_placeholder()), cutlass::KernelHardwareInfo{});
    if (Conv::Device::can_implement(args) != cutlass::Status::kSuccess)
      return "CUTLASS can_implement refuses it (im2col TMA corner range, alignment or tile limits)";
    return "";
  };
  auto workspace = [arguments, out](const ConvProblem& p) -> size_t {
    const ChannelsLastPlan plan = plan_channels_last(p, out);
    const auto args = arguments(plan.inner, aligned_placeholder(), aligned_placeholder(), nullptr,
                                const_cast<Element*>(aligned_placeholder()), hardware_info());
    return plan.staging_bytes() + (Conv::Device::get_workspace_size(args) + 255) / 256 * 256;
  };
  auto launch = [arguments, out](const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
    const ChannelsLastPlan plan = plan_channels_last(p, out);
    const StagedArgs staged = stage_inputs(plan, p, a, a.workspace, s);
    auto args = arguments(plan.inner, staged.x, staged.w, staged.bias, staged.y, hardware_info());
    void* cutlass_ws = static_cast<char*>(a.workspace) + plan.staging_bytes();
    run_cutlass<typename Conv::Device>(args, cutlass_ws, s, p);
    finish_output(plan, p, staged, a.y, s);
  };
  return Variant{std::move(name), "dense", std::move(idea), accepts, launch, std::move(source), workspace};
}

}  // namespace kforge::dense::sm90
