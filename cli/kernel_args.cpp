// Shared wiring of `kforge run` and `kforge compare`.
#include "kernel_args.hpp"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "gpu.hpp"
#include "tools/build_info.hpp"

namespace kforge::cli {

void KernelCommandArgs::add_to(CLI::App* cmd) {
  cmd->add_option("--task", task, "SUITE/CASE (e.g. depthwise/evokernel) or a task file (.json)")->required();
  cmd->add_option("--layout", layout, "ncdhw | ndhwc (default: the task's; suite cases: ncdhw)")
      ->check(CLI::IsMember({"ncdhw", "ndhwc"}));
  cmd->add_option("--dtype", dtype, "bf16 | f16 | f32 (default: the task's; suite cases: bf16)");
  cmd->add_option("--arch", arch, "target without a GPU (default sm_90a); with one, its own");
  seed_option = cmd->add_option("--seed", seed, "seed of the random inputs (default: a fresh one, printed)");
  cmd->add_option("--max-seconds", max_seconds, "sampling time limit in seconds")->capture_default_str();
  cmd->add_flag("--no-time", no_time, "check correctness only");
  cmd->add_option("--out", out_dir, "write a JSON report into this folder");
  cmd->add_flag("--no-history", no_history, "do not append to the history database");
  cmd->add_option("--db", history_db, "history database (default: $KFORGE_HISTORY, else the XDG data folder)");
}

uint64_t KernelCommandArgs::seed_or_fresh() const {
  if (seed_option->count() > 0) return seed;
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

RunSettings KernelCommandArgs::settings(uint64_t seed) const {
  RunSettings s;
  s.seed = seed;
  s.time = !no_time;
  s.timer.max_seconds = max_seconds;
  return s;
}

CLI::Option* add_repeatable(CLI::App* cmd, const std::string& names, std::vector<std::string>& values,
                            const std::string& help) {
  // One value per occurrence: `-D A=1 kernel.cu` must not swallow the kernel file.
  return cmd->add_option(names, values, help)->allow_extra_args(false);
}

std::vector<std::string> compile_options(const std::vector<std::string>& defines, const std::vector<std::string>& opts) {
  std::vector<std::string> out;
  for (const std::string& d : defines) out.push_back("-D" + d);
  out.insert(out.end(), opts.begin(), opts.end());
  return out;
}

std::optional<DeviceInfo> usable_gpu(std::string* why) {
  *why = gpu_unavailable();
  if (!why->empty()) return std::nullopt;
  return query_device();
}

std::string target_arch(const std::string& arch_option, const std::optional<DeviceInfo>& gpu) {
  if (!gpu) return arch_option.empty() ? "sm_90a" : arch_option;
  const std::string own = device_arch(*gpu);
  if (!arch_option.empty() && arch_option != own)
    throw Error("expected --arch " + own + " for this GPU (" + gpu->name + "), but got " + arch_option +
                ": a cubin runs only on its own architecture");
  return own;
}

nlohmann::json build_json(const KernelImage& image) {
  const char* kind = image.kind == ImageKind::ptx ? "ptx" : image.key.empty() ? "cubin" : "cuda";
  return {{"file", image.file}, {"label", image.label}, {"kind", kind},     {"cache", image.cache},
          {"key", image.key},   {"cache_file", image.cache_file},          {"log", image.log}};
}

nlohmann::json kernel_run_json(const KernelRun& run) {
  const KernelResources& r = run.resources;
  nlohmann::json j{{"row", run.row.to_json()},
                   {"registers", r.registers},
                   {"static_smem_bytes", r.shared_bytes},
                   {"local_bytes", r.local_bytes},
                   {"blocks", run.geometry.blocks},
                   {"threads", run.geometry.threads},
                   {"dynamic_smem_bytes", run.geometry.dynamic_smem_bytes}};
  if (r.spill_store_bytes) j["spill_store_bytes"] = *r.spill_store_bytes;
  if (r.spill_load_bytes) j["spill_load_bytes"] = *r.spill_load_bytes;
  return j;
}

nlohmann::json task_json(const RunTask& task, uint64_t seed) {
  return {{"name", task.name},         {"suite", task.suite},           {"case", task.case_name},
          {"problem", task.problem.describe()}, {"max_calc_diff", task.max_calc_diff},
          {"max_rel_l2", task.max_rel_l2}, {"seed", seed}};
}

void write_report(const std::string& dir, const std::string& prefix, const nlohmann::json& report) {
  const std::time_t t = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&t));
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + prefix + "-" + stamp + ".json";
  std::ofstream(path) << report.dump(1) << "\n";
  std::cerr << "kforge: wrote " << path << "\n";
}

void append_history(HistoryDb& db, const std::vector<BenchRow>& rows, const std::vector<const KernelImage*>& images,
                    const DeviceInfo& gpu, const std::string& command) {
  std::vector<HistoryRecord> records =
      history_records(rows, {utc_iso_now(), build_git_revision(), gpu.name, gpu.sm_count, command});
  for (size_t i = 0; i < records.size(); ++i) {
    const KernelImage& image = *images[i];
    if (image.key.empty()) continue;
    records[i].notes += (records[i].notes.empty() ? "" : "; ") + std::string("build ") + image.key;
  }
  db.append(records);
  std::cerr << "kforge " << command << ": appended " << records.size() << " rows to " << db.path() << "\n";
}

}  // namespace kforge::cli
