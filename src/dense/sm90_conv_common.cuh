// Shared by the CUTLASS-composed dense kernels (sm90_conv_as_shipped.cuh, sm90_conv_persistent.cuh): element
// types, the conv problem shape, the fused bias epilogue. The two compositions live in separate headers because
// CUTLASS's 2.x GEMM headers (pulled in by the GEMM device adapter) make ConvUniversal's kernel ambiguous.
// Limits of both (refused by can_implement, see sm90_conv_runner.cuh): C and K multiples of 8 (16-byte TMA
// strides), groups == 1, and the im2col corner ranges TMA supports for rank-5 tensors.
#pragma once

#include <cute/tensor.hpp>
#include <cutlass/kernel_hardware_info.hpp>  // before the conv builders, which use it without including it
#include <cutlass/conv/convnd_problem_shape.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/numeric_types.h>

namespace kforge::dense::sm90 {

using namespace cute;

using Element = cutlass::bfloat16_t;
using Accumulator = float;
using ConvShape = cutlass::conv::ConvProblemShape<cutlass::conv::Operator::kFprop, 3>;
constexpr int kAlignment = 8;  // elements: 16 bytes, what TMA needs of every stride

// Per-output-channel bias (a row vector of the [M, K] output), D = acc + bias; beta = 0 and no C operand.
using BiasFusion = cutlass::epilogue::fusion::LinCombPerColBias<Element, Accumulator, Element, Element>;

}  // namespace kforge::dense::sm90
