// kforge convolution API: PyTorch F.conv1d/2d/3d semantics on device tensors, with a CUDA stream.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <string>
#include <vector>

#include "kforge/types.hpp"

namespace kforge {

// Memory order of a rank-5 activation (N, C, D, H, W logical order).
enum class Layout : int { ncdhw = 0, ndhwc = 1, strided = 2 };
const char* layout_name(Layout l);
Layout parse_layout(const std::string& s);  // "ncdhw" | "ndhwc"

// An elementwise function applied to the biased output, y = act(conv(x, w) + bias), fused into the kernel's
// epilogue: F.silu(F.conv3d(...)) in one pass, as the video-VAE decoders call it.
enum class Activation : int { none = 0, silu = 1 };
const char* activation_name(Activation a);
Activation parse_activation(const std::string& s);  // "none" | "silu"

// Convolution hyper-parameters as PyTorch takes them. Each list holds one value (applied to every spatial
// dimension) or one per spatial dimension of the input (1 for conv1d, 2 for conv2d, 3 for conv3d).
struct ConvParams {
  std::vector<int64_t> stride{1};
  std::vector<int64_t> padding{0};     // symmetric padding, or the lower padding when padding_hi is given
  std::vector<int64_t> padding_hi{};   // empty: same as padding (PyTorch); else upper padding per dimension
  std::vector<int64_t> dilation{1};
  int64_t groups = 1;
  Activation activation = Activation::none;  // not a conv parameter in PyTorch: the fused F.silu after it
};

// One convolution, normalized to 3D (1D and 2D problems have unit D/H sizes), with everything derived computed
// once. It keys the variant registry, the autotune cache and the benchmark history.
struct ConvProblem {
  int spatial_rank = 3;                       // 1, 2 or 3: what the caller asked for
  int64_t N = 1, C = 1, K = 1;                // batch, input channels, output channels
  int64_t D = 1, H = 1, W = 1;                // input spatial sizes
  int64_t T = 1, R = 1, S = 1;                // filter spatial sizes
  int64_t Do = 1, Ho = 1, Wo = 1;             // output spatial sizes
  std::array<int64_t, 3> stride{1, 1, 1};     // (d, h, w)
  std::array<int64_t, 3> pad_lo{0, 0, 0};
  std::array<int64_t, 3> pad_hi{0, 0, 0};
  std::array<int64_t, 3> dilation{1, 1, 1};
  int64_t groups = 1;
  DType dtype = DType::bf16;                  // input, filter, bias and output share one dtype
  bool has_bias = false;
  Activation activation = Activation::none;   // applied after the bias
  // Element strides of the rank-5 views: x (N,C,D,H,W), w (K,C/groups,T,R,S), y (N,K,Do,Ho,Wo).
  std::array<int64_t, 5> x_strides{}, w_strides{}, y_strides{};
  // Data pointers that are not 16-byte aligned (views at an odd element offset): kernels that hand a tensor to TMA
  // in place need 16 bytes. make_problem fills it from the views it is given (no pointer: aligned).
  struct Unaligned {
    bool x = false, w = false, bias = false, y = false;
    bool any() const { return x || w || bias || y; }
  } unaligned;

  KF_HOST_DEVICE int64_t x_numel() const { return N * C * D * H * W; }
  KF_HOST_DEVICE int64_t w_numel() const { return K * (C / groups) * T * R * S; }
  KF_HOST_DEVICE int64_t y_numel() const { return N * K * Do * Ho * Wo; }
  KF_HOST_DEVICE int64_t channels_per_group() const { return C / groups; }
  KF_HOST_DEVICE bool is_depthwise() const { return groups == C && groups > 1 && K % groups == 0; }
  Layout x_layout() const;
  Layout w_layout() const;  // ncdhw: KCTRS, ndhwc: KTRSC
  Layout y_layout() const;
  // 2 * multiply-adds, counting only taps that read an input element or padding (the usual convention).
  double flops() const;
  // Each input read once, each output written once, in the problem's dtype.
  double min_bytes() const;
  // One-line human description, e.g. "N1 C512 K512 61x45x80 k3x5x5 s1,1,1 p0:0,2:2,2:2 d1,1,1 g512 bf16 ncdhw +bias".
  std::string describe() const;
  // Canonical key (stable across versions) for caches and the history database.
  std::string key() const;

  // A problem with dense tensors in the given layout (x/y: NCDHW or NDHWC; w follows x as PyTorch does).
  static ConvProblem dense(int64_t N, int64_t C, int64_t K, std::array<int64_t, 3> input,
                           std::array<int64_t, 3> kernel, const ConvParams& params, DType dtype, Layout layout,
                           bool has_bias);
};

// Output spatial size of one dimension (PyTorch formula).
int64_t conv_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_lo, int64_t pad_hi,
                         int64_t dilation);

// Validates shapes, dtypes and parameters (no pointer checks) and returns the problem.
// `y` may be null: then only the input side is checked. Throws kforge::Error with a PyTorch-style message.
ConvProblem make_problem(const TensorView& x, const TensorView& w, const TensorView* bias, const TensorView* y,
                         const ConvParams& params);

// Expected output sizes (rank of x) for the given input, filter and parameters.
std::vector<int64_t> conv_output_sizes(const TensorView& x, const TensorView& w, const ConvParams& params);

struct ConvOptions {
  std::string variant;  // empty: the family's dispatch rule chooses; else this registry entry, or an error
};

// y = act(conv(x, w) + bias) on `stream` (act from params.activation; identity by default). All pointers must be device pointers, aligned to their element size.
// Returns the name of the variant that ran. A zero-size batch launches nothing.
std::string conv(const TensorView& x, const TensorView& w, const TensorView* bias, const TensorView& y,
                 const ConvParams& params, cudaStream_t stream, const ConvOptions& options = {});

}  // namespace kforge
