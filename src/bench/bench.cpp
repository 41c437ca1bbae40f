// The benchmark loop: one case, every accepting variant, checked against fp64 and timed on the measurement core.
#include "bench/bench.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench/check.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "dispatch/registry.hpp"

namespace kforge {
namespace {

// Poison, run, check against the reference, run again poisoned, compare bitwise.
void check_variant(const Variant& v, const ConvProblem& p, const CheckInputs& in, const BenchOptions& opt,
                   cudaStream_t s, BenchRow& row) {
  const DeviceBuffer ws(v.workspace(p));
  const CheckOutcome o = check_output(
      p, in,
      [&](void* y, cudaStream_t st) {
        v.launch(p, {in.x.get(), in.w.get(), p.has_bias ? in.b.get() : nullptr, y, ws.get()}, st);
      },
      s);
  row.error = o.error;
  row.reference = in.reference;
  row.deterministic = o.deterministic;
  const bool ok = row.error.passes(opt.max_calc_diff, opt.max_rel_l2) && row.deterministic;
  row.status = ok ? "PASS" : "FAIL";
  if (!row.deterministic) row.reason = "two runs on the same inputs differ bitwise";
}

}  // namespace

double roofline_floor_ms(const ConvProblem& p, const Ceilings& ceilings) {
  return std::max(p.min_bytes() / (ceilings.copy_tbps * 1e12), p.flops() / (ceilings.gemm_bf16_tflops * 1e12)) * 1e3;
}

std::vector<const Variant*> bench_variants(const Suite& suite, const BenchOptions& opt) {
  const Registry& reg = Registry::instance();
  std::vector<const Variant*> out;
  if (!opt.variants.empty()) {
    for (const std::string& name : opt.variants) {
      const Variant* v = reg.find(name);
      if (!v) throw Error("unknown variant '" + name + "' (kforge list shows them)");
      out.push_back(v);
    }
    return out;
  }
  out = reg.family(suite.family);
  if (const Variant* anchor = reg.find("cudnn")) out.push_back(anchor);
  return out;
}

double BenchRow::tflops() const { return timing ? flops / (timing->median_ms * 1e-3) / 1e12 : 0; }
double BenchRow::tbps() const { return timing ? bytes / (timing->median_ms * 1e-3) / 1e12 : 0; }
double BenchRow::pct_of_floor() const { return timing ? floor_ms / timing->median_ms * 100.0 : 0; }

nlohmann::json BenchRow::to_json() const {
  nlohmann::json j{{"suite", suite},       {"case", case_name},   {"variant", variant},
                   {"layout", layout},     {"dtype", dtype},      {"problem", problem},
                   {"status", status},     {"reason", reason},    {"reference", reference},
                   {"deterministic", deterministic},
                   {"calc_diff", error.calc_diff}, {"rel_l2", error.rel_l2}, {"max_abs", error.max_abs},
                   {"nan", error.nan_count},       {"inf", error.inf_count},
                   {"flops", flops},       {"bytes", bytes},      {"floor_ms", floor_ms}};
  if (timing) {
    j["ms"] = timing->median_ms;
    j["min_ms"] = timing->min_ms;
    j["max_ms"] = timing->max_ms;
    j["stdev_ms"] = timing->stdev_ms;
    j["iqr_rel"] = timing->iqr_rel;
    j["samples"] = timing->samples_ms.size();
    j["samples_ms"] = timing->samples_ms;  // in timing order; round-robin: sample i of every variant is round i's
    if (round_robin > 0) {
      j["samples_after"] = samples_after;
      j["samples_per_visit"] = samples_per_visit;
      j["settle_ms"] = settle_ms;
    }
    j["stop"] = timing->stop_reason;
    j["round_robin"] = round_robin;
    j["tflops"] = tflops();
    j["tbps"] = tbps();
    j["pct_of_floor"] = pct_of_floor();
  }
  if (x_cudnn > 0) j["x_cudnn"] = x_cudnn;
  if (x_torch > 0) j["x_torch"] = x_torch;
  return j;
}

std::string bench_refusal(const Variant& v, const ConvProblem& p) {
  std::string reason = v.accepts(p);
  if (reason.empty() && v.max_bench_flops > 0 && p.flops() > v.max_bench_flops)
    reason = "not benchmarked above " + std::to_string(int64_t(v.max_bench_flops / 1e9)) +
             " GFLOP (a correctness fallback, seconds per run here)";
  return reason;
}

BenchRow bench_variant(const Variant& v, const ConvProblem& p, const BenchOptions& opt, uint64_t seed,
                       cudaStream_t s) {
  BenchRow row;
  row.variant = v.name;
  row.problem = p.describe();
  row.flops = p.flops();
  row.bytes = p.min_bytes();
  row.reason = bench_refusal(v, p);
  if (!row.reason.empty()) {
    row.status = "SKIP";
    return row;
  }
  try {
    const CheckInputs in = make_check_inputs(p, seed, opt.reference, s);
    check_variant(v, p, in, opt, s, row);
    if (opt.time && row.status == "PASS") {
      DeviceBuffer y(output_bytes(p)), ws(v.workspace(p));
      const ConvArgs args{in.x.get(), in.w.get(), p.has_bias ? in.b.get() : nullptr, y.get(), ws.get()};
      row.timing = time_on_stream([&](cudaStream_t st) { v.launch(p, args, st); }, s, opt.timer);
    }
  } catch (const Error& e) {
    row.status = "ERROR";
    row.reason = e.what();
    cudaGetLastError();
  }
  return row;
}

void time_passing_round_robin(const std::vector<const Variant*>& variants, std::vector<BenchRow>& rows,
                              const ConvProblem& p, const BenchOptions& opt, uint64_t seed, cudaStream_t s) {
  std::vector<size_t> passed;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].status == "PASS") passed.push_back(i);
  if (passed.empty()) return;
  try {
    const ConvInputs in = random_inputs(p, seed, s);
    size_t ws_bytes = 0;
    for (size_t i : passed) ws_bytes = std::max(ws_bytes, variants[i]->workspace(p));
    DeviceBuffer y(output_bytes(p)), ws(ws_bytes);
    const ConvArgs args{in.x.get(), in.w.get(), p.has_bias ? in.b.get() : nullptr, y.get(), ws.get()};
    std::vector<std::function<void(cudaStream_t)>> launches;
    for (size_t i : passed) launches.push_back([&, v = variants[i]](cudaStream_t st) { v->launch(p, args, st); });
    TimerOptions timer = opt.timer;
    timer.max_seconds *= static_cast<double>(passed.size());
    std::vector<Timing> timings = time_round_robin(launches, s, timer);
    for (size_t j = 0; j < passed.size(); ++j) {
      BenchRow& row = rows[passed[j]];
      for (int before : timings[j].preceded_by)
        row.samples_after.push_back(before < 0 ? "" : variants[passed[static_cast<size_t>(before)]]->name);
      row.timing = std::move(timings[j]);
      row.round_robin = static_cast<int>(passed.size());
      row.samples_per_visit = timer.samples_per_visit;
      row.settle_ms = timer.settle_ms;
    }
  } catch (const Error& e) {
    for (size_t i : passed) {
      rows[i].status = "ERROR";
      rows[i].reason = std::string("round-robin timing: ") + e.what();
    }
    cudaGetLastError();
  }
}

