// `kforge run` wiring: task -> GPU? -> build (cached) -> run -> print, report, history.
#include "cmd_run.hpp"

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cmd_history.hpp"
#include "measure/ceilings.hpp"
#include "run_printers.hpp"

namespace kforge::cli {

RunCommand::RunCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("run", "compile a kernel of the run ABI (NVRTC, cached) or load a PTX/cubin, check it "
                                   "against fp64 and time it on a task");
  cmd_->add_option("file", file_, "kernel: CUDA source, .ptx or .cubin (docs/run-kernels.md)")
      ->required()
      ->check(CLI::ExistingFile);
  add_repeatable(cmd_, "-D,--define", defines_, "NAME[=VALUE]: a macro for the CUDA source (repeatable)");
  add_repeatable(cmd_, "--opt", opts_, "an NVRTC option, e.g. --opt=-maxrregcount=64 (repeatable)");
  args_.add_to(cmd_);
}

int RunCommand::run() const {
  const RunTask task = resolve_task(args_.task, args_.dtype, args_.layout);
  std::string no_gpu;
  const std::optional<DeviceInfo> gpu = usable_gpu(&no_gpu);
  const std::string arch = target_arch(args_.arch, gpu);
  // Opened first: a locked or corrupt database fails before the run, not after it.
  std::optional<HistoryDb> history;
  if (gpu && !args_.no_history) history.emplace(history_db_path(args_.history_db));

  const KernelImage image = build_kernel({file_, compile_options(defines_, opts_), arch},
                                         KernelCache::default_location(), default_include_dirs());
  const uint64_t seed = args_.seed_or_fresh();
  print_task(std::cout, task, seed);
  print_build(std::cout, "", image, arch);
  if (!gpu) {
    std::cerr << "kforge run: " << no_gpu << ": built for " << arch << " only; running needs an NVIDIA GPU\n";
    return 2;
  }

  const Ceilings ceilings = load_or_measure_ceilings(*gpu);
  const KernelRun result = run_kernel(task, image, ceilings, args_.settings(seed));
  print_kernel_run(std::cout, "", result);

  if (!args_.out_dir.empty()) {
    write_report(args_.out_dir, "run",
                 {{"device", gpu->to_json()}, {"ceilings", ceilings.to_json()}, {"task", task_json(task, seed)},
                  {"build", build_json(image)}, {"run", kernel_run_json(result)}});
  }
  if (history) append_history(*history, {result.row}, {&image}, *gpu, "run");
  return result.row.status == "PASS" ? 0 : 1;
}

}  // namespace kforge::cli
