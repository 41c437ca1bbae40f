// ConvProblem: validation of user input (PyTorch-style messages) and the quantities derived from it.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "kforge/conv.hpp"

namespace kforge {
namespace {

std::string sizes_str(const TensorView& t) {
  std::ostringstream s;
  s << "[";
  for (int i = 0; i < t.rank; ++i) s << (i ? ", " : "") << t.sizes[i];
  s << "]";
  return s.str();
}

[[noreturn]] void fail(const std::string& msg) { throw Error(msg); }

// PyTorch's expand_param_if_needed: one value for every spatial dimension, or exactly one per dimension.
std::array<int64_t, 3> expand(const std::vector<int64_t>& v, int spatial, const char* name, int64_t fill) {
  if (v.size() != 1 && v.size() != static_cast<size_t>(spatial)) {
    fail(std::string("expected ") + name + " to be a single integer value or a list of " + std::to_string(spatial) +
         " values to match the convolution dimensions, but got " + name + "=" + std::to_string(v.size()) +
         " values");
  }
  // Normalized to (d, h, w): a 2D problem's (h, w) lands in the last two slots, d gets the neutral value.
  std::array<int64_t, 3> out{fill, fill, fill};
  for (int i = 0; i < spatial; ++i) out[3 - spatial + i] = v.size() == 1 ? v[0] : v[i];
  return out;
}

// Checked 64-bit product: element counts past 2^63 are refused instead of wrapping.
int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) fail(std::string(what) + " overflows 64-bit element counts");
  return a * b;
}

// Rank-5 strides of a rank-(2+spatial) view, inserting unit dimensions in front of the spatial ones.
std::array<int64_t, 5> strides5(const TensorView& t) {
  std::array<int64_t, 5> s{};
  const int spatial = t.rank - 2;
  s[0] = t.strides[0];
  s[1] = t.strides[1];
  // A unit dimension's stride never matters; give it the stride of the next outer dimension for clarity.
  for (int i = 0; i < 3 - spatial; ++i) s[2 + i] = t.strides[1] * t.sizes[1];
  for (int i = 0; i < spatial; ++i) s[5 - spatial + i] = t.strides[2 + i];
  return s;
}

Layout layout_of(const std::array<int64_t, 5>& st, const std::array<int64_t, 5>& sz) {
  // sz: N, C, D, H, W. Dense NCDHW or dense NDHWC; unit dimensions may carry any stride.
  auto dense = [&](std::array<int, 5> order) {
    int64_t expect = 1;
    for (int i = 4; i >= 0; --i) {
      const int d = order[i];
      if (sz[d] != 1 && st[d] != expect) return false;
      expect *= sz[d];
    }
    return true;
  };
  if (dense({0, 1, 2, 3, 4})) return Layout::ncdhw;
  if (dense({0, 2, 3, 4, 1})) return Layout::ndhwc;
  return Layout::strided;
}

}  // namespace

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::ncdhw: return "ncdhw";
    case Layout::ndhwc: return "ndhwc";
    case Layout::strided: return "strided";
  }
  return "unknown";
}

Layout parse_layout(const std::string& s) {
  if (s == "ncdhw" || s == "nchw" || s == "ncw" || s == "contiguous") return Layout::ncdhw;
  if (s == "ndhwc" || s == "nhwc" || s == "nwc" || s == "channels_last") return Layout::ndhwc;
  fail("unknown layout '" + s + "': expected ncdhw or ndhwc");
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::none: return "none";
    case Activation::silu: return "silu";
  }
  return "unknown";
}

Activation parse_activation(const std::string& s) {
  if (s == "none") return Activation::none;
  if (s == "silu") return Activation::silu;
  fail("unknown activation '" + s + "': expected none or silu");
}

int64_t conv_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_lo, int64_t pad_hi,
                         int64_t dilation) {
  return (in + pad_lo + pad_hi - dilation * (kernel - 1) - 1) / stride + 1;
}

