// The correctness check: inputs and reference, poison, run, compare, run again, compare bitwise.
#include "bench/check.hpp"

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

size_t output_bytes(const ConvProblem& p) { return static_cast<size_t>(output_span(p)) * dtype_size(p.dtype); }

CheckInputs make_check_inputs(const ConvProblem& p, uint64_t seed, double cpu_reference_max_macs, cudaStream_t s) {
  const size_t e = dtype_size(p.dtype);
  const int64_t nx = span(p.x_strides, {p.N, p.C, p.D, p.H, p.W});
  const int64_t nw = span(p.w_strides, {p.K, p.channels_per_group(), p.T, p.R, p.S});
  const int64_t ny = output_span(p);
  CheckInputs in{DeviceBuffer(nx * e), DeviceBuffer(nw * e), DeviceBuffer(p.has_bias ? p.K * e : 0),
                 DeviceBuffer(ny * sizeof(double)), ""};
  fill_uniform(in.x.get(), p.dtype, nx, seed, -1.f, 1.f, s);
  fill_uniform(in.w.get(), p.dtype, nw, seed + 1, -1.f, 1.f, s);
  if (p.has_bias) fill_uniform(in.b.get(), p.dtype, p.K, seed + 2, -1.f, 1.f, s);
  const double macs = static_cast<double>(p.y_numel()) * p.channels_per_group() * p.T * p.R * p.S;
  if (macs <= cpu_reference_max_macs) {
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
  out.error = compare_device(out.output.get(), p.dtype, static_cast<const double*>(in.ref.get()), n, s);
  fill_nan(second.get(), p.dtype, n, s);
  launch(second.get(), s);
  out.deterministic = bitwise_equal_device(out.output.get(), second.get(), bytes, s);
  return out;
}

}  // namespace kforge
