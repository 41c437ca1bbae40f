// The benchmark loop every command shares: case -> problem -> fresh inputs -> fp64 reference -> for each variant:
// poison, run, check, run again (determinism), time. Produces rows; printers (cli/) only format them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "bench/check.hpp"
#include "bench/suite.hpp"
#include "dispatch/registry.hpp"
#include "measure/ceilings.hpp"
#include "measure/metrics.hpp"
#include "measure/timer.hpp"

namespace kforge {

struct BenchRow;

struct BenchOptions {
  DType dtype = DType::bf16;
  Layout layout = Layout::ncdhw;
  Activation activation = Activation::none;  // fused after the bias (--activation); the suites' cases have none
  std::vector<std::string> variants;  // empty: every variant of the family that accepts, plus the cuDNN anchor
  uint64_t seed = 0x6b666f726765ull;  // base seed; every check draws fresh inputs from seed + a counter
  double max_calc_diff = 1e-5;
  double max_rel_l2 = 1e-2;
  ReferenceOptions reference;  // which fp64 reference checks use (CPU, GPU, sampled GPU)
  bool time = true;
  // Time the variants that pass round-robin (time_round_robin) after all checks, instead of one after another:
  // on a board at its power cap the later variants of a sequence run hotter. max_seconds then holds per variant.
  bool interleave = false;
  TimerOptions timer;
  // Called as each row is done (progress; a crash then names its variant); with `interleave`, once after its check
  // and once more after the round-robin timing.
  std::function<void(const BenchRow&)> on_row;
};

struct BenchRow {
  std::string suite, case_name, variant, layout, dtype, problem;
  std::string status;  // PASS | FAIL | SKIP (variant refused, reason set) | ERROR (reason set)
  std::string reason;
  ErrorStats error;
  bool deterministic = false;
  std::string reference;  // "cpu-fp64" | "gpu-fp64" | "gpu-fp64-sampled(P positions x K)"
  std::optional<Timing> timing;
  int round_robin = 0;  // the number of variants timed round-robin with this one included; 0: timed alone
  std::vector<std::string> samples_after;  // round-robin: the variant timed just before each sample ("" for none)
  int samples_per_visit = 0;               // round-robin: samples in a row per turn, after settle_ms of it alone
  double settle_ms = 0;
  double flops = 0, bytes = 0, floor_ms = 0;
  double tflops() const;       // achieved FLOP/s (1e12), 0 when untimed
  double tbps() const;         // minimal bytes / time (1e12)
  double pct_of_floor() const; // floor_ms / median_ms * 100: 100% is the roofline
  double x_cudnn = 0;          // cuDNN median / this median, same run; 0 when unknown
  double x_torch = 0;          // PyTorch median (given) / this median; 0 when unknown
  nlohmann::json to_json() const;
};

// The roofline floor of a problem: max(minimal bytes at the copy bandwidth, FLOPs at the bf16 GEMM rate).
double roofline_floor_ms(const ConvProblem& p, const Ceilings& ceilings);

// The variants a bench of `suite` runs: opt.variants by name (throws Error for an unknown one), else the suite's
// family and the cuDNN anchor.
std::vector<const Variant*> bench_variants(const Suite& suite, const BenchOptions& opt);

// Why the bench does not run `v` on `p`: its accepts() reason, or its max_bench_flops exceeded; "" when it does.
std::string bench_refusal(const Variant& v, const ConvProblem& p);

// One variant on one problem: refused (SKIP, reason bench_refusal), else checked
// against the fp64 reference on fresh inputs drawn from `seed` and, when it passes and opt.time is set, timed
// (ERROR when it throws). Fills every field but the labels (suite, case_name, layout, dtype), floor_ms and the
// ratios.
BenchRow bench_variant(const Variant& v, const ConvProblem& p, const BenchOptions& opt, uint64_t seed,
                       cudaStream_t stream);

// Times the PASS rows of `rows` (rows[i] is variants[i]'s check) round-robin on one set of random inputs drawn from
// `seed`: the variants run one after another on one stream, sharing the output and the largest workspace, for
// opt.timer.max_seconds per variant. Sets their timing and round_robin count (ERROR with the reason when it throws).
void time_passing_round_robin(const std::vector<const Variant*>& variants, std::vector<BenchRow>& rows,
                              const ConvProblem& p, const BenchOptions& opt, uint64_t seed, cudaStream_t stream);

// Runs one suite case for its family's variants (suite.family). Ceilings give the floor.
std::vector<BenchRow> bench_case(const Suite& suite, const SuiteCase& c, const BenchOptions& opt,
                                 const Ceilings& ceilings);

// PyTorch timings from ../shared/baseline/torch_baseline.py --json: fills x_torch where case and layout match.
void attach_torch_times(std::vector<BenchRow>& rows, const std::string& torch_json_path);

}  // namespace kforge