std::vector<BenchRow> bench_case(const Suite& suite, const SuiteCase& c, const BenchOptions& opt,
                                 const Ceilings& ceilings) {
  const ConvProblem p = c.problem(opt.dtype, opt.layout, opt.activation);
  cudaStream_t s;
  KF_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const double floor_ms = roofline_floor_ms(p, ceilings);
  const std::vector<const Variant*> variants = bench_variants(suite, opt);
  BenchOptions each = opt;
  each.time = opt.time && !opt.interleave;
  std::vector<BenchRow> rows;
  uint64_t check_no = 0;
  for (const Variant* v : variants) {
    BenchRow row = bench_variant(*v, p, each, opt.seed + 16 * check_no, s);
    // Fresh inputs for every variant's check: each must compute the same function on any valid input.
    if (row.status != "SKIP") ++check_no;
    row.suite = suite.name;
    row.case_name = c.name;
    row.layout = layout_name(opt.layout);
    row.dtype = dtype_name(opt.dtype);
    row.floor_ms = floor_ms;
    if (opt.on_row) opt.on_row(row);
    rows.push_back(std::move(row));
  }
  if (opt.time && opt.interleave) {
    time_passing_round_robin(variants, rows, p, opt, opt.seed + 16 * check_no, s);
    if (opt.on_row)
      for (const BenchRow& row : rows)
        if (row.round_robin > 0 || row.status == "ERROR") opt.on_row(row);
  }
  KF_CUDA_CHECK(cudaStreamDestroy(s));
  // Ratios against the anchor measured in this same run.
  const auto anchor = std::find_if(rows.begin(), rows.end(), [](const BenchRow& r) { return r.variant == "cudnn"; });
  if (anchor != rows.end() && anchor->timing) {
    for (BenchRow& r : rows)
      if (r.timing) r.x_cudnn = anchor->timing->median_ms / r.timing->median_ms;
  }
  return rows;
}

void attach_torch_times(std::vector<BenchRow>& rows, const std::string& torch_json_path) {
  std::ifstream in(torch_json_path);
  if (!in) throw Error("cannot open PyTorch timings " + torch_json_path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error("PyTorch timings " + torch_json_path + " are not valid JSON: " + e.what());
  }
  std::map<std::pair<std::string, std::string>, double> ms;
  for (const auto& r : j.value("rows", nlohmann::json::array()))
    if (r.contains("ms")) ms[{r.at("case").get<std::string>(), r.at("layout").get<std::string>()}] = r.at("ms").get<double>();
  for (BenchRow& r : rows) {
    const auto it = ms.find({r.case_name, r.layout});
    if (it != ms.end() && r.timing) r.x_torch = it->second / r.timing->median_ms;
  }
}

}  // namespace kforge
