// The GEMM view of a pointwise convolution (see pointwise_gemm.hpp).
#include "dense/pointwise_gemm.hpp"

#include <array>
#include <limits>

#include "core/cuda_check.hpp"

namespace kforge::dense {
namespace {

constexpr int64_t kTmaElements = 8;  // TMA: every stride but the contiguous one a multiple of 16 bytes

// The stride of the single mode that the spatial dims (D, H, W: strides[2..4]) collapse into, or -1 when they do
// not collapse (a strided view). Size-1 dims have no say; a volume of one element collapses with stride 1.
int64_t flat_volume_stride(const std::array<int64_t, 3>& sizes, const std::array<int64_t, 5>& strides) {
  int64_t stride = -1, next = 0;
  for (int d = 2; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (stride < 0) {
      stride = strides[d + 2];
    } else if (strides[d + 2] != next) {
      return -1;
    }
    next = strides[d + 2] * sizes[d];
  }
  return stride < 0 ? 1 : stride;
}

// "" when `ld` (the stride between rows of a mode of `extent` elements) suits TMA.
std::string tma_stride_refusal(const char* what, int64_t ld, int64_t extent) {
  if (extent == 1 || ld % kTmaElements == 0) return "";
  return std::string(what) + " stride " + std::to_string(ld) + " is not a multiple of 8 elements (16-byte TMA strides)";
}

}  // namespace

std::string pointwise_gemm_refusal(const ConvProblem& p, ChannelOrder order) {
  if (p.T * p.R * p.S != 1) return "pointwise convolutions only (1x1x1 filter)";
  for (int d = 0; d < 3; ++d) {
    if (p.stride[d] != 1 || p.pad_lo[d] != 0 || p.pad_hi[d] != 0)
      return "pointwise GEMM needs stride 1 and no padding (the output volume is the input's)";
  }
  if (p.groups != 1) return "groups == 1 only (got " + std::to_string(p.groups) + ")";
  if (p.unaligned.any()) return "TMA reads and writes the tensors in place: every data pointer must be 16-byte aligned";
  const int64_t x_volume = flat_volume_stride({p.D, p.H, p.W}, p.x_strides);
  const int64_t y_volume = flat_volume_stride({p.Do, p.Ho, p.Wo}, p.y_strides);
  if (x_volume < 0 || y_volume < 0) return "x and y need a volume (D, H, W) that flattens to one stride";
  const int64_t volume = p.D * p.H * p.W;
  const bool first = order == ChannelOrder::first;
  const char* layout = first ? "channels-first (NCDHW)" : "channels-last (NDHWC)";
  // The contiguous mode of each operand: the volume of x and y (channels first) or their channels (channels
  // last); w's input channels in both.
  const bool x_inner = first ? (x_volume == 1 || volume == 1) : p.x_strides[1] == 1;
  const bool y_inner = first ? (y_volume == 1 || volume == 1) : (p.y_strides[1] == 1 || p.K == 1);
  if (!x_inner || !y_inner) return std::string("x and y must both be ") + layout;
  if (p.w_strides[1] != 1) return "w's input channels must be contiguous (KCTRS or KTRSC with 1x1x1)";
  // The contiguous extents: TMA boxes and the 16-byte vectors of the epilogue.
  if (p.C % kTmaElements != 0) return "C % 8 != 0 (16-byte rows of x and w)";
  if (!first && p.K % kTmaElements != 0) return "K % 8 != 0 (16-byte rows of y)";
  if (first && volume % kTmaElements != 0) return "D*H*W % 8 != 0 (16-byte rows of x and y in NCDHW)";
  for (const std::string& why :
       {tma_stride_refusal("w's output-channel", p.w_strides[0], p.K),
        tma_stride_refusal(first ? "x's channel" : "x's volume", first ? p.x_strides[1] : x_volume,
                           first ? p.C : volume),
        tma_stride_refusal(first ? "y's channel" : "y's volume", first ? p.y_strides[1] : y_volume,
                           first ? p.K : volume),
        tma_stride_refusal("x's batch", p.x_strides[0], p.N), tma_stride_refusal("y's batch", p.y_strides[0], p.N)}) {
    if (!why.empty()) return why;
  }
  constexpr int64_t int_max = std::numeric_limits<int>::max();
  if (volume > int_max || p.C > int_max || p.K > int_max || p.N > int_max)
    return "a GEMM extent (D*H*W, C, K or N) exceeds int32 (CUTLASS GEMM extents are int)";
  return "";
}

PointwiseGemm pointwise_gemm(const ConvProblem& p, ChannelOrder order) {
  KF_CHECK(pointwise_gemm_refusal(p, order).empty(), "pointwise_gemm: " + pointwise_gemm_refusal(p, order));
  const int64_t volume = p.D * p.H * p.W;
  const int64_t x_batch = p.N == 1 ? 0 : p.x_strides[0], y_batch = p.N == 1 ? 0 : p.y_strides[0];
  const GemmOperand w{p.K == 1 ? kTmaElements : p.w_strides[0], 0};  // one filter for every image
  PointwiseGemm g;
  g.k = p.C;
  g.batch = p.N;
  if (order == ChannelOrder::first) {
    g.m = p.K, g.n = volume;
    g.a = w;
    g.b = {p.x_strides[1], x_batch};
    g.d = {p.K == 1 ? kTmaElements : p.y_strides[1], y_batch};
  } else {
    const int64_t x_volume = flat_volume_stride({p.D, p.H, p.W}, p.x_strides);
    const int64_t y_volume = flat_volume_stride({p.Do, p.Ho, p.Wo}, p.y_strides);
    g.m = volume, g.n = p.K;
    g.a = {volume == 1 ? kTmaElements : x_volume, x_batch};
    g.b = w;
    g.d = {volume == 1 ? kTmaElements : y_volume, y_batch};
    g.a_is_x = true;
  }
  g.silu = p.activation == Activation::silu;
  return g;
}

}  // namespace kforge::dense
