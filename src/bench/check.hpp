// One correctness check, shared by `kforge bench`, `run` and `compare`: fresh random inputs and their fp64
// reference, then: poison the output with NaN, run, compare with the reference, poison a second output, run
// again and compare both bitwise (determinism).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>

#include "core/device_buffer.hpp"
#include "kforge/conv.hpp"
#include "measure/metrics.hpp"

namespace kforge {

// Inputs of one check: drawn from `seed`, and the fp64 reference of exactly those inputs (in y's strides).
struct CheckInputs {
  DeviceBuffer x, w, b, ref;
  std::string reference;  // "cpu-fp64" | "gpu-fp64"
};

// The CPU reference up to `cpu_reference_max_macs` multiply-adds, the GPU one above.
CheckInputs make_check_inputs(const ConvProblem& p, uint64_t seed, double cpu_reference_max_macs, cudaStream_t s);

// Bytes of y's span (the problems the workbench builds are dense in one of two layouts).
size_t output_bytes(const ConvProblem& p);

// Enqueues the kernel under test on the stream, writing its output to `y` (output_bytes(p) bytes).
using OutputLaunch = std::function<void(void* y, cudaStream_t stream)>;

struct CheckOutcome {
  ErrorStats error;            // first run against the reference
  bool deterministic = false;  // second run bitwise equal to the first
  DeviceBuffer output;         // the first run's output
};

CheckOutcome check_output(const ConvProblem& p, const CheckInputs& in, const OutputLaunch& launch, cudaStream_t s);

}  // namespace kforge
