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
#include <type_traits>

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

// What the epilogue computes per output element. CUTLASS's linear combination is act(beta * C + (alpha * acc +
// bias)): two FFMAs per output even with alpha = 1, beta = 0 and no C (ncu on v37, c512_k111: 17.7% of its warp
// instructions). `bias_add` is act(acc + bias), one FADD: the same result bit for bit (alpha * acc with alpha = 1
// and + beta * 0 are exact in fp32).
// `bias_when_given` is act(acc + bias) with a bias and act(acc) without one: a uniform branch per fragment skips
// the FADD of zeros (10% of v38's warp instructions on the suite's bias-free convs).
enum class EpilogueMath { linear_combination, bias_add, bias_when_given };

// act(acc + bias) as CUTLASS epilogue-visitor callbacks, with the flat arguments of BiasActFusion (bias_ptr,
// activation) so that one argument builder serves all three. The bias runs along the output channels: the columns
// of the GEMM's D (`kBiasPerRow` false: the [M, K] view of an implicit GEMM, either storage order of y) or its rows
// (the channels-first pointwise GEMM). A null bias reads as zeros.
namespace fusion = cutlass::epilogue::fusion;
constexpr auto kRound = cutlass::FloatRoundStyle::round_to_nearest;  // CUTLASS's default for its fusions
template <class CtaTile, bool kBiasPerRow>
using BiasBroadcast =
    std::conditional_t<kBiasPerRow,
                       fusion::Sm90ColBroadcast<0, CtaTile, Element, Accumulator, Stride<_1, _0, int64_t>, kAlignment>,
                       fusion::Sm90RowBroadcast<0, CtaTile, Element, Accumulator, Stride<_0, _1, int64_t>, kAlignment>>;
struct FlatBiasActArguments {
  Element const* bias_ptr = nullptr;
  SiluWhenEnabled<Accumulator>::Arguments activation{};
};

// `bias_add`: act(plus(acc, bias)).
template <class CtaTile, bool kBiasPerRow>
using BiasAddActTree =
    fusion::Sm90EVT<fusion::Sm90Compute<SiluWhenEnabled, Element, Accumulator, kRound>,
                    fusion::Sm90EVT<fusion::Sm90Compute<cutlass::plus, Accumulator, Accumulator, kRound>,
                                    fusion::Sm90AccFetch, BiasBroadcast<CtaTile, kBiasPerRow>>>;
template <class CtaTile, bool kBiasPerRow = false>
struct BiasAddAct : BiasAddActTree<CtaTile, kBiasPerRow> {
  using Tree = BiasAddActTree<CtaTile, kBiasPerRow>;
  struct Arguments : FlatBiasActArguments {
    operator typename Tree::Arguments() const { return {{{}, {bias_ptr, Element(0), {}}, {}}, activation}; }
  };
  using Tree::Tree;
};

// `bias_when_given`: one node, act(acc + bias) or act(acc); both flags are uniform across the kernel.
template <class T>
struct BiasWhenGivenThenAct {
  struct Arguments {
    bool add_bias = false;
    bool silu = false;
  };
  CUTLASS_HOST_DEVICE T operator()(T const& acc, T const& bias, Arguments const& a) const {
    const T v = a.add_bias ? acc + bias : acc;
    return a.silu ? fast_silu(v) : v;
  }
};
template <class T, int N>
struct BiasWhenGivenThenAct<cutlass::Array<T, N>> {
  using Arguments = typename BiasWhenGivenThenAct<T>::Arguments;
  CUTLASS_HOST_DEVICE cutlass::Array<T, N> operator()(cutlass::Array<T, N> const& acc,
                                                      cutlass::Array<T, N> const& bias, Arguments const& a) const {
    if (!a.add_bias && !a.silu) return acc;
    cutlass::Array<T, N> out;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i) out[i] = BiasWhenGivenThenAct<T>{}(acc[i], bias[i], a);
    return out;
  }
};
template <class CtaTile, bool kBiasPerRow>
using BiasWhenGivenTree = fusion::Sm90EVT<fusion::Sm90Compute<BiasWhenGivenThenAct, Element, Accumulator, kRound>,
                                          fusion::Sm90AccFetch, BiasBroadcast<CtaTile, kBiasPerRow>>;
template <class CtaTile, bool kBiasPerRow = false>
struct BiasWhenGivenAct : BiasWhenGivenTree<CtaTile, kBiasPerRow> {
  using Tree = BiasWhenGivenTree<CtaTile, kBiasPerRow>;
  struct Arguments : FlatBiasActArguments {
    operator typename Tree::Arguments() const {
      return {{}, {bias_ptr, Element(0), {}}, {bias_ptr != nullptr, activation.enabled}};
    }
  };
  using Tree::Tree;
};

// The callbacks of `Math`, the bias per column of the GEMM's D (or per row: `kBiasPerRow`).
template <EpilogueMath Math, class CtaTile, bool kBiasPerRow = false>
using EpilogueFusion = std::conditional_t<
    Math == EpilogueMath::bias_add, BiasAddAct<CtaTile, kBiasPerRow>,
    std::conditional_t<Math == EpilogueMath::bias_when_given, BiasWhenGivenAct<CtaTile, kBiasPerRow>,
                       std::conditional_t<kBiasPerRow, RowBiasActFusion, BiasActFusion>>>;

}  // namespace kforge::dense::sm90
