// `kforge run` on a GPU: load a kernel image, check it on a task (fresh random inputs, the fp64 reference, NaN
// poison, a second run compared bitwise) and time it on the measurement core.
#pragma once

#include <cstdint>

#include "bench/bench.hpp"
#include "measure/ceilings.hpp"
#include "measure/timer.hpp"
#include "tools/asm.hpp"
#include "tools/run/kernel_build.hpp"
#include "tools/run/launch_rule.hpp"
#include "tools/run/loaded_kernel.hpp"
#include "tools/run/task.hpp"

namespace kforge {

struct RunSettings {
  uint64_t seed = BenchOptions{}.seed;  // inputs are drawn from seed, seed + 1 (w) and seed + 2 (bias)
  ReferenceOptions reference;
  bool time = true;
  TimerOptions timer;
};

struct KernelRun {
  BenchRow row;  // PASS | FAIL | SKIP (the kernel refuses the task: reason) | ERROR; variant = the image's label
  KernelResources resources;
  LaunchGeometry geometry;
};

// The row of `image` on `task` before anything ran: task, problem, FLOPs, minimal bytes, roofline floor.
BenchRow task_row(const RunTask& task, const KernelImage& image, const Ceilings& ceilings);

// Sets row.status (PASS when within the task's tolerance and deterministic, else FAIL with the reason) from a
// check's metrics.
void judge_check(const RunTask& task, BenchRow& row);

// Loads, checks and (when it passes and settings.time) times `image` on `task`. Errors after loading (a failed
// launch, a fault) become an ERROR row; a load failure throws kforge::Error.
KernelRun run_kernel(const RunTask& task, const KernelImage& image, const Ceilings& ceilings,
                     const RunSettings& settings);

// What a loaded kernel reports about itself for `task`.
KernelRun describe_kernel(const RunTask& task, const KernelImage& image, const LoadedKernel& kernel,
                          const Ceilings& ceilings);

}  // namespace kforge
