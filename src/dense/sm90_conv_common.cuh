// Shared by the CUTLASS-composed dense kernels (sm90_conv_as_shipped.cuh, sm90_conv_persistent.cuh): element
// types, the conv problem shape, the fused bias (and activation) epilogues. The two compositions live in separate
// headers because CUTLASS's 2.x GEMM headers (pulled in by the GEMM device adapter) make ConvUniversal's kernel
// ambiguous.
// Limits of both (refused by can_implement, see sm90_conv_runner.cuh): C and K multiples of 8 (16-byte TMA
// strides), groups == 1, and the im2col corner ranges TMA supports for rank-5 tensors.
#pragma once

#include <cute/tensor.hpp>
#include <cutlass/kernel_hardware_info.hpp>  // before the conv builders, which use it without including it
#include <cutlass/conv/convnd_problem_shape.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/numeric_types.h>

#include "dense/silu.cuh"

namespace kforge::dense::sm90 {

using namespace cute;

using Element = cutlass::bfloat16_t;
using Accumulator = float;
using ConvShape = cutlass::conv::ConvProblemShape<cutlass::conv::Operator::kFprop, 3>;
constexpr int kAlignment = 8;  // elements: 16 bytes, what TMA needs of every stride

// Per-output-channel bias (a row vector of the [M, K] output), D = acc + bias; beta = 0 and no C operand.
using BiasFusion = cutlass::epilogue::fusion::LinCombPerColBias<Element, Accumulator, Element, Element>;

// ConvProblem::activation, chosen at run time so that one instantiation serves both: SiLU when `enabled`, else
// the identity (a uniform branch per fragment). CUTLASS's epilogue passes the Arguments of the scalar functor to
// the fragment one.
template <class T>
struct SiluWhenEnabled {
  struct Arguments {
    bool enabled = false;
  };
  CUTLASS_HOST_DEVICE T operator()(T const& v, Arguments const& a) const { return a.enabled ? fast_silu(v) : v; }
};
template <class T, int N>
struct SiluWhenEnabled<cutlass::Array<T, N>> {
  using Arguments = typename SiluWhenEnabled<T>::Arguments;
  CUTLASS_HOST_DEVICE cutlass::Array<T, N> operator()(cutlass::Array<T, N> const& v, Arguments const& a) const {
    if (!a.enabled) return v;
    cutlass::Array<T, N> out;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i) out[i] = fast_silu(v[i]);
    return out;
  }
};

// D = act(acc + bias) with the bias per output channel: a row vector of the [M, K] view (BiasActFusion), or a
// column vector where the GEMM's rows are the channels (RowBiasActFusion, the channels-first pointwise GEMMs).
using BiasActFusion =
    cutlass::epilogue::fusion::LinCombPerColBiasEltAct<SiluWhenEnabled, Element, Accumulator, Element, Element>;
using RowBiasActFusion =
    cutlass::epilogue::fusion::LinCombPerRowBiasEltAct<SiluWhenEnabled, Element, Accumulator, Element, Element>;

}  // namespace kforge::dense::sm90
