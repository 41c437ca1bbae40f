// The benchmark loop: one case, every accepting variant, checked against fp64 and timed on the measurement core.
#include "bench/bench.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/random.hpp"
#include "dispatch/registry.hpp"
#include "reference/reference.hpp"

namespace kforge {
namespace {

// Element span of a dense rank-5 view (the problems the bench builds are dense in one of two layouts).
int64_t span(const std::array<int64_t, 5>& strides, const std::array<int64_t, 5>& sizes) {
  int64_t last = 0;
  for (int i = 0; i < 5; ++i) last += (sizes[i] - 1) * strides[i];
  return last + 1;
}

// Inputs of one check: drawn fresh from `seed`, and the fp64 reference of exactly those inputs.
struct CheckedInputs {
  ConvInputs in;
  DeviceBuffer ref;
  std::string reference;
};

CheckedInputs make_inputs(const ConvProblem& p, uint64_t seed, const BenchOptions& opt, cudaStream_t s) {
  const size_t e = dtype_size(p.dtype);
  const int64_t nx = span(p.x_strides, {p.N, p.C, p.D, p.H, p.W});
  const int64_t nw = span(p.w_strides, {p.K, p.channels_per_group(), p.T, p.R, p.S});
  const int64_t ny = span(p.y_strides, {p.N, p.K, p.Do, p.Ho, p.Wo});
  CheckedInputs checked{random_inputs(p, seed, s), DeviceBuffer(ny * sizeof(double)), ""};
  const ConvInputs& in = checked.in;
  const double macs = static_cast<double>(p.y_numel()) * p.channels_per_group() * p.T * p.R * p.S;
  if (macs <= opt.cpu_reference_max_macs) {
    std::vector<char> hx(nx * e), hw(nw * e), hb(p.has_bias ? p.K * e : 0);
    std::vector<double> href(ny, 0.0);
    KF_CUDA_CHECK(cudaMemcpyAsync(hx.data(), in.x.get(), hx.size(), cudaMemcpyDeviceToHost, s));
    KF_CUDA_CHECK(cudaMemcpyAsync(hw.data(), in.w.get(), hw.size(), cudaMemcpyDeviceToHost, s));
    if (p.has_bias) KF_CUDA_CHECK(cudaMemcpyAsync(hb.data(), in.b.get(), hb.size(), cudaMemcpyDeviceToHost, s));
    KF_CUDA_CHECK(cudaStreamSynchronize(s));
    reference_conv_cpu(p, hx.data(), hw.data(), p.has_bias ? hb.data() : nullptr, href.data());
    KF_CUDA_CHECK(cudaMemcpyAsync(checked.ref.get(), href.data(), ny * sizeof(double), cudaMemcpyHostToDevice, s));
    KF_CUDA_CHECK(cudaStreamSynchronize(s));
    checked.reference = "cpu-fp64";
  } else {
    reference_conv_gpu(p, in.x.get(), in.w.get(), p.has_bias ? in.b.get() : nullptr,
                       static_cast<double*>(checked.ref.get()), s);
    checked.reference = "gpu-fp64";
  }
  return checked;
}

std::vector<const Variant*> variants_for(const Suite& suite, const BenchOptions& opt) {
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
  out = reg.family(suite.name);
  if (const Variant* anchor = reg.find("cudnn")) out.push_back(anchor);
  return out;
}

// Poison, run, check against the reference, run again poisoned, compare bitwise.
void check_variant(const Variant& v, const ConvProblem& p, const CheckedInputs& checked, const BenchOptions& opt,
                   cudaStream_t s, BenchRow& row) {
  const ConvInputs& in = checked.in;
  const size_t ybytes = output_bytes(p);
  DeviceBuffer y(ybytes), y2(ybytes), ws(v.workspace(p));
  ConvArgs args{in.x.get(), in.w.get(), p.has_bias ? in.b.get() : nullptr, y.get(), ws.get()};
  const int64_t n = static_cast<int64_t>(ybytes / dtype_size(p.dtype));
  fill_nan(y.get(), p.dtype, n, s);
  v.launch(p, args, s);
  KF_CUDA_CHECK(cudaStreamSynchronize(s));
  row.error = compare_device(y.get(), p.dtype, static_cast<const double*>(checked.ref.get()), n, s);
  row.reference = checked.reference;
  fill_nan(y2.get(), p.dtype, n, s);
  args.y = y2.get();
  v.launch(p, args, s);
  row.deterministic = bitwise_equal_device(y.get(), y2.get(), ybytes, s);
  const bool ok = row.error.passes(opt.max_calc_diff, opt.max_rel_l2) && row.deterministic;
  row.status = ok ? "PASS" : "FAIL";
  if (!row.deterministic) row.reason = "two runs on the same inputs differ bitwise";
}

}  // namespace

ConvInputs random_inputs(const ConvProblem& p, uint64_t seed, cudaStream_t s) {
  const size_t e = dtype_size(p.dtype);
  const int64_t nx = span(p.x_strides, {p.N, p.C, p.D, p.H, p.W});
  const int64_t nw = span(p.w_strides, {p.K, p.channels_per_group(), p.T, p.R, p.S});
  ConvInputs in{DeviceBuffer(nx * e), DeviceBuffer(nw * e), DeviceBuffer(p.has_bias ? p.K * e : 0)};
  fill_uniform(in.x.get(), p.dtype, nx, seed, -1.f, 1.f, s);
  fill_uniform(in.w.get(), p.dtype, nw, seed + 1, -1.f, 1.f, s);
  if (p.has_bias) fill_uniform(in.b.get(), p.dtype, p.K, seed + 2, -1.f, 1.f, s);
  return in;
}

size_t output_bytes(const ConvProblem& p) {
  return static_cast<size_t>(span(p.y_strides, {p.N, p.K, p.Do, p.Ho, p.Wo})) * dtype_size(p.dtype);
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
    j["stop"] = timing->stop_reason;
    j["tflops"] = tflops();
    j["tbps"] = tbps();
    j["pct_of_floor"] = pct_of_floor();
  }
  if (x_cudnn > 0) j["x_cudnn"] = x_cudnn;
  if (x_torch > 0) j["x_torch"] = x_torch;
  return j;
}

