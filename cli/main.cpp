// kforge: the workbench CLI. Every subcommand iterates the variant registry through the shared bench loop.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "bench/bench.hpp"
#include "cli_util.hpp"
#include "cmd_asm.hpp"
#include "cmd_compare.hpp"
#include "cmd_history.hpp"
#include "cmd_run.hpp"
#include "cmd_profile.hpp"
#include "cmd_report.hpp"
#include "cmd_tune.hpp"
#include "dispatch/registry.hpp"
#include "measure/ceilings.hpp"
#include "measure/device_info.hpp"
#include "printers.hpp"
#include "tools/build_info.hpp"
#include "tools/history.hpp"

namespace {

using namespace kforge;
using cli::require_gpu;
using cli::utc_stamp;

struct BenchArgs {
  std::string suite = "depthwise";
  std::vector<std::string> cases, variants;
  std::string layout = "ncdhw", dtype = "bf16", activation = "none", out_dir, torch_json;
  bool no_time = false, interleave = false;
  double max_seconds = 2.0;
  int min_samples = TimerOptions{}.min_samples;
  int samples_per_visit = TimerOptions{}.samples_per_visit;
  double settle_ms = TimerOptions{}.settle_ms;
  bool no_history = false;
  std::string history_db;  // "" : the default database
};

// Adds the options every benchmarking command shares for the history.
void add_history_options(CLI::App* cmd, BenchArgs& a) {
  cmd->add_flag("--no-history", a.no_history, "do not append the rows to the history database");
  cmd->add_option("--db", a.history_db, "history database (default: $KFORGE_HISTORY, else the XDG data folder)");
}

int run_bench(const BenchArgs& a) {
  // The arguments first, on any machine: an unknown suite, --case, --variant, dtype or activation is an error
  // before the GPU is asked for and before any work.
  const Suite suite = load_suite(find_suite_file(a.suite));
  for (const std::string& name : a.cases) suite.find(name);
  BenchOptions opt;
  opt.dtype = parse_dtype(a.dtype);
  opt.activation = parse_activation(a.activation);
  opt.variants = a.variants;
  bench_variants(suite, opt);
  if (int rc = require_gpu()) return rc;
  // Opened before the run: a locked or corrupt database fails before the run, not after it.
  std::optional<HistoryDb> history;
  if (!a.no_history) history.emplace(cli::history_db_path(a.history_db));
  opt.time = !a.no_time;
  opt.timer.max_seconds = a.max_seconds;
  opt.timer.min_samples = a.min_samples;
  opt.timer.max_samples = std::max(opt.timer.max_samples, a.min_samples);
  opt.timer.samples_per_visit = a.samples_per_visit;
  opt.timer.settle_ms = a.settle_ms;
  opt.interleave = a.interleave;
  opt.on_row = [](const BenchRow& r) {
    std::cerr << fmt::format("kforge bench:   {:<36} {:<5} {}\n", r.variant, r.status,
                             r.timing ? fmt::format("{:.4f} ms", r.timing->median_ms) : r.reason);
  };
  const DeviceInfo dev = query_device();
  const Ceilings ceil = load_or_measure_ceilings(dev);
  std::vector<Layout> layouts;
  if (a.layout == "both") layouts = {Layout::ncdhw, Layout::ndhwc};
  else layouts = {parse_layout(a.layout)};

  std::vector<BenchRow> rows;
  for (const SuiteCase& c : suite.cases) {
    if (!a.cases.empty() && std::find(a.cases.begin(), a.cases.end(), c.name) == a.cases.end()) continue;
    for (Layout l : layouts) {
      opt.layout = l;
      std::cerr << fmt::format("kforge bench: {} {} ...\n", c.name, layout_name(l));
      auto r = bench_case(suite, c, opt, ceil);
      rows.insert(rows.end(), r.begin(), r.end());
    }
  }
  if (!a.torch_json.empty() && opt.activation != Activation::none)
    std::cerr << "kforge bench: x torch left out: the PyTorch timings are of the conv without the activation\n";
  else if (!a.torch_json.empty())
    attach_torch_times(rows, a.torch_json);

  std::cout << fmt::format("# {} ({} SMs), ceilings: copy {:.2f} TB/s, bf16 GEMM {:.0f} TFLOP/s; {} {}\n", dev.name,
                           dev.sm_count, ceil.copy_tbps, ceil.gemm_bf16_tflops, a.dtype, utc_stamp());
  cli::print_bench_table(std::cout, rows);
  if (!a.out_dir.empty()) {
    std::filesystem::create_directories(a.out_dir);
    const std::string path = a.out_dir + "/bench-" + a.suite + "-" + utc_stamp() + ".json";
    nlohmann::json j{{"device", dev.to_json()}, {"ceilings", ceil.to_json()}, {"rows", nlohmann::json::array()}};
    for (const BenchRow& r : rows) j["rows"].push_back(r.to_json());
    std::ofstream(path) << j.dump(1) << "\n";
    std::cerr << "kforge bench: wrote " << path << "\n";
  }
  if (history) {
    const HistoryRun run{utc_iso_now(), build_git_revision(), dev.name, dev.sm_count, "bench", ceil.copy_tbps,
                         ceil.gemm_bf16_tflops};
    history->append(history_records(rows, run));
    std::cerr << "kforge bench: appended " << rows.size() << " rows to " << history->path() << "\n";
  }
  const bool failed = std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) {
    return r.status == "FAIL" || r.status == "ERROR";
  });
  return failed ? 1 : 0;
}

