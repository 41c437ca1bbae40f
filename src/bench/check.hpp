// One correctness check, shared by `kforge bench`, `run` and `compare`: fresh random inputs and their fp64
// reference, then: poison the output with NaN, run, compare with the reference, poison a second output, run
// again and compare both bitwise (determinism).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "kforge/conv.hpp"
#include "measure/metrics.hpp"

namespace kforge {

// Device inputs of one problem in its strides, uniform in [-1, 1) from `seed` (x: seed, w: seed + 1, bias: seed + 2).
struct ConvInputs {
  DeviceBuffer x, w, b;  // b is empty when the problem has no bias
};
ConvInputs random_inputs(const ConvProblem& p, uint64_t seed, cudaStream_t stream);

// Which fp64 reference a check uses, by the problem's multiply-adds.
struct ReferenceOptions {
  double cpu_max_macs = 2e8;        // up to this: the multithreaded CPU reference of every output
  double gpu_full_max_macs = 6e11;  // up to this: the GPU reference of every output (about a second at most)
  // Above: every output channel at sampled output positions (the corners of each batch's output volume, where
  // padding and tile edges meet, plus uniformly random ones), about this many multiply-adds' worth. A full fp64
  // pass of the largest dense cases would take minutes per check.
  double sampled_macs = 2e11;
};

// Inputs of one check: drawn from `seed`, and the fp64 reference of exactly those inputs: of every output (in y's
// strides), or when `samples` > 0 of every output channel at those output positions (ref[i * K + k]).
struct CheckInputs {
  DeviceBuffer x, w, b, ref;
  std::string reference;   // "cpu-fp64" | "gpu-fp64" | "gpu-fp64-sampled(P positions x K)"
  DeviceBuffer positions;  // int64 linear (n, od, oh, ow) indices of the sampled reference
  int64_t samples = 0;
};

CheckInputs make_check_inputs(const ConvProblem& p, uint64_t seed, const ReferenceOptions& ref, cudaStream_t s);

// The sampled output positions of a problem (exposed for tests): corners first, then random ones.
std::vector<int64_t> sample_positions(const ConvProblem& p, uint64_t seed, double sampled_macs);

// Bytes of y's span (the problems the workbench builds are dense in one of two layouts).
size_t output_bytes(const ConvProblem& p);

// Enqueues the kernel under test on the stream, writing its output to `y` (output_bytes(p) bytes).
using OutputLaunch = std::function<void(void* y, cudaStream_t stream)>;

struct CheckOutcome {
  ErrorStats error;            // first run against the reference (at the sampled positions when it is sampled)
  bool deterministic = false;  // second run bitwise equal to the first
  DeviceBuffer output;         // the first run's output
};

CheckOutcome check_output(const ConvProblem& p, const CheckInputs& in, const OutputLaunch& launch, cudaStream_t s);

}  // namespace kforge
