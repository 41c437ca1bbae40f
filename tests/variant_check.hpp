// Shared by the kernel-family tests: problem builders, device inputs with their fp64 CPU reference, and the check
// that runs every variant of a family on a list of problems.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/random.hpp"
#include "dispatch/registry.hpp"
#include "measure/metrics.hpp"
#include "reference/reference.hpp"
#include "reference/reference_test_util.hpp"

namespace kforge::testing {

// Dense view of rank sizes.size() (3..5) in the given layout; no data (the tests allocate by the strides' span).
inline TensorView dense_view(const std::vector<int64_t>& s, DType dtype, Layout layout) {
  const auto make = [&](std::initializer_list<int64_t> sizes) {
    return layout == Layout::ndhwc ? TensorView::channels_last(nullptr, dtype, sizes)
                                   : TensorView::contiguous(nullptr, dtype, sizes);
  };
  switch (s.size()) {
    case 3: return make({s[0], s[1], s[2]});
    case 4: return make({s[0], s[1], s[2], s[3]});
    case 5: return make({s[0], s[1], s[2], s[3], s[4]});
  }
  throw Error("dense_view: expected rank 3..5");
}

inline ConvParams params_of(std::vector<int64_t> stride, std::vector<int64_t> pad_lo, std::vector<int64_t> pad_hi,
                     std::vector<int64_t> dilation) {
  ConvParams prm;
  prm.stride = std::move(stride);
  prm.padding = std::move(pad_lo);
  prm.padding_hi = std::move(pad_hi);
  prm.dilation = std::move(dilation);
  return prm;
}

// A depthwise problem (groups = C, K = m*C) of spatial rank input.size(), x/w/y dense in `layout`.
inline ConvProblem depthwise_problem(int64_t N, int64_t C, int64_t m, const std::vector<int64_t>& input,
                                     const std::vector<int64_t>& kernel, ConvParams params, DType dtype, Layout layout,
                                     bool bias) {
  params.groups = C;
  std::vector<int64_t> xs{N, C}, ws{C * m, 1};
  xs.insert(xs.end(), input.begin(), input.end());
  ws.insert(ws.end(), kernel.begin(), kernel.end());
  const TensorView x = dense_view(xs, dtype, layout), w = dense_view(ws, dtype, layout);
  const TensorView b = TensorView::contiguous(nullptr, dtype, {C * m});
  const TensorView y = dense_view(conv_output_sizes(x, w, params), dtype, layout);
  return make_problem(x, w, bias ? &b : nullptr, &y, params);
}

// One problem's inputs on the device (spans of their strides), filled once; and the reference in logical order.
struct Inputs {
  DeviceBuffer x, w, bias;
  std::vector<double> reference;  // y in logical (n, k, od, oh, ow) order

  Inputs(const ConvProblem& p, uint64_t seed, cudaStream_t stream)
      : x(span(p, 'x') * dtype_size(p.dtype)), w(span(p, 'w') * dtype_size(p.dtype)), bias(p.K * dtype_size(p.dtype)) {
    fill_uniform(x.get(), p.dtype, span(p, 'x'), seed, -1.f, 1.f, stream);
    fill_uniform(w.get(), p.dtype, span(p, 'w'), seed + 1, -1.f, 1.f, stream);
    fill_uniform(bias.get(), p.dtype, p.K, seed + 2, -1.f, 1.f, stream);
    KF_CUDA_CHECK(cudaStreamSynchronize(stream));
    const auto hx = x.download<unsigned char>(), hw = w.download<unsigned char>(), hb = bias.download<unsigned char>();
    std::vector<double> y_ref(span(p, 'y'), 0.0);
    reference_conv_cpu(p, hx.data(), hw.data(), p.has_bias ? hb.data() : nullptr, y_ref.data());
    reference.resize(p.y_numel());
    for_each_index(y_sizes(p), [&](const std::array<int64_t, 5>& i, int64_t j) {
      reference[j] = y_ref[offset_of(i, p.y_strides)];
    });
  }

  static std::array<int64_t, 5> y_sizes(const ConvProblem& p) { return {p.N, p.K, p.Do, p.Ho, p.Wo}; }
  static int64_t span(const ConvProblem& p, char tensor) {
    switch (tensor) {
      case 'x': return span_of({p.N, p.C, p.D, p.H, p.W}, p.x_strides);
      case 'w': return span_of({p.K, p.channels_per_group(), p.T, p.R, p.S}, p.w_strides);
      default: return span_of(y_sizes(p), p.y_strides);
    }
  }
};

// Runs v into a NaN-poisoned output and returns it, gathered into logical order.
inline std::vector<unsigned char> run_variant(const Variant& v, const ConvProblem& p, const Inputs& in, DeviceBuffer& y,
                                       cudaStream_t stream) {
  const size_t e = dtype_size(p.dtype);
  fill_nan(y.get(), p.dtype, Inputs::span(p, 'y'), stream);
  const size_t workspace_bytes = v.workspace(p);
  DeviceBuffer workspace(workspace_bytes);
  ConvArgs args;
  args.x = in.x.get();
  args.w = in.w.get();
  args.bias = p.has_bias ? in.bias.get() : nullptr;
  args.y = y.get();
  args.workspace = workspace_bytes ? workspace.get() : nullptr;
  v.launch(p, args, stream);
  KF_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto raw = y.download<unsigned char>();
  std::vector<unsigned char> logical(p.y_numel() * e);
  for_each_index(Inputs::y_sizes(p), [&](const std::array<int64_t, 5>& i, int64_t j) {
    std::memcpy(&logical[j * e], &raw[offset_of(i, p.y_strides) * e], e);
  });
  return logical;
}

class Stream {
 public:
  Stream() { KF_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { static_cast<void>(cudaStreamDestroy(s_)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Every variant of `family` that accepts a problem, against the fp64 CPU reference: NaN-poisoned output, then a
// second run that must be bitwise identical. `fallback` must accept every problem of the list.
inline void check_family(const std::string& family, const std::string& fallback_name,
                         const std::vector<ConvProblem>& problems, uint64_t seed) {
  const std::vector<const Variant*> variants = Registry::instance().family(family);
  ASSERT_FALSE(variants.empty()) << "no " << family << " variants registered";
  const Variant* fallback = Registry::instance().find(fallback_name);
  ASSERT_NE(fallback, nullptr);
  Stream stream;
  for (const ConvProblem& p : problems) {
    SCOPED_TRACE(p.describe());
    EXPECT_EQ(fallback->accepts(p), "") << "the fallback must accept every " << family << " problem";
    const Inputs in(p, seed, stream.get());
    seed += 3;
    const size_t y_bytes = Inputs::span(p, 'y') * dtype_size(p.dtype);
    DeviceBuffer y_first(y_bytes), y_second(y_bytes);
    for (const Variant* v : variants) {
      if (!v->accepts(p).empty()) continue;
      const std::vector<unsigned char> out = run_variant(*v, p, in, y_first, stream.get());
      const ErrorStats st = compare_host(out.data(), p.dtype, in.reference.data(), p.y_numel());
      EXPECT_TRUE(st.passes(1e-5, 1e-2) && st.nan_count == 0) << v->name << " on " << p.describe() << ": " << st.summary();
      run_variant(*v, p, in, y_second, stream.get());
      EXPECT_TRUE(bitwise_equal_device(y_first.get(), y_second.get(), y_bytes, stream.get()))
          << v->name << " is not deterministic on " << p.describe();
    }
  }
}

}  // namespace kforge::testing
