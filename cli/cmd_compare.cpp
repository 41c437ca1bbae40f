// `kforge compare` wiring: task -> GPU? -> build A and B (cached) -> compare -> print, report, history.
#include "cmd_compare.hpp"

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cmd_history.hpp"
#include "measure/ceilings.hpp"
#include "run_printers.hpp"

namespace kforge::cli {
namespace {

nlohmann::json verdict_json(const AbStats& v) {
  return {{"verdict", ab_verdict_name(v.verdict)}, {"reason", v.reason},
          {"median_a_ms", v.median_a},             {"median_b_ms", v.median_b},
          {"ratio", v.ratio},                      {"ratio_ci", {v.ratio_ci.lo, v.ratio_ci.hi}},
          {"spread", v.spread},                    {"noise", v.noise},
          {"band", v.band}};
}

// Notes of the history rows: what each was compared with, and the outcome.
void annotate(KernelComparison& c) {
  const std::string outcome = !c.refusal.empty() ? "refused: " + c.refusal
                              : c.verdict        ? std::string("B ") + ab_verdict_name(c.verdict->verdict) +
                                                       " (B/A " + std::to_string(c.verdict->ratio) + ")"
                                                 : "checked only";
  c.a.row.reason += (c.a.row.reason.empty() ? "" : "; ") + std::string("compare A vs B ") + c.b.row.variant + ": " + outcome;
  c.b.row.reason += (c.b.row.reason.empty() ? "" : "; ") + std::string("compare B vs A ") + c.a.row.variant + ": " + outcome;
}

}  // namespace

CompareCommand::CompareCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("compare", "two builds of the run ABI on the same inputs: outputs compared, then "
                                       "interleaved timing and a noise-aware verdict for B against A");
  cmd_->add_option("A", file_a_, "the reference build: CUDA source, .ptx or .cubin")->required()->check(CLI::ExistingFile);
  cmd_->add_option("B", file_b_, "the build judged against A (may be the same file with other options)")
      ->required()
      ->check(CLI::ExistingFile);
  add_repeatable(cmd_, "-D,--define", defines_, "NAME[=VALUE] for both A and B (repeatable)");
  add_repeatable(cmd_, "--a-define", a_defines_, "NAME[=VALUE] for A only (repeatable)");
  add_repeatable(cmd_, "--b-define", b_defines_, "NAME[=VALUE] for B only (repeatable)");
  add_repeatable(cmd_, "--opt", opts_, "an NVRTC option for both, e.g. --opt=-maxrregcount=64 (repeatable)");
  add_repeatable(cmd_, "--a-opt", a_opts_, "an NVRTC option for A only (repeatable)");
  add_repeatable(cmd_, "--b-opt", b_opts_, "an NVRTC option for B only (repeatable)");
  cmd_->add_option("--min-samples", min_samples_, "timed samples of each at least")->capture_default_str();
  cmd_->add_option("--max-samples", max_samples_, "timed samples of each at most")->capture_default_str();
  args_.max_seconds = 5.0;
  args_.add_to(cmd_);
}

int CompareCommand::run() const {
  const RunTask task = resolve_task(args_.task, args_.dtype, args_.layout);
  std::string no_gpu;
  const std::optional<DeviceInfo> gpu = usable_gpu(&no_gpu);
  const std::string arch = target_arch(args_.arch, gpu);
  std::optional<HistoryDb> history;
  if (gpu && !args_.no_history) history.emplace(history_db_path(args_.history_db));

  auto side_options = [&](const std::vector<std::string>& defines, const std::vector<std::string>& opts) {
    std::vector<std::string> all_defines = defines_, all_opts = opts_;
    all_defines.insert(all_defines.end(), defines.begin(), defines.end());
    all_opts.insert(all_opts.end(), opts.begin(), opts.end());
    return compile_options(all_defines, all_opts);
  };
  const KernelCache cache = KernelCache::default_location();
  const std::vector<std::string> include_dirs = default_include_dirs();
  const KernelImage a = build_kernel({file_a_, side_options(a_defines_, a_opts_), arch}, cache, include_dirs);
  const KernelImage b = build_kernel({file_b_, side_options(b_defines_, b_opts_), arch}, cache, include_dirs);
  const uint64_t seed = args_.seed_or_fresh();
  print_task(std::cout, task, seed);
  print_build(std::cout, "A", a, arch);
  print_build(std::cout, "B", b, arch);
  if (!gpu) {
    std::cerr << "kforge compare: " << no_gpu << ": built both for " << arch << " only; comparing needs an NVIDIA GPU\n";
    return 2;
  }

  const Ceilings ceilings = load_or_measure_ceilings(*gpu);
  RunSettings settings = args_.settings(seed);
  settings.timer.min_samples = min_samples_;
  settings.timer.max_samples = max_samples_;
  KernelComparison c = compare_kernels(task, a, b, ceilings, settings);
  print_kernel_run(std::cout, "A", c.a);
  print_kernel_run(std::cout, "B", c.b);
  print_comparison(std::cout, c);

  if (!args_.out_dir.empty()) {
    nlohmann::json report{{"device", gpu->to_json()}, {"ceilings", ceilings.to_json()},
                          {"task", task_json(task, seed)}, {"a", {{"build", build_json(a)}, {"run", kernel_run_json(c.a)}}},
                          {"b", {{"build", build_json(b)}, {"run", kernel_run_json(c.b)}}},
                          {"bitwise_equal", c.bitwise_equal}, {"b_vs_a_calc_diff", c.b_vs_a.calc_diff},
                          {"b_vs_a_rel_l2", c.b_vs_a.rel_l2}, {"b_vs_a_cosine", c.b_vs_a.cosine},
                          {"refusal", c.refusal}};
    if (c.verdict) report["verdict"] = verdict_json(*c.verdict);
    write_report(args_.out_dir, "compare", report);
  }
  if (history) {
    annotate(c);
    append_history(*history, {c.a.row, c.b.row}, {&a, &b}, *gpu, "compare");
  }
  return c.refusal.empty() ? 0 : 3;
}

}  // namespace kforge::cli
