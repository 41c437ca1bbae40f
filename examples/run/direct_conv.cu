// kforge run example: a direct convolution, one thread per output element. Any groups, stride, padding,
// dilation and strides (NCDHW, NDHWC, views); f32, bf16 and f16 with fp32 accumulation. The simplest correct
// kernel of the ABI (include/kforge/run_abi.h), and the subject of scripts/compare-acceptance.
// Knobs (-D NAME=VALUE):
//   KFORGE_BLOCK=256          threads per block
//   KFORGE_EXTRA_WORK=P       P% of the blocks (P of every 100 in a row) compute their outputs a second time and
//                             keep the first result: the same bits, about P% more work (a deliberately slow build)
//   KFORGE_OUTPUT_SCALE=S     every output times S: a deliberately wrong build (compare must refuse to time it)
#include <kforge/run_abi.h>

#ifndef KFORGE_BLOCK
#define KFORGE_BLOCK 256
#endif

extern "C" __device__ const kforge_launch_rule kforge_launch = {
    KFORGE_RUN_ABI_VERSION, KFORGE_BLOCK, /*dynamic_smem_bytes=*/0, KFORGE_GRID_OUTPUTS,
    /*per_block=*/KFORGE_BLOCK, /*max_blocks_per_sm=*/0, KFORGE_DTYPES_FLOAT, /*needs=*/0};

// y[n, k, od, oh, ow] (bias included) over the group's input channels and the taps that land inside x.
// `zero` is 0; the extra-work path passes one the compiler cannot see through, so it cannot merge the two passes.
__device__ float conv_at(const kforge_run_params& p, long long n, long long k, long long od, long long oh,
                         long long ow, long long zero) {
  const long long cpg = p.C / p.groups, kpg = p.K / p.groups;
  const long long c0 = (k / kpg) * cpg;
  float acc = 0.f;
  for (long long c = 0; c < cpg; ++c) {
    for (long long t = 0; t < p.T; ++t) {
      const long long id = od * p.stride[0] - p.pad[0] + t * p.dilation[0];
      if (id < 0 || id >= p.D) continue;
      for (long long r = 0; r < p.R; ++r) {
        const long long ih = oh * p.stride[1] - p.pad[1] + r * p.dilation[1];
        if (ih < 0 || ih >= p.H) continue;
        const long long x_row = n * p.x_stride[0] + (c0 + c) * p.x_stride[1] + id * p.x_stride[2] +
                                ih * p.x_stride[3] + zero;
        const long long w_row = k * p.w_stride[0] + c * p.w_stride[1] + t * p.w_stride[2] + r * p.w_stride[3];
        // Not unrolled: unrolling the 64-bit index math doubles the registers (56 -> 128, with spills on sm_90a).
#pragma unroll 1
        for (long long s = 0; s < p.S; ++s) {
          const long long iw = ow * p.stride[2] - p.pad[2] + s * p.dilation[2];
          if (iw < 0 || iw >= p.W) continue;
          acc += kforge_load(p.x, x_row + iw * p.x_stride[4], p.dtype) *
                 kforge_load(p.w, w_row + s * p.w_stride[4], p.dtype);
        }
      }
    }
  }
  if (p.has_bias) acc += kforge_load(p.bias, k, p.dtype);
  return acc;
}

extern "C" __global__ void __launch_bounds__(KFORGE_BLOCK) kforge_kernel(kforge_run_params p) {
  const long long total = p.N * p.K * p.Do * p.Ho * p.Wo;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    long long rest = i;  // W fastest: consecutive threads write consecutive NCDHW outputs
    const long long ow = rest % p.Wo;
    rest /= p.Wo;
    const long long oh = rest % p.Ho;
    rest /= p.Ho;
    const long long od = rest % p.Do;
    rest /= p.Do;
    const long long k = rest % p.K, n = rest / p.K;
    float acc = conv_at(p, n, k, od, oh, ow, 0);
#ifdef KFORGE_EXTRA_WORK
    if ((i / blockDim.x) % 100 < (KFORGE_EXTRA_WORK)) {
      long long opaque_zero;
      asm volatile("mov.b64 %0, 0;" : "=l"(opaque_zero));
      // Same inputs, same order: equal bits. The comparison keeps the second pass alive.
      if (conv_at(p, n, k, od, oh, ow, opaque_zero) != acc) acc = __int_as_float(0x7fffffff);
    }
#endif
#ifdef KFORGE_OUTPUT_SCALE
    acc *= (KFORGE_OUTPUT_SCALE);
#endif
    kforge_store(p.y, n * p.y_stride[0] + k * p.y_stride[1] + od * p.y_stride[2] + oh * p.y_stride[3] +
                          ow * p.y_stride[4], p.dtype, acc);
  }
}
