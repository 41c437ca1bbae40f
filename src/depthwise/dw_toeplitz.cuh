// Tensor-core Toeplitz building blocks of dw_v4..v6: the mma.sync m16n8k16 and its fragment lane maps, the banded
// (Toeplitz) B operand that turns the W taps of the filter into a GEMM, and the paired epilogue stores.
//
// The formulation. A "unit" is P output rows x 8/P output columns of one channel plane. One MMA computes 16 units
// (M) x the 8 outputs of a unit (N, n = oh * 8/P + ow) over K = 16 input elements per unit: P input rows
// (kr = k / (16/P)) x 16/P consecutive input columns (kc = k % (16/P)). B[k][n] is the filter tap that input
// element k contributes to output n at this step:
//     B[k][n] = w[t][P*step + kr - oh][kc - col_shift - ow]      (0 where the tap falls outside the filter)
// P = 1: the classic Toeplitz along W: 8 outputs need 8 + S - 1 <= 16 columns (S <= 9), one filter row per step.
// P = 2: the two output rows of a unit share the K rows, so one step applies two filter rows to each output:
//        R filter rows take floor(R/2) + 1 steps instead of R (3 instead of 5 for R = 5), for S <= 5. It needs
//        stride_h == dilation_h (then kr indexes the same input row for both output rows).
// col_shift (0 or 1) moves the K window one column left so that it starts on an even shared-memory column (4-byte
// aligned fragment loads) whatever the parity of the W padding; it costs one column of the window.
// Limits: bf16 and f16 (products are exact in the fp32 accumulator); sm_80+.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "depthwise/dw_common.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise::toeplitz {

// ---- mma.sync m16n8k16 fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16"), g = lane/4, q = lane%4:
//   A register i (i = 0..3): A[g + 8*(i & 1)][2q + 8*(i >> 1) + {0, 1}]
//   B register i (i = 0..1): B[2q + 8*i + {0, 1}][g]
//   C value v    (v = 0..3): C[g + 8*(v >> 1)][2q + (v & 1)]
// The lower-indexed element of a pair sits in the low 16 bits of the register.
__host__ __device__ constexpr int lane_group(int lane) { return lane / 4; }
__host__ __device__ constexpr int lane_quad(int lane) { return lane % 4; }

template <int P>
struct RowPacking {
  static_assert(P == 1 || P == 2, "a unit packs one or two output rows");
  static constexpr int kUnitRows = P;      // output rows of a unit
  static constexpr int kUnitCols = 8 / P;  // output columns of a unit
  static constexpr int kWindow = 16 / P;   // input columns of a unit's K window, per input row
  // Steps (MMAs per filter depth) that cover R filter rows: step i applies rows P*i + kr - oh; output row oh = P-1
  // first sees row R-1 at P*i >= R-1, so R (P = 1) or floor(R/2) + 1 (P = 2) steps.
  __host__ __device__ static constexpr int64_t steps(int64_t R) { return (R + P - 2) / P + 1; }
  // Widest filter the window holds: kUnitCols + S - 1 + col_shift <= kWindow.
  __host__ __device__ static constexpr int max_filter_width(int col_shift) {
    return kWindow - kUnitCols + 1 - col_shift;
  }
};

// The filter tap (r, s) that K element k feeds to output n of a unit at `step`; false where B[k][n] is 0.
template <int P>
__host__ __device__ constexpr bool toeplitz_tap(int k, int n, int step, int col_shift, int64_t R, int64_t S, int& r,
                                                int& s) {
  using RP = RowPacking<P>;
  r = P * step + k / RP::kWindow - n / RP::kUnitCols;
  s = k % RP::kWindow - col_shift - n % RP::kUnitCols;
  return r >= 0 && r < R && s >= 0 && s < S;
}

// B fragment (two registers) of `lane` for filter depth t of output channel k: w_kt points at w[k][0][t][0][0].
// Weights are read as raw 16-bit patterns: no conversion, and +0 is all-zero bits in bf16 and f16 alike.
template <int P>
__host__ __device__ inline uint2 toeplitz_b_fragment(const uint16_t* __restrict__ w_kt, int64_t ws_r, int64_t ws_s,
                                                     int step, int col_shift, int64_t R, int64_t S, int lane) {
  uint32_t reg[2];
  for (int i = 0; i < 2; ++i) {
    uint32_t pair = 0;
    for (int half = 0; half < 2; ++half) {
      int r = 0, s = 0;
      if (toeplitz_tap<P>(2 * lane_quad(lane) + 8 * i + half, lane_group(lane), step, col_shift, R, S, r, s)) {
        pair |= uint32_t(w_kt[r * ws_r + s * ws_s]) << (16 * half);
      }
    }
    reg[i] = pair;
  }
  return make_uint2(reg[0], reg[1]);
}

// d = A * B + c for one m16n8k16 tile, fp32 accumulation. d is an in-out operand even though its old value is
// not read when c is another register quad: so ptxas keeps d in its registers (an output-only d gets new ones and
// moves wherever the MMA is predicated off).
template <typename E>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], uint2 b, const float (&c)[4]) {
  if constexpr (std::is_same_v<E, __nv_bfloat16>) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  } else {
    static_assert(std::is_same_v<E, __half>, "mma_m16n8k16: bf16 or f16 operands");
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
  }
}
// d += A * B.
template <typename E>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], uint2 b) {
  mma_m16n8k16<E>(d, a, b, d);
}

