// kforge run example: depthwise convolution (groups == C == K), each thread KFORGE_WTILE consecutive outputs of
// one W row. Every filter tap is loaded once per thread and applied to all of its outputs, and the index math is
// done once per row instead of once per tap; input reuse between neighbouring outputs comes from L1. Any stride,
// padding, dilation and strides; f32, bf16, f16 with fp32 accumulation, taps in the same order as
// direct_conv.cu (t, r, s, then bias), so both usually agree bit for bit.
// Knobs (-D NAME=VALUE): KFORGE_WTILE=8 outputs per thread, KFORGE_BLOCK=128 threads per block.
#include <kforge/run_abi.h>

#ifndef KFORGE_WTILE
#define KFORGE_WTILE 8
#endif
#ifndef KFORGE_BLOCK
#define KFORGE_BLOCK 128
#endif

extern "C" __device__ const kforge_launch_rule kforge_launch = {
    KFORGE_RUN_ABI_VERSION, KFORGE_BLOCK, /*dynamic_smem_bytes=*/0, KFORGE_GRID_OUTPUTS,
    /*per_block=*/KFORGE_BLOCK * KFORGE_WTILE, /*max_blocks_per_sm=*/0, KFORGE_DTYPES_FLOAT,
    KFORGE_NEEDS_DEPTHWISE};

extern "C" __global__ void __launch_bounds__(KFORGE_BLOCK) kforge_kernel(kforge_run_params p) {
  constexpr int V = KFORGE_WTILE;
  const long long tiles_per_row = (p.Wo + V - 1) / V;
  const long long total = p.N * p.K * p.Do * p.Ho * tiles_per_row;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    long long rest = i;
    const long long ow0 = (rest % tiles_per_row) * V;
    rest /= tiles_per_row;
    const long long oh = rest % p.Ho;
    rest /= p.Ho;
    const long long od = rest % p.Do;
    rest /= p.Do;
    const long long k = rest % p.K, n = rest / p.K;  // depthwise: output channel k reads input channel k

    float acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = 0.f;
    for (long long t = 0; t < p.T; ++t) {
      const long long id = od * p.stride[0] - p.pad[0] + t * p.dilation[0];
      if (id < 0 || id >= p.D) continue;
      for (long long r = 0; r < p.R; ++r) {
        const long long ih = oh * p.stride[1] - p.pad[1] + r * p.dilation[1];
        if (ih < 0 || ih >= p.H) continue;
        const long long x_row = n * p.x_stride[0] + k * p.x_stride[1] + id * p.x_stride[2] + ih * p.x_stride[3];
        const long long w_row = k * p.w_stride[0] + t * p.w_stride[2] + r * p.w_stride[3];
        for (long long s = 0; s < p.S; ++s) {
          const float w = kforge_load(p.w, w_row + s * p.w_stride[4], p.dtype);
          const long long iw0 = ow0 * p.stride[2] - p.pad[2] + s * p.dilation[2];
#pragma unroll
          for (int v = 0; v < V; ++v) {
            const long long iw = iw0 + v * p.stride[2];
            if (ow0 + v < p.Wo && iw >= 0 && iw < p.W) acc[v] += kforge_load(p.x, x_row + iw * p.x_stride[4], p.dtype) * w;
          }
        }
      }
    }
    const float bias = p.has_bias ? kforge_load(p.bias, k, p.dtype) : 0.f;
    const long long y_row = n * p.y_stride[0] + k * p.y_stride[1] + od * p.y_stride[2] + oh * p.y_stride[3];
#pragma unroll
    for (int v = 0; v < V; ++v) {
      if (ow0 + v >= p.Wo) continue;
      // The bias is added last, as in direct_conv.cu; without one the sum is stored as is (acc + 0 would turn -0
      // into +0 and break the bitwise agreement).
      kforge_store(p.y, y_row + (ow0 + v) * p.y_stride[4], p.dtype, p.has_bias ? acc[v] + bias : acc[v]);
    }
  }
}
