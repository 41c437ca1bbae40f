// One output element of the direct convolution in double: the single definition of the reference math,
// compiled for the host (cpu_reference.cpp) and the device (gpu_reference.cu) so both agree by construction.
// Every product of two kforge elements is exact in double (at most 24 x 24 significand bits), so the sum is the
// only rounding, and its order (c, t, r, s, then bias, then the activation) is fixed here.
#pragma once

#include <cmath>
#include <string>

#include "kforge/conv.hpp"


namespace kforge::reference_detail {

// `Elem` is the storage type of one element; `decode(Elem) -> double` is exact for every kforge dtype.
template <typename Elem, typename Decode>
KF_HOST_DEVICE inline double direct_conv_element(const ConvProblem& p, const Elem* x, const Elem* w,
                                                 const Elem* bias, int64_t n, int64_t k, int64_t od, int64_t oh,
                                                 int64_t ow, Decode decode) {
  const int64_t channels_per_group = p.C / p.groups;
  const int64_t first_channel = k / (p.K / p.groups) * channels_per_group;
  const int64_t od0 = od * p.stride[0] - p.pad_lo[0];
  const int64_t oh0 = oh * p.stride[1] - p.pad_lo[1];
  const int64_t ow0 = ow * p.stride[2] - p.pad_lo[2];
  double acc = 0.0;
  for (int64_t c = 0; c < channels_per_group; ++c) {
    const Elem* x_plane = x + n * p.x_strides[0] + (first_channel + c) * p.x_strides[1];
    const Elem* w_plane = w + k * p.w_strides[0] + c * p.w_strides[1];
    for (int64_t t = 0; t < p.T; ++t) {
      const int64_t id = od0 + t * p.dilation[0];
      if (id < 0 || id >= p.D) continue;  // padding contributes zero
      for (int64_t r = 0; r < p.R; ++r) {
        const int64_t ih = oh0 + r * p.dilation[1];
        if (ih < 0 || ih >= p.H) continue;
        for (int64_t s = 0; s < p.S; ++s) {
          const int64_t iw = ow0 + s * p.dilation[2];
          if (iw < 0 || iw >= p.W) continue;
          const double xv = decode(x_plane[id * p.x_strides[2] + ih * p.x_strides[3] + iw * p.x_strides[4]]);
          const double wv = decode(w_plane[t * p.w_strides[2] + r * p.w_strides[3] + s * p.w_strides[4]]);
          acc += xv * wv;
        }
      }
    }
  }
  if (bias != nullptr) acc += decode(bias[k]);
  if (p.activation == Activation::silu) acc = acc / (1.0 + exp(-acc));
  return acc;
}

KF_HOST_DEVICE inline int64_t y_offset(const ConvProblem& p, int64_t n, int64_t k, int64_t od, int64_t oh,
                                       int64_t ow) {
  return n * p.y_strides[0] + k * p.y_strides[1] + od * p.y_strides[2] + oh * p.y_strides[3] + ow * p.y_strides[4];
}

// Refuses calls whose results would be silently wrong: missing buffers, or a problem built without an output
// view (make_problem(..., y = nullptr) leaves y_strides zero, and every element would land on offset 0).
inline void check_reference_args(const ConvProblem& p, const void* x, const void* w, const void* bias,
                                 const double* y_ref, const char* who) {
  const auto fail = [&](const std::string& what) { throw Error(std::string(who) + ": " + what); };
  if (p.y_numel() == 0) return;
  if (x == nullptr || w == nullptr || y_ref == nullptr) fail("expected non-null x, w and y_ref pointers");
  if (p.has_bias && bias == nullptr) fail("expected a bias pointer, since the problem has a bias");
  const int64_t y_sizes[5] = {p.N, p.K, p.Do, p.Ho, p.Wo};
  for (int i = 0; i < 5; ++i) {
    if (y_sizes[i] > 1 && p.y_strides[i] == 0) {
      fail("expected y_strides of the output view, but got stride 0 for output dimension " + std::to_string(i) +
           " (build the problem with an output view)");
    }
  }
}

}  // namespace kforge::reference_detail
