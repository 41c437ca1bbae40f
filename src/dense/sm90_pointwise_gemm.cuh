// The pointwise-conv GEMM kernels (pointwise_gemm.hpp for the geometry): CUTLASS 4.2's persistent, warp-specialized
// sm90 GEMM (TMA producer, two cooperative consumer warpgroups on wgmma, TMA-store epilogue with the bias fused),
// on the caller's tensors as they are. Where the implicit-GEMM kernels stage x and y of a channels-first problem
// (2|x| + 2|y| bytes: c512_k111 0.46 ms of which ~0.12 is staging), this GEMM reads x's channel rows N-major
// (wgmma transposes 16-bit B in shared memory) and writes y's rows in place.
#pragma once

// First: cute and the shared element types, before the CUTLASS builders.
#include "dense/sm90_conv_common.cuh"
#include "dense/sm90_conv_runner.cuh"

// The sm90 builder and collective only: collective_builder.hpp drags in every architecture's collectives (and their
// deprecation warnings).
#include <cutlass/gemm/collective/collective_builder_decl.hpp>
#include <cutlass/gemm/collective/collective_mma_decl.hpp>
#include <cutlass/gemm/collective/builders/sm90_gmma_builder.inl>
#include <cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <type_traits>

#include "dense/pointwise_gemm.hpp"

