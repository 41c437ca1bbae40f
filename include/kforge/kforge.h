/* kforge C ABI: call kforge from C, ctypes, Rust or Julia with raw device pointers, sizes and strides.
 * Errors come back as a status plus a message (kforge_last_error, per thread); nothing aborts. */
#ifndef KFORGE_KFORGE_H
#define KFORGE_KFORGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  KFORGE_OK = 0,
  KFORGE_ERROR_INVALID_ARGUMENT = 1, /* bad shapes, dtypes, parameters or pointers */
  KFORGE_ERROR_UNSUPPORTED = 2,      /* valid, but no variant of kforge implements it */
  KFORGE_ERROR_CUDA = 3,             /* a CUDA call failed */
  KFORGE_ERROR_INTERNAL = 4
} kforge_status;

typedef enum { KFORGE_F32 = 0, KFORGE_BF16 = 1, KFORGE_F16 = 2, KFORGE_FP8_E4M3 = 3 } kforge_dtype;

/* Applied to the biased output in the kernel's epilogue: y = act(conv(x, w) + bias). */
typedef enum { KFORGE_ACTIVATION_NONE = 0, KFORGE_ACTIVATION_SILU = 1 } kforge_activation;

/* A strided tensor of rank 1..5; sizes and strides in elements (PyTorch's .size() and .stride()). */
typedef struct {
  void* data;
  int32_t dtype; /* kforge_dtype */
  int32_t rank;
  int64_t sizes[5];
  int64_t strides[5];
} kforge_tensor;

/* Hyper-parameters per spatial dimension, in order (d, h, w) for conv3d, (h, w) for conv2d, (w) for conv1d:
 * only the first n entries are read, n = input rank - 2. */
typedef struct {
  int64_t stride[3];
  int64_t padding_lo[3];
  int64_t padding_hi[3];
  int64_t dilation[3];
  int64_t groups;
  int64_t activation; /* kforge_activation */
} kforge_conv_params;

/* y = act(conv(x, w) + bias) on a cudaStream_t (NULL: the default stream). bias and variant may be NULL. */
kforge_status kforge_conv(const kforge_tensor* x, const kforge_tensor* w, const kforge_tensor* bias,
                          const kforge_tensor* y, const kforge_conv_params* params, void* stream,
                          const char* variant);

/* The message of the last failed call on this thread ("" if none). Valid until the next call. */
const char* kforge_last_error(void);

const char* kforge_version(void);

#ifdef __cplusplus
}
#endif

#endif /* KFORGE_KFORGE_H */
