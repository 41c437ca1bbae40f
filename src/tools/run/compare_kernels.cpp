// kforge compare: load both -> check both on the same inputs -> agreement -> interleaved timing -> verdict.
#include "tools/run/compare_kernels.hpp"

#include <fmt/format.h>

#include "bench/check.hpp"
#include "core/cuda_stream.hpp"

namespace kforge {
namespace {

// Why the pair cannot be timed because of one side; "" when that side ran and passed (or has not run yet).
std::string refusal_of(const KernelRun& run, const char* side) {
  if (run.row.status != "SKIP" && run.row.status != "FAIL") return "";
  return fmt::format("{} ({}) {}: {}", side, run.row.variant,
                     run.row.status == "SKIP" ? "refuses the task" : "fails against the fp64 reference",
                     run.row.reason);
}

std::string first_refusal(const KernelComparison& c) {
  const std::string a = refusal_of(c.a, "A");
  return a.empty() ? refusal_of(c.b, "B") : a;
}

}  // namespace

KernelComparison compare_kernels(const RunTask& task, const KernelImage& a, const KernelImage& b,
                                 const Ceilings& ceilings, const RunSettings& settings) {
  const LoadedKernel ka(a), kb(b);
  KernelComparison c;
  c.a = describe_kernel(task, a, ka, ceilings);
  c.b = describe_kernel(task, b, kb, ceilings);
  c.refusal = first_refusal(c);
  if (!c.refusal.empty()) {
    // The other build is not run either: its row says so rather than looking checked.
    for (KernelRun* run : {&c.a, &c.b}) {
      if (run->row.status == "SKIP") continue;
      run->row.status = "SKIP";
      run->row.reason = "not run: the other build refuses the task";
    }
    return c;
  }

  const ConvProblem& p = task.problem;
  const CudaStream stream;
  const CheckInputs in = make_check_inputs(p, settings.seed, settings.reference, stream.get());
  const auto launcher = [&](const LoadedKernel& k) {
    return [&p, &in, &k](void* y, cudaStream_t s) { k.launch(p, in.x.get(), in.w.get(), in.b.get(), y, s); };
  };
  const auto launch_a = launcher(ka), launch_b = launcher(kb);
  const CheckOutcome checked_a = check_output(p, in, launch_a, stream.get());
  const CheckOutcome checked_b = check_output(p, in, launch_b, stream.get());
  for (auto [run, checked] : {std::pair{&c.a, &checked_a}, std::pair{&c.b, &checked_b}}) {
    run->row.error = checked->error;
    run->row.deterministic = checked->deterministic;
    run->row.reference = in.reference;
    judge_check(task, run->row);
  }
  const size_t bytes = output_bytes(p);
  c.bitwise_equal = bitwise_equal_device(checked_a.output.get(), checked_b.output.get(), bytes, stream.get());
  c.b_vs_a = compare_outputs_device(checked_b.output.get(), checked_a.output.get(), p.dtype,
                                    static_cast<int64_t>(bytes / dtype_size(p.dtype)), stream.get());

  c.refusal = first_refusal(c);
  if (c.refusal.empty() && !c.bitwise_equal && !c.b_vs_a.passes(task.max_calc_diff, task.max_rel_l2))
    c.refusal = fmt::format("B's output differs from A's beyond the task's tolerance ({}; allowed calc_diff "
                            "{:.1e}, rel_l2 {:.1e}): they do not compute the same thing",
                            c.b_vs_a.summary(), task.max_calc_diff, task.max_rel_l2);
  if (!c.refusal.empty() || !settings.time) return c;

  const DeviceBuffer ya(bytes), yb(bytes);
  const PairedTiming t = time_interleaved([&](cudaStream_t s) { launch_a(ya.get(), s); },
                                          [&](cudaStream_t s) { launch_b(yb.get(), s); }, stream.get(), settings.timer);
  c.a.row.timing = t.a;
  c.b.row.timing = t.b;
  c.verdict = ab_verdict(t.a.samples_ms, t.b.samples_ms);
  return c;
}

}  // namespace kforge