int run_device(bool json) {
  if (int rc = require_gpu()) return rc;
  const DeviceInfo d = query_device();
  if (json) {
    std::cout << d.to_json().dump(1) << "\n";
    return 0;
  }
  std::cout << fmt::format(
      "{} (sm_{}{}), {} SMs\n"
      "shared memory: {} KiB per SM, {} KiB per block (opt-in), {} KiB per block (default)\n"
      "L2: {} MiB (persisting max {} MiB); registers: {} per SM, {} per block\n"
      "threads per SM: {}, blocks per SM: {}; clocks: SM {} MHz, memory {} MHz, bus {} bits "
      "(theoretical DRAM {:.2f} TB/s)\n"
      "memory: {:.1f} GiB; driver {}, runtime {}\n",
      d.name, d.cc_major, d.cc_minor, d.sm_count, d.smem_per_sm / 1024, d.smem_per_block_optin / 1024,
      d.smem_per_block / 1024, d.l2_bytes / (1024 * 1024), d.persisting_l2_max / (1024 * 1024), d.regs_per_sm,
      d.regs_per_block, d.max_threads_per_sm, d.max_blocks_per_sm, d.sm_clock_khz / 1000, d.mem_clock_khz / 1000,
      d.mem_bus_bits, d.peak_dram_tbps(), d.global_mem_bytes / double(1 << 30), d.driver_version, d.runtime_version);
  return 0;
}

int run_ceilings(bool remeasure, bool json) {
  if (int rc = require_gpu()) return rc;
  const DeviceInfo d = query_device();
  const Ceilings c = load_or_measure_ceilings(d, remeasure);
  if (json) {
    std::cout << c.to_json().dump(1) << "\n";
    return 0;
  }
  std::cout << fmt::format("{} ({} SMs), measured {}\ncopy {:.3f} TB/s (read + write)\nbf16 GEMM {:.1f} TFLOP/s\n"
                           "fp8 e4m3 GEMM {:.1f} TFLOP/s\ncache: {}\n",
                           c.device, c.sm_count, c.measured_at, c.copy_tbps, c.gemm_bf16_tflops, c.gemm_fp8_tflops,
                           ceilings_cache_path(d));
  return 0;
}

