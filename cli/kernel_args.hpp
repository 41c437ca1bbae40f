// What `kforge run` and `kforge compare` share: the task options, the target architecture, compile options from
// -D/--opt, the seed, the history and the JSON report.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "measure/device_info.hpp"
#include "tools/history.hpp"
#include "tools/run/kernel_build.hpp"
#include "tools/run/run_kernel.hpp"
#include "tools/run/task.hpp"

namespace kforge::cli {

struct KernelCommandArgs {
  std::string task, layout, dtype, arch, out_dir, history_db;
  uint64_t seed = 0;
  double max_seconds = 2.0;
  bool no_time = false, no_history = false;
  CLI::Option* seed_option = nullptr;

  // Registers the shared options on `cmd`.
  void add_to(CLI::App* cmd);
  // --seed when given, else a fresh random seed (printed, so the run can be repeated with --seed).
  uint64_t seed_or_fresh() const;
  // The run settings these options ask for, with `seed` (from seed_or_fresh()).
  RunSettings settings(uint64_t seed) const;
};

// Registers a repeatable option that takes one value per occurrence (-D A=1 -D B=2).
CLI::Option* add_repeatable(CLI::App* cmd, const std::string& names, std::vector<std::string>& values,
                            const std::string& help);

// NVRTC options from -D NAME[=VALUE] values and raw --opt values, in that order.
std::vector<std::string> compile_options(const std::vector<std::string>& defines, const std::vector<std::string>& opts);

// The GPU when one is usable, else nullopt with *why set.
std::optional<DeviceInfo> usable_gpu(std::string* why);

// The architecture to build for: the GPU's (an --arch that differs is an error), else --arch, else sm_90a.
std::string target_arch(const std::string& arch_option, const std::optional<DeviceInfo>& gpu);

// The JSON of a build and of a run, for --out reports.
nlohmann::json build_json(const KernelImage& image);
nlohmann::json kernel_run_json(const KernelRun& run);
nlohmann::json task_json(const RunTask& task, uint64_t seed);

// Writes `report` to DIR/<prefix>-<UTC time>.json and says so on stderr.
void write_report(const std::string& dir, const std::string& prefix, const nlohmann::json& report);

// Appends rows[i] (built from images[i]) to the history as one run of `command` ("run" or "compare"); each
// row's notes end with its build's cache key, which names the exact source and headers.
void append_history(HistoryDb& db, const std::vector<BenchRow>& rows, const std::vector<const KernelImage*>& images,
                    const DeviceInfo& gpu, const std::string& command);

}  // namespace kforge::cli
