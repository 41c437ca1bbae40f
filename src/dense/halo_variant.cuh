// Host side of the halo-row kernel (halo_conv.cuh): which problems it takes, the TMA maps of x and w, the launch,
// and the registry entry of one instantiation (BN output channels per tile).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_arch.hpp"
#include "core/tensor_map.hpp"
#include "dense/channels_last.hpp"
#include "dense/halo_conv.cuh"
#include "dispatch/registry.hpp"

namespace kforge::dense::halo {

// "" when the halo kernel computes p (through the channels-last plan), else why not.
inline std::string halo_refusal(const ConvProblem& p) {
  if (std::string why = bf16_sm90a_refusal(p); !why.empty()) return why;
  if (std::string why = channels_last_refusal(p); !why.empty()) return why;
  if (p.stride[2] != 1) return "stride 1 along W only (got " + std::to_string(p.stride[2]) + "): a tile's output pixels "
                               "must read consecutive input pixels";
  if (p.S > kMaxS) return "at most " + std::to_string(kMaxS) + " filter taps along W (got " + std::to_string(p.S) + ")";
  if (kTileM + (p.S - 1) * p.dilation[2] > kHaloPixels)
    return "the halo of 256 pixels plus (S-1) * dilation along W exceeds " + std::to_string(kHaloPixels) + " pixels";
  // Every extent, padding and coordinate the kernel forms fits an int with room for a tile's reach past it.
  constexpr int64_t limit = int64_t{1} << 30;
  for (int64_t v : {p.N, p.C, p.K, p.D, p.H, p.W, p.Do, p.Ho, p.Wo, p.T, p.R})
    if (v >= limit) return "an extent reaches 2^30 (the kernel's tile coordinates are int)";
  for (int d = 0; d < 3; ++d)
    if (p.pad_lo[d] >= limit || p.stride[d] >= limit || p.dilation[d] >= limit)
      return "a padding, stride or dilation reaches 2^30 (the kernel's tile coordinates are int)";
  return "";
}

template <int BN, int kCluster, int kPlaneBlock>
void halo_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  const ChannelsLastPlan plan = plan_channels_last(p, OutputOrder::ndhwc);
  const StagedArgs staged = stage_inputs(plan, p, a, a.workspace, s);
  const ConvProblem& in = plan.inner;  // packed NDHWC x (C % 8 == 0), KTRSC w, NDHWC y
  auto u64 = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto bytes = [](int64_t elements) { return static_cast<uint64_t>(elements) * 2; };
  // x as (C, W, H, D, N): a box is 32 channels of kBoxPixels pixels of one input row.
  const CUtensorMap x_map = tiled_map_16bit<5>(
      staged.x, {u64(in.C), u64(in.W), u64(in.H), u64(in.D), u64(in.N)},
      {bytes(in.x_strides[4]), bytes(in.x_strides[3]), bytes(in.x_strides[2]), bytes(in.x_strides[0])},
      {kChunk, kBoxPixels, 1, 1, 1}, kTmaSwizzle);
  // w as (C, K, S, R, T): a box is the S taps of one filter row, BN output channels by 32 input channels each.
  const CUtensorMap w_map = tiled_map_16bit<5>(
      staged.w, {u64(in.C), u64(in.K), u64(in.S), u64(in.R), u64(in.T)},
      {bytes(in.w_strides[0]), bytes(in.w_strides[4]), bytes(in.w_strides[3]), bytes(in.w_strides[2])},
      {kChunk, BN, static_cast<uint32_t>(in.S), 1, 1}, kTmaSwizzle);

  auto i32 = [](int64_t v) { return static_cast<int>(v); };
  HaloParams hp{};
  hp.D = i32(in.D), hp.H = i32(in.H), hp.C = i32(in.C), hp.K = i32(in.K);
  hp.T = i32(in.T), hp.R = i32(in.R), hp.S = i32(in.S), hp.Do = i32(in.Do), hp.Ho = i32(in.Ho), hp.Wo = i32(in.Wo);
  hp.stride_d = i32(in.stride[0]), hp.stride_h = i32(in.stride[1]);
  hp.pad_d = i32(in.pad_lo[0]), hp.pad_h = i32(in.pad_lo[1]), hp.pad_w = i32(in.pad_lo[2]);
  hp.dil_d = i32(in.dilation[0]), hp.dil_h = i32(in.dilation[1]), hp.dil_w = i32(in.dilation[2]);
  hp.k_tiles = i32((in.K + BN - 1) / BN);
  hp.w_tiles = i32((in.Wo + kTileM - 1) / kTileM);
  hp.plane_block = i32(std::min<int64_t>(kPlaneBlock, in.Do));
  const int64_t row_groups = (in.Ho + kCluster - 1) / kCluster;
  hp.num_tiles = int64_t{hp.k_tiles} * hp.w_tiles * row_groups * in.Do * in.N;
  hp.y_n = in.y_strides[0], hp.y_d = in.y_strides[2], hp.y_h = in.y_strides[3], hp.y_w = in.y_strides[4];
  hp.y = static_cast<__nv_bfloat16*>(staged.y);
  hp.bias = static_cast<const __nv_bfloat16*>(staged.bias);
  hp.silu = p.activation == Activation::silu;

  const int64_t clusters = std::min<int64_t>(hp.num_tiles, current_sm_count() / kCluster);
  if (clusters > 0) {
    auto* kernel = in.S == 1   ? halo_conv_kernel<BN, 1, kCluster>
                   : in.S == 2 ? halo_conv_kernel<BN, 2, kCluster>
                               : halo_conv_kernel<BN, 3, kCluster>;
    constexpr int smem = Tile<BN>::kSmemBytes;
    KF_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));  // per device
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(clusters * kCluster));
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = smem;
    config.stream = s;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = kCluster, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    KF_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, x_map, w_map, hp));
  }
  finish_output(plan, p, staged, a.y, s);
}

// kPlaneBlock: output planes walked per tile column (decode_tile; 1: row groups first, as v26-v29).
template <int BN, int kCluster, int kPlaneBlock = 1>
Variant halo_variant(std::string name, std::string idea, std::string source) {
  Variant v{std::move(name), "dense", std::move(idea), halo_refusal, halo_launch<BN, kCluster, kPlaneBlock>,
            std::move(source),
            [](const ConvProblem& p) { return plan_channels_last(p, OutputOrder::ndhwc).staging_bytes(); }};
  v.fuses_activation = true;
  return v;
}

}  // namespace kforge::dense::halo