std::vector<BenchRow> bench_case(const Suite& suite, const SuiteCase& c, const BenchOptions& opt,
                                 const Ceilings& ceilings) {
  const ConvProblem p = c.problem(opt.dtype, opt.layout);
  cudaStream_t s;
  KF_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const double floor_ms = std::max(p.min_bytes() / (ceilings.copy_tbps * 1e12),
                                   p.flops() / (ceilings.gemm_bf16_tflops * 1e12)) * 1e3;
  std::vector<BenchRow> rows;
  uint64_t check_no = 0;
  for (const Variant* v : variants_for(suite, opt)) {
    BenchRow row;
    row.suite = suite.name;
    row.case_name = c.name;
    row.variant = v->name;
    row.layout = layout_name(opt.layout);
    row.dtype = dtype_name(opt.dtype);
    row.problem = p.describe();
    row.flops = p.flops();
    row.bytes = p.min_bytes();
    row.floor_ms = floor_ms;
    row.reason = v->accepts(p);
    if (!row.reason.empty()) {
      row.status = "SKIP";
      rows.push_back(row);
      continue;
    }
    try {
      // Fresh inputs for every variant's check: each must compute the same function on any valid input.
      const CheckedInputs checked = make_inputs(p, opt.seed + 16 * check_no++, opt, s);
      check_variant(*v, p, checked, opt, s, row);
      if (opt.time && row.status == "PASS") {
        const ConvInputs& in = checked.in;
        DeviceBuffer y(output_bytes(p)), ws(v->workspace(p));
        const ConvArgs args{in.x.get(), in.w.get(), p.has_bias ? in.b.get() : nullptr, y.get(), ws.get()};
        row.timing = time_on_stream([&](cudaStream_t st) { v->launch(p, args, st); }, s, opt.timer);
      }
    } catch (const Error& e) {
      row.status = "ERROR";
      row.reason = e.what();
      cudaGetLastError();
    }
    rows.push_back(row);
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
