// A pointwise convolution (1x1x1 filter, stride 1, no padding) is one GEMM per image over the flattened volume
// P = D*H*W, read and written in the caller's own layout, so neither layout stages anything:
//   channels first (NCDHW): y[n] (K x P) = w (K x C) * x[n] (C x P)    GEMM M = K, N = P, B = x is N-major
//   channels last  (NDHWC): y[n] (P x K) = x[n] (P x C) * w^T (C x K)  GEMM M = P, N = K, B = w is K-major
// In both, A is K-major (row-major M x K), D is row-major M x N and the batch is the GEMM's L mode (w shared: its
// batch stride is 0). Host-side geometry only; the kernels are in sm90_pointwise_gemm.cuh.
#pragma once

#include <cstdint>
#include <string>

#include "kforge/conv.hpp"

namespace kforge::dense {

enum class ChannelOrder { first, last };

// One GEMM operand in elements: the stride between rows (of the M or N mode; the K mode is contiguous, except B of
// channels-first, where the N mode is contiguous and `ld` steps along K) and between images.
struct GemmOperand {
  int64_t ld = 0, batch = 0;
};

struct PointwiseGemm {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  GemmOperand a, b, d;
  bool a_is_x = false;  // channels last: A = x, B = w; channels first: A = w, B = x
  bool silu = false;    // the epilogue's activation (ConvProblem::activation)
};

// "" when p is a pointwise conv whose x, w and y this GEMM reads and writes in place in `order` (16-byte TMA
// strides, int32 extents), else why not.
std::string pointwise_gemm_refusal(const ConvProblem& p, ChannelOrder order);

// The GEMM of p; pointwise_gemm_refusal(p, order) must be "".
PointwiseGemm pointwise_gemm(const ConvProblem& p, ChannelOrder order);

}  // namespace kforge::dense