Layout ConvProblem::x_layout() const { return layout_of(x_strides, {N, C, D, H, W}); }
Layout ConvProblem::w_layout() const { return layout_of(w_strides, {K, C / groups, T, R, S}); }
Layout ConvProblem::y_layout() const { return layout_of(y_strides, {N, K, Do, Ho, Wo}); }

double ConvProblem::flops() const {
  return 2.0 * static_cast<double>(y_numel()) * static_cast<double>(channels_per_group() * T * R * S);
}

double ConvProblem::min_bytes() const {
  const double e = static_cast<double>(dtype_size(dtype));
  return e * (static_cast<double>(x_numel()) + static_cast<double>(w_numel()) + static_cast<double>(y_numel()) +
              (has_bias ? static_cast<double>(K) : 0.0));
}

std::string ConvProblem::describe() const {
  std::ostringstream s;
  s << "N" << N << " C" << C << " K" << K << " " << D << "x" << H << "x" << W << " k" << T << "x" << R << "x" << S
    << " s" << stride[0] << "," << stride[1] << "," << stride[2] << " p" << pad_lo[0] << ":" << pad_hi[0] << ","
    << pad_lo[1] << ":" << pad_hi[1] << "," << pad_lo[2] << ":" << pad_hi[2] << " d" << dilation[0] << ","
    << dilation[1] << "," << dilation[2] << " g" << groups << " " << dtype_name(dtype) << " "
    << layout_name(x_layout()) << (has_bias ? " +bias" : "")
    << (activation != Activation::none ? std::string(" +") + activation_name(activation) : "");
  return s.str();
}

std::string ConvProblem::key() const {
  // The description is already canonical; output layout is part of the key when it differs from the input's.
  std::string k = describe();
  if (y_layout() != x_layout()) k += std::string(" y:") + layout_name(y_layout());
  if (unaligned.any()) {
    k += " unaligned:";
    for (auto [bad, name] : {std::pair{unaligned.x, "x"}, {unaligned.w, "w"}, {unaligned.bias, "b"}, {unaligned.y, "y"}})
      if (bad) k += name;
  }
  return k;
}

ConvProblem ConvProblem::dense(int64_t N, int64_t C, int64_t K, std::array<int64_t, 3> input,
                               std::array<int64_t, 3> kernel, const ConvParams& params, DType dtype, Layout layout,
                               bool has_bias) {
  if (layout == Layout::strided) fail("ConvProblem::dense: expected layout ncdhw or ndhwc, but got strided");
  const bool cl = layout == Layout::ndhwc;
  auto view = [&](std::initializer_list<int64_t> sz) {
    return cl ? TensorView::channels_last(nullptr, dtype, sz) : TensorView::contiguous(nullptr, dtype, sz);
  };
  const int64_t groups = params.groups;
  TensorView x = view({N, C, input[0], input[1], input[2]});
  TensorView w = view({K, groups > 0 ? C / groups : C, kernel[0], kernel[1], kernel[2]});
  TensorView b = TensorView::contiguous(nullptr, dtype, {K});
  ConvProblem p = make_problem(x, w, has_bias ? &b : nullptr, nullptr, params);
  const auto out = conv_output_sizes(x, w, params);
  TensorView y = cl ? TensorView::channels_last(nullptr, dtype, {out[0], out[1], out[2], out[3], out[4]})
                    : TensorView::contiguous(nullptr, dtype, {out[0], out[1], out[2], out[3], out[4]});
  p.y_strides = y.strides;
  return p;
}

std::vector<int64_t> conv_output_sizes(const TensorView& x, const TensorView& w, const ConvParams& params) {
  const ConvProblem p = make_problem(x, w, nullptr, nullptr, params);
  std::vector<int64_t> out{p.N, p.K};
  const int64_t o[3] = {p.Do, p.Ho, p.Wo};
  for (int i = 3 - p.spatial_rank; i < 3; ++i) out.push_back(o[i]);
  return out;
}

