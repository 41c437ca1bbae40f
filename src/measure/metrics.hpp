// Correctness metrics of an output against a float64 reference.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "kforge/types.hpp"

namespace kforge {

struct ErrorStats {
  int64_t count = 0;        // elements compared
  int64_t nan_count = 0;    // NaN in the output (a NaN never passes)
  int64_t inf_count = 0;    // +-Inf in the output where the reference is finite
  double calc_diff = 1.0;   // 1 - 2*sum(x*y) / sum(x*x + y*y)   (x: output, y: reference)
  double rel_l2 = 1.0;      // ||x - y||_2 / ||y||_2
  double max_abs = 0.0;     // max |x - y|
  double ref_l2 = 0.0;      // ||y||_2, to tell an all-zero reference apart
  double cosine = 0.0;      // sum(x*y) / sqrt(sum(x*x) * sum(y*y)); 1 when both are all zero

  // calc_diff <= max_calc_diff and rel_l2 <= max_rel_l2 and no NaN/Inf.
  bool passes(double max_calc_diff, double max_rel_l2) const;
  std::string summary() const;  // "calc_diff 1.2e-07 rel_l2 4.1e-04 max_abs 3.9e-03 nan 0 inf 0"
};

// Host buffers: `out` holds n elements of `dtype`, `ref` n doubles.
ErrorStats compare_host(const void* out, DType dtype, const double* ref, int64_t n);

// Device buffers; synchronizes `stream` and returns the result (sums accumulated in double on the GPU).
ErrorStats compare_device(const void* out, DType dtype, const double* ref, int64_t n, cudaStream_t stream);

// Two device outputs of the same dtype against each other, `ref` decoded to double as the reference (kforge
// compare: B against A); synchronizes `stream`.
ErrorStats compare_outputs_device(const void* out, const void* ref, DType dtype, int64_t n, cudaStream_t stream);

// Bitwise equality of two device buffers of `bytes` bytes (determinism checks); synchronizes `stream`.
bool bitwise_equal_device(const void* a, const void* b, size_t bytes, cudaStream_t stream);

}  // namespace kforge
