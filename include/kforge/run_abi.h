/* kforge run ABI: what a kernel source for `kforge run` / `kforge compare` defines and what it receives.
 * Usable from NVRTC without any CUDA header (no <stdint.h>, no runtime headers): a kernel file is just
 *
 *   #include <kforge/run_abi.h>
 *   extern "C" __device__ const kforge_launch_rule kforge_launch = {KFORGE_RUN_ABI_VERSION, 256, 0,
 *                                                                   KFORGE_GRID_OUTPUTS, 256, 0,
 *                                                                   KFORGE_DTYPES_FLOAT, 0};
 *   extern "C" __global__ void kforge_kernel(kforge_run_params p) { ... }
 *
 * The host loads the cubin, reads `kforge_launch` from device memory, sizes the grid from it and launches
 * `kforge_kernel` with one kforge_run_params. The kernel must compute y = conv(x, w) + bias for any grid the rule
 * can produce (a grid-stride loop does it): the rule only sizes the grid. docs/run-kernels.md has the details. */
#ifndef KFORGE_RUN_ABI_H
#define KFORGE_RUN_ABI_H

/* Bumped whenever a struct below changes; the host refuses a kernel built against another version. */
#define KFORGE_RUN_ABI_VERSION 1

/* Element types: the values of kforge::DType and kforge_dtype (kforge.h). */
#define KFORGE_RUN_F32 0
#define KFORGE_RUN_BF16 1
#define KFORGE_RUN_F16 2
#define KFORGE_RUN_FP8_E4M3 3
#define KFORGE_DTYPE_BIT(t) (1u << (t))
#define KFORGE_DTYPES_FLOAT (KFORGE_DTYPE_BIT(KFORGE_RUN_F32) | KFORGE_DTYPE_BIT(KFORGE_RUN_BF16) | \
                             KFORGE_DTYPE_BIT(KFORGE_RUN_F16))

/* What the grid is sized over: blocks = ceil(extent / per_block), extent being the count of */
#define KFORGE_GRID_OUTPUTS 0  /* output elements, N*K*Do*Ho*Wo */
#define KFORGE_GRID_ROWS 1     /* output rows along W, N*K*Do*Ho */
#define KFORGE_GRID_PLANES 2   /* output planes, N*K*Do */
#define KFORGE_GRID_CHANNELS 3 /* output channels of all images, N*K */

/* Problem classes a kernel may require (kforge_launch_rule.needs); the host refuses other problems. */
#define KFORGE_NEEDS_DEPTHWISE 1u /* groups == C == K (one filter per channel) */

/* One convolution (PyTorch F.conv3d semantics; 1D/2D problems have unit D/H sizes) and its device pointers.
 * Element strides are 64-bit and in logical order: x (N,C,D,H,W), w (K,C/groups,T,R,S), y (N,K,Do,Ho,Wo);
 * NCDHW and NDHWC are just strides. Padding is the lower padding; the upper one is implied by the output sizes. */
typedef struct kforge_run_params {
  long long N, C, K;
  long long D, H, W;    /* input */
  long long T, R, S;    /* filter */
  long long Do, Ho, Wo; /* output */
  long long stride[3], pad[3], dilation[3]; /* (d, h, w) */
  long long x_stride[5], w_stride[5], y_stride[5];
  long long groups;
  int has_bias; /* bias[K] is read only when set */
  int dtype;    /* KFORGE_RUN_*: x, w, bias and y share it; accumulate in fp32 */
  const void* x;
  const void* w;
  const void* bias;
  void* y;
} kforge_run_params;

/* The launch geometry, defined by the kernel source as `extern "C" __device__ const kforge_launch_rule
 * kforge_launch` (or __constant__). 1D blocks and grid. */
typedef struct kforge_launch_rule {
  int abi_version;        /* KFORGE_RUN_ABI_VERSION */
  int block_threads;      /* threads per block, 1..1024 */
  int dynamic_smem_bytes; /* dynamic shared memory per block (above 48 KiB the host opts in) */
  int grid_over;          /* KFORGE_GRID_* */
  long long per_block;    /* items of that extent per block, >= 1 */
  int max_blocks_per_sm;  /* 0: no cap; else grid <= SM count * this (persistent, grid-stride kernels) */
  unsigned dtypes;        /* KFORGE_DTYPE_BIT of each dtype the kernel handles */
  unsigned needs;         /* KFORGE_NEEDS_* flags, 0 for any problem */
} kforge_launch_rule;

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
/* Element load/store in the problem's dtype with fp32 arithmetic, without cuda_bf16.h / cuda_fp16.h: PTX
 * conversions, round-to-nearest-even on the way out (what __float2bfloat16 / __float2half do). Not fp8. */
__device__ __forceinline__ float kforge_load(const void* base, long long i, int dtype) {
  if (dtype == KFORGE_RUN_F32) return static_cast<const float*>(base)[i];
  const unsigned short bits = static_cast<const unsigned short*>(base)[i];
  float v;
  if (dtype == KFORGE_RUN_BF16) {
    const unsigned int widened = static_cast<unsigned int>(bits) << 16;  /* bf16 is the top half of an f32 */
    v = __int_as_float(static_cast<int>(widened));
  } else {
    asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(bits));
  }
  return v;
}

__device__ __forceinline__ void kforge_store(void* base, long long i, int dtype, float v) {
  if (dtype == KFORGE_RUN_F32) {
    static_cast<float*>(base)[i] = v;
    return;
  }
  unsigned short bits;
  if (dtype == KFORGE_RUN_BF16) asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  else asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  static_cast<unsigned short*>(base)[i] = bits;
}
#endif

#endif /* KFORGE_RUN_ABI_H */