namespace kforge::dense::sm90 {

// `ClusterShape`: 2x1 multicasts B (x in NCDHW) to the CTA pair on neighbouring M tiles, 1x2 multicasts A (x in
// NDHWC) to the pair on neighbouring N tiles. `kStoreStages`: the epilogue's TMA stores in flight per CTA.
// `Schedule`: cooperative (two consumer warpgroups split each tile's M) or ping-pong (each owns a whole tile).
// `kEpilogueN`: the epilogue sub-tile's width (32: CUTLASS's choice; 64 halves the sub-tile rounds per tile).
// `Math`: what the epilogue computes per output (sm90_conv_common.cuh).
template <class TileShape, ChannelOrder kOrder, class ClusterShape_ = cute::Shape<cute::_1, cute::_1, cute::_1>,
          int kStoreStages = 2, class Schedule_ = cutlass::gemm::KernelTmaWarpSpecializedCooperative,
          int kEpilogueN = 32, EpilogueMath Math = EpilogueMath::linear_combination>
struct PointwiseGemmKernel {
  static constexpr ChannelOrder kChannels = kOrder;
  static constexpr bool kFirst = kOrder == ChannelOrder::first;
  using LayoutA = cutlass::layout::RowMajor;  // K-major: w's rows (channels first) or x's voxels (channels last)
  // CUTLASS's B is K x N: row-major is N-major (x's channel rows), column-major K-major (w's rows).
  using LayoutB = std::conditional_t<kFirst, cutlass::layout::RowMajor, cutlass::layout::ColumnMajor>;
  using LayoutD = cutlass::layout::RowMajor;
  // The bias runs along the output channels: GEMM rows (channels first) or columns (channels last).
  using Bias = EpilogueFusion<Math, TileShape, kFirst>;
  using ClusterShape = ClusterShape_;
  using Schedule = Schedule_;
  static constexpr bool kCooperative = std::is_same_v<Schedule, cutlass::gemm::KernelTmaWarpSpecializedCooperative>;
  // What CUTLASS's epilogue builder picks with no source C (sub-tiles 128 rows tall across the cooperative pair, 64
  // for one ping-pong warpgroup, 32 wide; stores issued one sub-tile late), but with kStoreStages sub-tiles in
  // flight where the builder fixes 2 and kEpilogueN wide; its implementation struct is the one place that takes
  // the policy from outside.
  static constexpr int kEpilogueThreads = kCooperative ? 256 : 128;
  using EpilogueTile = cute::Shape<cute::Int<kEpilogueThreads / 2>, cute::Int<kEpilogueN>>;
  using EpiloguePolicy = cutlass::epilogue::Sm90TmaWarpSpecialized<
      4, kStoreStages, int(cute::size(EpilogueTile{})) / kEpilogueThreads, false, true>;
  using Epilogue = typename cutlass::epilogue::collective::detail::Sm90TmaBuilderImpl<
      TileShape, EpilogueTile, Accumulator, Accumulator, void, LayoutD, kAlignment, Element, LayoutD, kAlignment, Bias,
      EpiloguePolicy>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, LayoutA, kAlignment, Element, LayoutB, kAlignment,
      Accumulator, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      Schedule>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue,
                                                      cutlass::gemm::PersistentScheduler>;
  using Device = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
};

template <class Gemm>
typename Gemm::Device::Arguments pointwise_arguments(const PointwiseGemm& g, const void* x, const void* w,
                                                     const void* bias, void* y, const cutlass::KernelHardwareInfo& hw) {
  using Kernel = typename Gemm::Kernel;
  const auto* a = static_cast<const Element*>(g.a_is_x ? x : w);
  const auto* b = static_cast<const Element*>(g.a_is_x ? w : x);
  typename Kernel::StrideA da = cute::make_stride(g.a.ld, cute::_1{}, g.a.batch);
  typename Kernel::StrideB db{};
  if constexpr (Gemm::kFirst) {
    db = cute::make_stride(cute::_1{}, g.b.ld, g.b.batch);
  } else {
    db = cute::make_stride(g.b.ld, cute::_1{}, g.b.batch);
  }
  typename Kernel::EpilogueArguments epi{};
  epi.dD = cute::make_stride(g.d.ld, cute::_1{}, g.d.batch);
  epi.dC = epi.dD;
  epi.ptr_D = static_cast<Element*>(y);
  epi.thread.bias_ptr = static_cast<const Element*>(bias);
  epi.thread.activation.enabled = g.silu;
  const cute::Shape<int, int, int, int> mnkl{int(g.m), int(g.n), int(g.k), int(g.batch)};
  return {cutlass::gemm::GemmUniversalMode::kGemm, mnkl, {a, da, b, db}, epi, hw};
}

// The registry entry: accepts = bf16 on sm_90a + the GEMM view's limits + CUTLASS's can_implement; no workspace
// beyond CUTLASS's own (nothing is staged).
template <class Gemm>
Variant pointwise_variant(std::string name, std::string idea, std::string source) {
  constexpr ChannelOrder order = Gemm::kChannels;
  auto accepts = [](const ConvProblem& p) -> std::string {
    if (std::string why = bf16_sm90a_refusal(p); !why.empty()) return why;
    if (std::string why = pointwise_gemm_refusal(p, order); !why.empty()) return why;
    const auto args = pointwise_arguments<Gemm>(pointwise_gemm(p, order), aligned_placeholder(), aligned_placeholder(),
                                                p.has_bias ? aligned_placeholder() : nullptr,
                                                const_cast<Element*>(aligned_placeholder()), cutlass::KernelHardwareInfo{});
    if (Gemm::Device::can_implement(args) != cutlass::Status::kSuccess)
      return "CUTLASS can_implement refuses it (alignment or tile limits)";
    return "";
  };
  auto workspace = [](const ConvProblem& p) -> size_t {
    const auto args = pointwise_arguments<Gemm>(pointwise_gemm(p, order), aligned_placeholder(), aligned_placeholder(),
                                                nullptr, const_cast<Element*>(aligned_placeholder()), hardware_info());
    return Gemm::Device::get_workspace_size(args);
  };
  auto launch = [](const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
    auto args = pointwise_arguments<Gemm>(pointwise_gemm(p, order), a.x, a.w, a.bias, a.y, hardware_info());
    run_cutlass<typename Gemm::Device>(args, a.workspace, s, p);
  };
  Variant v{std::move(name), "dense", std::move(idea), accepts, launch, std::move(source), workspace};
  v.fuses_activation = true;  // every EpilogueFusion applies ConvProblem::activation
  return v;
}

}  // namespace kforge::dense::sm90
