// CUTLASS 4.2's own sm90 conv kernel, as shipped: ConvUniversal with `KernelImplicitTmaWarpSpecializedSm90` (one
// consumer warpgroup, one CTA per output tile, no persistence), NDHWC bf16, fused bias. The anchor to beat.
#pragma once

// First: cute before the CUTLASS conv headers, which use it without including it.
#include "dense/sm90_conv_common.cuh"
#include "dense/sm90_conv_runner.cuh"

#include <cutlass/conv/collective/collective_builder.hpp>
#include <cutlass/conv/device/conv_universal_adapter.hpp>
#include <cutlass/conv/kernel/conv_universal.hpp>


namespace kforge::dense::sm90 {

template <class TileShape, class ClusterShape>
struct AsShippedConv {
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, Accumulator, Accumulator,
      void, cutlass::layout::TensorNDHWC, kAlignment, Element, cutlass::layout::TensorNDHWC, kAlignment,
      cutlass::epilogue::TmaWarpSpecialized, BiasFusion>::CollectiveOp;
  using Mainloop = typename cutlass::conv::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::conv::Operator::kFprop,
      Element, cutlass::layout::TensorNDHWC, kAlignment, Element, cutlass::layout::TensorNDHWC, kAlignment,
      Accumulator, TileShape, ClusterShape,
      cutlass::conv::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      cutlass::conv::KernelImplicitTmaWarpSpecializedSm90>::CollectiveOp;
  using Kernel = cutlass::conv::kernel::ConvUniversal<ConvShape, Mainloop, Epilogue>;
  using Device = cutlass::conv::device::ConvUniversalAdapter<Kernel>;
};

template <class Conv>
typename Conv::Device::Arguments as_shipped_arguments(const ConvProblem& in, const void* x, const void* w,
                                                      const void* bias, void* y,
                                                      const cutlass::KernelHardwareInfo& hw) {
  using Kernel = typename Conv::Kernel;
  const ConvShape shape = conv_shape(in);
  typename Kernel::EpilogueArguments epi{};
  // NDHWC output: the M mode is (q, p, z, n) with the strides of w, h, d, n; the K mode is contiguous.
  cute::for_each(cute::make_seq<cute::rank<0>(typename Kernel::StrideD{})>{}, [&](auto i) {
    cute::get<0, i>(epi.dD) = shape.stride_C[ConvShape::RankT - 2 - i];
  });
  epi.dC = epi.dD;
  epi.ptr_D = static_cast<Element*>(y);
  epi.thread.bias_ptr = static_cast<const Element*>(bias);
  return {shape, {static_cast<const Element*>(x), static_cast<const Element*>(w)}, epi, hw, {}};
}

}  // namespace kforge::dense::sm90
