// Channels-last staging for the implicit-GEMM kernels, which read NDHWC activations and KTRSC filters with a
// channel count that is a multiple of 8 (16-byte TMA strides) and write NDHWC outputs.
// A problem in any other layout (PyTorch's default NCDHW, strided views) or with C % 8 != 0 or K % 8 != 0 runs
// through a workspace: x -> NDHWC with C padded by zeros, w -> KTRSC padded alike (and with zero filters up to the
// padded K), the bias padded with zeros, the kernel writes an NDHWC y of the padded K, whose first K channels are
// copied into the caller's layout. Zero channels add nothing to the sums and zero filters make outputs nobody
// reads, so the result is the same function. (An RGB head, K = 3, is the usual K % 8 != 0 case.)
// Kernels whose epilogue writes one image's NCDHW y directly (OutputOrder::ncdhw_one_image) skip y's staging.
// A tensor whose data pointer is not 16-byte aligned (TMA's requirement) is staged whatever its layout.
// NCDHW <-> NDHWC go through a tiled transpose (coalesced on both sides); other strides through a gather.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "dispatch/registry.hpp"

namespace kforge::dense {

constexpr int64_t kChannelAlignment = 8;

// The order a kernel's epilogue writes y in: NDHWC (row-major [M, K]), or the NCDHW of a single image (column-major
// [M, K] with M = Do*Ho*Wo).
enum class OutputOrder { ndhwc, ncdhw_one_image };

// "" when a kernel writing `out` can write p's y in place: always for NDHWC (y is staged when it is not NDHWC);
// for ncdhw_one_image, N == 1, K % 8 == 0 (no padded channels to write), a packed NCDHW y, Do*Ho*Wo % 8 == 0
// (16-byte TMA strides) and a 16-byte aligned y, else why not.
std::string output_order_refusal(const ConvProblem& p, OutputOrder out);

struct ChannelsLastPlan {
  ConvProblem inner;  // what the kernel runs: packed NDHWC x (C padded), KTRSC w (C and K padded), NDHWC y (K padded)
  bool stage_x = false, stage_w = false, stage_bias = false, stage_y = false;  // which go through the workspace
  size_t x_bytes = 0, w_bytes = 0, bias_bytes = 0, y_bytes = 0;              // their sizes (0 when not staged)
  size_t staging_bytes() const { return x_bytes + w_bytes + bias_bytes + y_bytes; }
};

// "" when the plan can stage p (groups == 1), else why not.
std::string channels_last_refusal(const ConvProblem& p);

// The plan for `p` (channels_last_refusal(p) must be "", a 16-bit dtype) and a kernel writing y in `out` order
// (output_order_refusal(p, out) must be "").
ChannelsLastPlan plan_channels_last(const ConvProblem& p, OutputOrder out = OutputOrder::ndhwc);

// Device pointers of the inner problem; `staging` holds plan.staging_bytes(). stage_inputs() copies x and w
// where the plan says so (and the bias, padded or aligned); finish_output() copies the staged y into the caller's y.
struct StagedArgs {
  const void* x;
  const void* w;
  const void* bias;  // nullptr without a bias
  void* y;
};
StagedArgs stage_inputs(const ChannelsLastPlan& plan, const ConvProblem& p, const ConvArgs& a, void* staging,
                        cudaStream_t s);
void finish_output(const ChannelsLastPlan& plan, const ConvProblem& p, const StagedArgs& staged, void* y,
                   cudaStream_t s);

}  // namespace kforge::dense
