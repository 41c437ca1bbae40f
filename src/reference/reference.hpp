// Float64 references of the convolution: a multithreaded CPU one for small shapes, a GPU one for large ones.
// Both read x, w, bias in the problem's dtype and strides, accumulate in double, and write y as double with
// the problem's y strides (so reference and kernel output compare element by element over the same buffer
// offsets). Both are fully general: groups, stride, dilation, asymmetric padding, bias, any strides.
#pragma once

#include <cuda_runtime_api.h>

#include "kforge/conv.hpp"

namespace kforge {

// Host pointers. y_ref must hold the span of y_strides (for dense layouts: problem.y_numel() doubles).
// threads = 0: all hardware threads.
void reference_conv_cpu(const ConvProblem& p, const void* x, const void* w, const void* bias, double* y_ref,
                        int threads = 0);

// Device pointers; asynchronous on `stream`.
void reference_conv_gpu(const ConvProblem& p, const void* x, const void* w, const void* bias, double* y_ref,
                        cudaStream_t stream);

// The reference at sampled output positions only (for problems too large to check every output in double):
// positions[i] (device) is a linear index over (N, Do, Ho, Wo); y_ref[i * K + k] gets output channel k there.
void reference_conv_gpu_sampled(const ConvProblem& p, const void* x, const void* w, const void* bias,
                                const int64_t* positions, int64_t count, double* y_ref, cudaStream_t stream);

// The kernel output y (in the problem's dtype and y strides) at the same samples, in the same order: out[i * K + k].
void gather_outputs(const ConvProblem& p, const void* y, const int64_t* positions, int64_t count, void* out,
                    cudaStream_t stream);

// Element value as double (host), for any kforge dtype.
double load_as_double(const void* base, DType dtype, int64_t index);

}  // namespace kforge
