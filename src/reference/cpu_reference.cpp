// Float64 CPU reference of the convolution: std::thread workers over (n, k) output planes.
// Limits: meant for small and medium shapes (direct loops, no blocking); host-side dtype decoding needs no
// CUDA headers, so this file builds with any C++20 compiler.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "reference/direct_conv.hpp"
#include "reference/reference.hpp"

namespace kforge {
namespace {

// Bit-level decoders of the 16- and 8-bit formats: exact, and independent of CUDA's device intrinsics.
struct DecodeF32 {
  double operator()(float v) const { return v; }
};

struct DecodeBf16 {
  // bf16 is the upper half of an f32.
  double operator()(uint16_t bits) const { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }
};

struct DecodeF16 {
  // IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
  double operator()(uint16_t bits) const {
    const double sign = (bits & 0x8000u) ? -1.0 : 1.0;
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    if (exponent == 0x1f) return mantissa ? std::nan("") : sign * INFINITY;
    if (exponent == 0) return sign * std::ldexp(mantissa, -24);  // subnormal: mantissa * 2^(1-15-10)
    return sign * std::ldexp(1024 + mantissa, exponent - 25);
  }
};

struct DecodeE4m3 {
  // OCP fp8 e4m3 ("fn"): 1 sign, 4 exponent (bias 7), 3 mantissa bits; no Inf, S.1111.111 is NaN.
  double operator()(uint8_t bits) const {
    const double sign = (bits & 0x80u) ? -1.0 : 1.0;
    const int exponent = (bits >> 3) & 0xf;
    const int mantissa = bits & 0x7;
    if (exponent == 0xf && mantissa == 0x7) return std::nan("");
    if (exponent == 0) return sign * std::ldexp(mantissa, -9);  // subnormal: mantissa * 2^(1-7-3)
    return sign * std::ldexp(8 + mantissa, exponent - 10);
  }
};

template <typename Elem, typename Decode>
void reference_planes(const ConvProblem& p, const void* x, const void* w, const void* bias, double* y_ref,
                      int threads) {
  const auto* xe = static_cast<const Elem*>(x);
  const auto* we = static_cast<const Elem*>(w);
  const auto* be = p.has_bias ? static_cast<const Elem*>(bias) : nullptr;
  const int64_t planes = p.N * p.K;
  // Planes are handed out one at a time: group sizes and padding make their costs uneven.
  std::atomic<int64_t> next_plane{0};
  const auto worker = [&] {
    for (int64_t plane = next_plane++; plane < planes; plane = next_plane++) {
      const int64_t n = plane / p.K, k = plane % p.K;
      for (int64_t od = 0; od < p.Do; ++od)
        for (int64_t oh = 0; oh < p.Ho; ++oh)
          for (int64_t ow = 0; ow < p.Wo; ++ow)
            y_ref[reference_detail::y_offset(p, n, k, od, oh, ow)] =
                reference_detail::direct_conv_element(p, xe, we, be, n, k, od, oh, ow, Decode{});
    }
  };
  const int64_t wanted = threads > 0 ? threads : static_cast<int64_t>(std::thread::hardware_concurrency());
  const int64_t workers = std::clamp<int64_t>(wanted, 1, planes);
  std::vector<std::jthread> pool;  // joins on scope exit, also when a later thread fails to start
  for (int64_t i = 1; i < workers; ++i) pool.emplace_back(worker);
  worker();  // the calling thread works too
}

template <typename Elem, typename Decode>
double load_element(const void* base, int64_t index) {
  Elem e;
  std::memcpy(&e, static_cast<const char*>(base) + index * static_cast<int64_t>(sizeof(Elem)), sizeof(Elem));
  return Decode{}(e);
}

}  // namespace

void reference_conv_cpu(const ConvProblem& p, const void* x, const void* w, const void* bias, double* y_ref,
                        int threads) {
  reference_detail::check_reference_args(p, x, w, bias, y_ref, "reference_conv_cpu");
  if (p.y_numel() == 0) return;
  switch (p.dtype) {
    case DType::f32: return reference_planes<float, DecodeF32>(p, x, w, bias, y_ref, threads);
    case DType::bf16: return reference_planes<uint16_t, DecodeBf16>(p, x, w, bias, y_ref, threads);
    case DType::f16: return reference_planes<uint16_t, DecodeF16>(p, x, w, bias, y_ref, threads);
    case DType::fp8_e4m3: return reference_planes<uint8_t, DecodeE4m3>(p, x, w, bias, y_ref, threads);
  }
  throw Error("reference_conv_cpu: unknown dtype " + std::to_string(static_cast<int>(p.dtype)));
}

double load_as_double(const void* base, DType dtype, int64_t index) {
  switch (dtype) {
    case DType::f32: return load_element<float, DecodeF32>(base, index);
    case DType::bf16: return load_element<uint16_t, DecodeBf16>(base, index);
    case DType::f16: return load_element<uint16_t, DecodeF16>(base, index);
    case DType::fp8_e4m3: return load_element<uint8_t, DecodeE4m3>(base, index);
  }
  throw Error("load_as_double: unknown dtype " + std::to_string(static_cast<int>(dtype)));
}

}  // namespace kforge
