// The correctness check: inputs and reference, poison, run, compare, run again, compare bitwise.
#include "bench/check.hpp"

#include <algorithm>
#include <random>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/random.hpp"
#include "reference/reference.hpp"

namespace kforge {
namespace {

// Element span of a dense rank-5 view.
int64_t span(const std::array<int64_t, 5>& strides, const std::array<int64_t, 5>& sizes) {
  int64_t last = 0;
  for (int i = 0; i < 5; ++i) last += (sizes[i] - 1) * strides[i];
  return last + 1;
}

int64_t output_span(const ConvProblem& p) { return span(p.y_strides, {p.N, p.K, p.Do, p.Ho, p.Wo}); }

}  // namespace

std::vector<int64_t> sample_positions(const ConvProblem& p, uint64_t seed, double sampled_macs) {
  const int64_t total = p.N * p.Do * p.Ho * p.Wo;
  const double macs_per_position = double(p.K) * p.channels_per_group() * p.T * p.R * p.S;
  const int64_t wanted = std::clamp<int64_t>(int64_t(sampled_macs / macs_per_position), 256, total);
  std::vector<int64_t> out;
  for (int64_t n : {int64_t{0}, p.N - 1})
    for (int64_t d : {int64_t{0}, p.Do - 1})
      for (int64_t h : {int64_t{0}, p.Ho - 1})
        for (int64_t w : {int64_t{0}, p.Wo - 1}) out.push_back(((n * p.Do + d) * p.Ho + h) * p.Wo + w);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> any(0, total - 1);
  while (int64_t(out.size()) < wanted) out.push_back(any(rng));
  return out;
}

size_t output_bytes(const ConvProblem& p) { return static_cast<size_t>(output_span(p)) * dtype_size(p.dtype); }

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

CheckInputs make_check_inputs(const ConvProblem& p, uint64_t seed, const ReferenceOptions& ref, cudaStream_t s) {
  const size_t e = dtype_size(p.dtype);
  const int64_t nx = span(p.x_strides, {p.N, p.C, p.D, p.H, p.W});
  const int64_t nw = span(p.w_strides, {p.K, p.channels_per_group(), p.T, p.R, p.S});
  const int64_t ny = output_span(p);
  ConvInputs drawn = random_inputs(p, seed, s);
  CheckInputs in{std::move(drawn.x), std::move(drawn.w), std::move(drawn.b), {}, ""};
  const double macs = static_cast<double>(p.y_numel()) * p.channels_per_group() * p.T * p.R * p.S;
  if (macs > ref.gpu_full_max_macs) {
    const std::vector<int64_t> positions = sample_positions(p, seed + 3, ref.sampled_macs);
    in.samples = static_cast<int64_t>(positions.size());
    in.positions = DeviceBuffer(positions);
    in.ref = DeviceBuffer(in.samples * p.K * sizeof(double));
    reference_conv_gpu_sampled(p, in.x.get(), in.w.get(), p.has_bias ? in.b.get() : nullptr,
                               in.positions.as<int64_t>(), in.samples, in.ref.as<double>(), s);
    in.reference = "gpu-fp64-sampled(" + std::to_string(in.samples) + " positions x " + std::to_string(p.K) + ")";
    return in;
  }
  in.ref = DeviceBuffer(ny * sizeof(double));
  if (macs <= ref.cpu_max_macs) {
    std::vector<char> hx(nx * e), hw(nw * e), hb(p.has_bias ? p.K * e : 0);
    std::vector<double> href(ny, 0.0);
    KF_CUDA_CHECK(cudaMemcpyAsync(hx.data(), in.x.get(), hx.size(), cudaMemcpyDeviceToHost, s));
    KF_CUDA_CHECK(cudaMemcpyAsync(hw.data(), in.w.get(), hw.size(), cudaMemcpyDeviceToHost, s));
    if (p.has_bias) KF_CUDA_CHECK(cudaMemcpyAsync(hb.data(), in.b.get(), hb.size(), cudaMemcpyDeviceToHost, s));
    KF_CUDA_CHECK(cudaStreamSynchronize(s));
    reference_conv_cpu(p, hx.data(), hw.data(), p.has_bias ? hb.data() : nullptr, href.data());
    KF_CUDA_CHECK(cudaMemcpyAsync(in.ref.get(), href.data(), ny * sizeof(double), cudaMemcpyHostToDevice, s));
    KF_CUDA_CHECK(cudaStreamSynchronize(s));
    in.reference = "cpu-fp64";
  } else {
    reference_conv_gpu(p, in.x.get(), in.w.get(), p.has_bias ? in.b.get() : nullptr,
                       static_cast<double*>(in.ref.get()), s);
    in.reference = "gpu-fp64";
  }
  return in;
}

CheckOutcome check_output(const ConvProblem& p, const CheckInputs& in, const OutputLaunch& launch, cudaStream_t s) {
  const size_t bytes = output_bytes(p);
  const int64_t n = output_span(p);
  CheckOutcome out{{}, false, DeviceBuffer(bytes)};
  DeviceBuffer second(bytes);
  fill_nan(out.output.get(), p.dtype, n, s);
  launch(out.output.get(), s);
  KF_CUDA_CHECK(cudaStreamSynchronize(s));
  if (in.samples > 0) {
    const int64_t checked = in.samples * p.K;
    DeviceBuffer sampled(checked * dtype_size(p.dtype));
    gather_outputs(p, out.output.get(), in.positions.as<int64_t>(), in.samples, sampled.get(), s);
    out.error = compare_device(sampled.get(), p.dtype, in.ref.as<double>(), checked, s);
  } else {
    out.error = compare_device(out.output.get(), p.dtype, in.ref.as<double>(), n, s);
  }
  fill_nan(second.get(), p.dtype, n, s);
  launch(second.get(), s);
  out.deterministic = bitwise_equal_device(out.output.get(), second.get(), bytes, s);
  return out;
}

}  // namespace kforge
