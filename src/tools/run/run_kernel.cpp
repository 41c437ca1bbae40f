// kforge run: load -> accepts? -> check against fp64 -> time.
#include "tools/run/run_kernel.hpp"

#include <fmt/format.h>

#include "bench/check.hpp"
#include "core/cuda_stream.hpp"

namespace kforge {

BenchRow task_row(const RunTask& task, const KernelImage& image, const Ceilings& ceilings) {
  const ConvProblem& p = task.problem;
  BenchRow row;
  row.suite = task.suite;
  row.case_name = task.case_name;
  row.variant = image.label;
  row.layout = layout_name(p.x_layout());
  row.dtype = dtype_name(p.dtype);
  row.problem = p.describe();
  row.flops = p.flops();
  row.bytes = p.min_bytes();
  row.floor_ms = roofline_floor_ms(p, ceilings);
  return row;
}

void judge_check(const RunTask& task, BenchRow& row) {
  const bool within = row.error.passes(task.max_calc_diff, task.max_rel_l2);
  row.status = within && row.deterministic ? "PASS" : "FAIL";
  if (!within)
    row.reason = fmt::format("not within the task's tolerance (calc_diff <= {:.1e}, rel_l2 <= {:.1e}, no NaN/Inf)",
                             task.max_calc_diff, task.max_rel_l2);
  else if (!row.deterministic)
    row.reason = "two runs on the same inputs differ bitwise";
}

KernelRun describe_kernel(const RunTask& task, const KernelImage& image, const LoadedKernel& kernel,
                          const Ceilings& ceilings) {
  KernelRun run{task_row(task, image, ceilings), kernel.resources(), {}};
  run.row.reason = kernel.accepts(task.problem);
  if (!run.row.reason.empty()) run.row.status = "SKIP";
  else run.geometry = kernel.geometry(task.problem);
  return run;
}

KernelRun run_kernel(const RunTask& task, const KernelImage& image, const Ceilings& ceilings,
                     const RunSettings& settings) {
  const LoadedKernel kernel(image);
  KernelRun run = describe_kernel(task, image, kernel, ceilings);
  if (run.row.status == "SKIP") return run;
  const ConvProblem& p = task.problem;
  try {
    const CudaStream stream;
    const CheckInputs in = make_check_inputs(p, settings.seed, settings.reference, stream.get());
    const auto launch = [&](void* y, cudaStream_t s) { kernel.launch(p, in.x.get(), in.w.get(), in.b.get(), y, s); };
    const CheckOutcome checked = check_output(p, in, launch, stream.get());
    run.row.error = checked.error;
    run.row.deterministic = checked.deterministic;
    run.row.reference = in.reference;
    judge_check(task, run.row);
    if (settings.time && run.row.status == "PASS") {
      const DeviceBuffer y(output_bytes(p));
      run.row.timing = time_on_stream([&](cudaStream_t s) { launch(y.get(), s); }, stream.get(), settings.timer);
    }
  } catch (const Error& e) {
    run.row.status = "ERROR";
    run.row.reason = e.what();
    cudaGetLastError();
  }
  return run;
}

}  // namespace kforge