int run_list(const std::string& family) {
  for (const Variant& v : Registry::instance().all()) {
    if (!family.empty() && v.family != family) continue;
    std::cout << fmt::format("{:<36} {:<10} {}\n", v.name, v.family, v.idea);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kforge: fast 3D convolution for NVIDIA Hopper, and the workbench that proves its numbers.\n"
               "Without a subcommand: the demo (depthwise 'evokernel' case against cuDNN)."};
  app.require_subcommand(0, 1);

  BenchArgs demo_args;
  demo_args.cases = {"evokernel"};
  demo_args.layout = "both";
  auto* demo = app.add_subcommand("demo", "depthwise 'evokernel' case: every variant against cuDNN, checked vs fp64");
  demo->add_option("--out", demo_args.out_dir, "write the JSON rows into this folder");
  demo->add_option("--torch-json", demo_args.torch_json, "PyTorch timings (torch_baseline.py --json) for 'x torch'");
  add_history_options(demo, demo_args);

  BenchArgs bench_args;
  auto* bench = app.add_subcommand("bench", "run a suite: every accepting variant, checked vs fp64 and timed");
  bench->add_option("suite", bench_args.suite, "depthwise | dense")->required();
  bench->add_option("--case", bench_args.cases, "case name (repeatable; default: every case)");
  bench->add_option("--variant", bench_args.variants, "variant name (repeatable; default: the family + cuDNN)");
  bench->add_option("--layout", bench_args.layout, "ncdhw | ndhwc | both")->check(CLI::IsMember({"ncdhw", "ndhwc", "both"}));
  bench->add_option("--dtype", bench_args.dtype, "bf16 | f16 | f32");
  bench->add_option("--activation", bench_args.activation, "none | silu: fused after the bias (cuDNN then refuses)")
      ->check(CLI::IsMember({"none", "silu"}));
  bench->add_option("--out", bench_args.out_dir, "write the JSON rows into this folder");
  bench->add_option("--torch-json", bench_args.torch_json, "PyTorch timings (torch_baseline.py --json) for 'x torch'");
  bench->add_option("--max-seconds", bench_args.max_seconds, "sampling time limit per variant");
  bench->add_option("--min-samples", bench_args.min_samples,
                    "samples of each variant before a stable mean may stop the sampling (the time limit still does)")
      ->check(CLI::PositiveNumber);
  bench->add_option("--samples-per-visit", bench_args.samples_per_visit,
                    "with --interleave: samples of a variant in a row at each of its turns (bench/carryover.py)")
      ->check(CLI::PositiveNumber);
  bench->add_option("--settle-ms", bench_args.settle_ms,
                    "with --interleave: untimed runs of a variant for this long before each of its turns (not counted "
                    "in --max-seconds, but the run stops once settling passes 4x the run's time limit; kforge tune's "
                    "final round uses 200)")
      ->check(CLI::NonNegativeNumber);
  bench->add_flag("--no-time", bench_args.no_time, "check correctness only");
  bench->add_flag("--interleave", bench_args.interleave,
                  "time the variants that pass round-robin after all checks (no order effect; see src/dense/NOTES.md, Power)");
  add_history_options(bench, bench_args);

  bool json = false, remeasure = false;
  auto* device = app.add_subcommand("device", "what the GPU has (cudaGetDeviceProperties + driver)");
  device->add_flag("--json", json, "print JSON");
  auto* ceilings = app.add_subcommand("ceilings", "measured copy bandwidth and cuBLAS bf16/fp8 GEMM rates (cached)");
  ceilings->add_flag("--json", json, "print JSON");
  ceilings->add_flag("--remeasure", remeasure, "measure again even when cached");

  std::string family;
  auto* list = app.add_subcommand("list", "the registered variants");
  list->add_option("--family", family, "depthwise | dense | baseline");

  cli::HistoryCommand history(app);
  cli::AsmCommand assembly(app);
  cli::RunCommand run(app);
  cli::CompareCommand compare(app);
  cli::ProfileCommand profile(app);
  cli::ReportCommand report(app);
  cli::TuneCommand tune(app);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*bench) return run_bench(bench_args);
    if (*device) return run_device(json);
    if (*ceilings) return run_ceilings(remeasure, json);
    if (*list) return run_list(family);
    if (history.selected()) return history.run();
    if (assembly.selected()) return assembly.run();
    if (run.selected()) return run.run();
    if (compare.selected()) return compare.run();
    if (profile.selected()) return profile.run();
    if (report.selected()) return report.run();
    if (tune.selected()) return tune.run();
    return run_bench(demo_args);  // demo, explicitly or by default
  } catch (const kforge::Error& e) {
    std::cerr << "kforge: " << e.what() << "\n";
    return 1;
  }
}