// The two-element vector of an MMA operand type, and v0, v1 rounded into one (v0 in the low half).
template <typename E>
using Pair = std::conditional_t<std::is_same_v<E, __nv_bfloat16>, __nv_bfloat162, __half2>;
template <typename E>
__device__ __forceinline__ Pair<E> pack_pair(float v0, float v1) {
  if constexpr (std::is_same_v<E, __nv_bfloat16>) {
    return __floats2bfloat162_rn(v0, v1);
  } else {
    return __floats2half2_rn(v0, v1);
  }
}

// Stores v0, v1 to y[0], y[1] as one 32-bit store (y 4-byte aligned).
template <typename E>
__device__ __forceinline__ void store_packed_pair(E* __restrict__ y, float v0, float v1) {
  *reinterpret_cast<Pair<E>*>(y) = pack_pair<E>(v0, v1);
}

// Stores outputs `col` and `col + 1` of one output row (col even). `paired`: the row start is 4-byte aligned, so an
// in-bounds pair goes out as one 32-bit store; a pair straddling Wo stores its first element only.
template <typename E>
__device__ __forceinline__ void store_output_pair(E* __restrict__ y_row, int64_t col, int64_t Wo, float v0, float v1,
                                                  bool paired) {
  if (paired && col + 1 < Wo) return store_packed_pair(y_row + col, v0, v1);
  if (col < Wo) y_row[col] = from_float<E>(v0);
  if (col + 1 < Wo) y_row[col + 1] = from_float<E>(v1);
}

// The refusals v4, v5 and v6 share: not depthwise (common_refusal), not an mma.sync operand type, x or y not dense
// NCDHW, or a W stride or dilation that breaks the Toeplitz band. "" when none applies.
inline std::string toeplitz_refusal(const ConvProblem& p) {
  if (std::string why = common_refusal(p); !why.empty()) return why;
  if (p.dtype != DType::bf16 && p.dtype != DType::f16) {
    return std::string("expected dtype bf16 or f16 (mma.sync operands), but got ") + dtype_name(p.dtype);
  }
  if (p.x_layout() != Layout::ncdhw) {
    return std::string("expected a dense ncdhw input, but got ") + layout_name(p.x_layout());
  }
  if (p.y_layout() != Layout::ncdhw) {
    return std::string("expected a dense ncdhw output, but got ") + layout_name(p.y_layout());
  }
  if (p.stride[2] != 1 || p.dilation[2] != 1) {
    return "expected stride_w == 1 and dilation_w == 1 (Toeplitz along W), but got stride_w=" +
           std::to_string(p.stride[2]) + ", dilation_w=" + std::to_string(p.dilation[2]);
  }
  return "";
}

// Runs fn(ElementTag<E>{}) for the 16-bit element type of `dtype` (the MMA's operand type).
template <typename Fn>
void dispatch_mma_element_type(DType dtype, const char* variant, Fn&& fn) {
  if (dtype == DType::bf16) return fn(ElementTag<__nv_bfloat16>{});
  if (dtype == DType::f16) return fn(ElementTag<__half>{});
  throw Error(std::string(variant) + ": expected dtype bf16 or f16, but got " + dtype_name(dtype));
}

// One CTA's work item in the Toeplitz kernels: an index enumerating (n*K + k, depth chunk, row tile, column tile),
// column tile fastest (grid.x; v11 walks the indices of several); `Plan` is the launching variant's tile plan (it has
// col_tiles, row_tiles, depth_chunks).
struct TileIndex {
  int64_t col_tile, row_tile, depth_chunk, n, k;
};
template <typename Plan>
__host__ __device__ __forceinline__ TileIndex tile_index(const Geometry& g, const Plan& plan, int64_t cta) {
  const int64_t col_tile = cta % plan.col_tiles;
  cta /= plan.col_tiles;
  const int64_t row_tile = cta % plan.row_tiles;
  cta /= plan.row_tiles;
  return {col_tile, row_tile, cta % plan.depth_chunks, cta / plan.depth_chunks / g.K, cta / plan.depth_chunks % g.K};
}

template <typename E>
struct ChannelTile {
  int64_t col_tile, row_tile, depth_chunk, n, k;
  const uint16_t* x_plane;  // input channel k / multiplier of image n
  const uint16_t* w_k;      // filter of output channel k
  E* y_plane;               // output channel k of image n
  float bias_k;
};

template <typename E, typename Plan>
__device__ __forceinline__ ChannelTile<E> channel_tile(const Geometry& g, const Plan& plan, const uint16_t* x,
                                                       const uint16_t* w, const E* bias, E* y,
                                                       int64_t cta = blockIdx.x) {
  const auto [col_tile, row_tile, depth_chunk, n, k] = tile_index(g, plan, cta);
  return {col_tile, row_tile, depth_chunk, n, k, x + n * g.xs[0] + k / g.multiplier * g.xs[1], w + k * g.ws[0],
          y + n * g.ys[0] + k * g.ys[1], bias ? to_float(bias[k]) : 0.f};
}

}  // namespace kforge::depthwise::toeplitz