ConvProblem make_problem(const TensorView& x, const TensorView& w, const TensorView* bias, const TensorView* y,
                         const ConvParams& params) {
  // Rank: conv1d/2d/3d on batched input (N, C, spatial...).
  if (x.rank < 3 || x.rank > 5) {
    fail("Expected 3D, 4D or 5D (batched) input to conv1d/conv2d/conv3d, but got input of size: " + sizes_str(x));
  }
  const int spatial = x.rank - 2;
  const char* op = spatial == 1 ? "conv1d" : spatial == 2 ? "conv2d" : "conv3d";
  if (w.rank != x.rank) {
    fail(std::string("Expected ") + std::to_string(x.rank) + "-dimensional weight for " + std::to_string(x.rank) +
         "-dimensional input " + sizes_str(x) + ", but got " + std::to_string(w.rank) +
         "-dimensional weight of size " + sizes_str(w) + " instead");
  }
  if (w.dtype != x.dtype) {
    fail(std::string("expected input and weight to have the same dtype, but got input of dtype ") +
         dtype_name(x.dtype) + " and weight of dtype " + dtype_name(w.dtype));
  }
  for (int i = 0; i < x.rank; ++i) {
    if (x.sizes[i] < 0) fail("input size must be non-negative, but got input of size: " + sizes_str(x));
    if (w.sizes[i] < 0) fail("weight size must be non-negative, but got weight of size: " + sizes_str(w));
  }

  // Parameters.
  if (params.groups <= 0) fail("non-positive groups is not supported");
  const auto stride = expand(params.stride, spatial, "stride", 1);
  const auto pad_lo = expand(params.padding, spatial, "padding", 0);
  const auto pad_hi = params.padding_hi.empty() ? pad_lo : expand(params.padding_hi, spatial, "padding_hi", 0);
  const auto dilation = expand(params.dilation, spatial, "dilation", 1);
  for (int i = 0; i < 3; ++i) {
    if (stride[i] <= 0) fail("non-positive stride is not supported");
    if (pad_lo[i] < 0 || pad_hi[i] < 0) fail("negative padding is not supported");
    if (dilation[i] <= 0) fail("dilation should be greater than zero");
  }

  ConvProblem p;
  p.spatial_rank = spatial;
  p.dtype = x.dtype;
  p.groups = params.groups;
  if (params.activation != Activation::none && params.activation != Activation::silu)
    fail("unknown activation " + std::to_string(static_cast<int>(params.activation)) + ": expected none or silu");
  p.activation = params.activation;
  p.stride = stride;
  p.pad_lo = pad_lo;
  p.pad_hi = pad_hi;
  p.dilation = dilation;
  p.N = x.sizes[0];
  p.C = x.sizes[1];
  p.K = w.sizes[0];
  std::array<int64_t, 3> in{1, 1, 1}, k{1, 1, 1};
  for (int i = 0; i < spatial; ++i) {
    in[3 - spatial + i] = x.sizes[2 + i];
    k[3 - spatial + i] = w.sizes[2 + i];
  }
  p.D = in[0], p.H = in[1], p.W = in[2];
  p.T = k[0], p.R = k[1], p.S = k[2];

  // Channels and groups.
  if (p.K % p.groups != 0) {
    fail("Given groups=" + std::to_string(p.groups) + ", expected weight to be divisible by " +
         std::to_string(p.groups) + " at dimension 0, but got weight of size " + sizes_str(w) + " instead");
  }
  if (p.C != w.sizes[1] * p.groups) {
    fail("Given groups=" + std::to_string(p.groups) + ", weight of size " + sizes_str(w) + ", expected input" +
         sizes_str(x) + " to have " + std::to_string(w.sizes[1] * p.groups) + " channels, but got " +
         std::to_string(p.C) + " channels instead");
  }
  if (p.K == 0 || w.sizes[1] == 0) fail("expected weight with non-zero output and input channels, but got weight of size " + sizes_str(w));
  for (int i = 0; i < 3; ++i) {
    if (k[i] == 0) fail("expected non-zero kernel size, but got weight of size " + sizes_str(w));
  }

  // Kernel vs padded input (PyTorch's message, spatial dimensions only).
  for (int i = 3 - spatial; i < 3; ++i) {
    const int64_t padded = in[i] + pad_lo[i] + pad_hi[i];
    const int64_t eff = dilation[i] * (k[i] - 1) + 1;
    if (padded < eff) {
      std::ostringstream s;
      s << "Calculated padded input size per channel: (";
      for (int j = 3 - spatial; j < 3; ++j) s << (j > 3 - spatial ? " x " : "") << in[j] + pad_lo[j] + pad_hi[j];
      s << "). Kernel size: (";
      for (int j = 3 - spatial; j < 3; ++j) s << (j > 3 - spatial ? " x " : "") << dilation[j] * (k[j] - 1) + 1;
      s << "). Kernel size can't be greater than actual input size";
      fail(s.str());
    }
  }
  p.Do = conv_output_size(p.D, p.T, stride[0], pad_lo[0], pad_hi[0], dilation[0]);
  p.Ho = conv_output_size(p.H, p.R, stride[1], pad_lo[1], pad_hi[1], dilation[1]);
  p.Wo = conv_output_size(p.W, p.S, stride[2], pad_lo[2], pad_hi[2], dilation[2]);

  // Element counts must fit 64 bits (every later index computation relies on it).
  checked_mul(checked_mul(checked_mul(checked_mul(p.N, p.C, "input size"), p.D, "input size"), p.H, "input size"), p.W, "input size");
  checked_mul(checked_mul(checked_mul(checked_mul(p.N, p.K, "output size"), p.Do, "output size"), p.Ho, "output size"), p.Wo, "output size");

  if (bias) {
    if (bias->rank != 1 || bias->sizes[0] != p.K) {
      fail("Given weight of size " + sizes_str(w) + ", expected bias to be 1-dimensional with " +
           std::to_string(p.K) + " elements, but got bias of size " + sizes_str(*bias) + " instead");
    }
    if (bias->dtype != x.dtype) {
      fail(std::string("expected input and bias to have the same dtype, but got input of dtype ") +
           dtype_name(x.dtype) + " and bias of dtype " + dtype_name(bias->dtype));
    }
    if (bias->strides[0] != 1 && p.K > 1) fail("expected a contiguous bias, but got bias stride " + std::to_string(bias->strides[0]));
    p.has_bias = true;
  }

  p.x_strides = strides5(x);
  p.w_strides = strides5(w);
  auto unaligned16 = [](const void* data) { return reinterpret_cast<std::uintptr_t>(data) % 16 != 0; };
  p.unaligned.x = unaligned16(x.data);
  p.unaligned.w = unaligned16(w.data);
  p.unaligned.bias = bias && unaligned16(bias->data);
  p.unaligned.y = y && unaligned16(y->data);

  if (y) {
    if (y->dtype != x.dtype) {
      fail(std::string("expected input and output to have the same dtype, but got input of dtype ") +
           dtype_name(x.dtype) + " and output of dtype " + dtype_name(y->dtype));
    }
    TensorView expect = x;
    expect.sizes[0] = p.N;
    expect.sizes[1] = p.K;
    const int64_t o[3] = {p.Do, p.Ho, p.Wo};
    for (int i = 0; i < spatial; ++i) expect.sizes[2 + i] = o[3 - spatial + i];
    bool same = y->rank == x.rank;
    for (int i = 0; same && i < x.rank; ++i) same = y->sizes[i] == expect.sizes[i];
    if (!same) fail(std::string("expected ") + op + " output of size " + sizes_str(expect) + ", but got " + sizes_str(*y));
    p.y_strides = strides5(*y);
  }
  return p;
}

}  // namespace kforge
