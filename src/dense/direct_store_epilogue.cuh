// The direct-store epilogue: y = act(acc [+ bias]) written by the consumer threads straight from their accumulator
// registers to global memory, with no shared-memory staging, no named barrier and no TMA store to wait for.
//
// Why: CUTLASS's TMA epilogue writes a 256x128 tile in 8 rounds (convert, STSM, barrier across both consumer
// warpgroups, one TMA store, wait for the store two rounds back to release its buffer), and the next tile's MMAs
// wait for the last round. Fitted from v3's ncu cycles on c1024_k133 and c1024_k311 (the same tile, K loops of 144
// and 48 blocks): 1031 cycles per K block (99% of the tensor cores' rate) plus ~4.4 k cycles per tile, 8% of a
// c1024_k311 tile (NOTES.md, v49). Stores from registers are fire-and-forget: the threads go on to the next tile
// while the memory system drains them.
// Measured (2026-12-03, v49-v51): slower than the TMA epilogue on every case tried (c1024_k311 +3.5-5%, c512_k111
// +16%; 6% more warp instructions), so no dispatch rule takes it; kept as the measured negative.
//
// How: a wgmma accumulator gives each lane of a quad (4 lanes sharing rows) two adjacent columns of every
// 8-column chunk. Within a quad, four chunks are transposed by shuffles (two rounds of two shfl.xor) so that each
// lane ends up with 8 adjacent columns of one chunk: one 16-byte store per lane, and the quad writes 64 contiguous
// bytes of a row per instruction. Bias and SiLU are applied in fp32 before the single rounding to bf16, as the TMA
// epilogues do.
//
// Limits: the row-major [M, K_out] view of an NDHWC y (16-byte stores need K_out % 8 == 0 and a 16-byte aligned y,
// which the channels-last plan already guarantees for TMA), a tile N that is a multiple of 32 (4 chunks).
#pragma once

#include <cuda_bf16.h>

#include <cutlass/epilogue/collective/detail.hpp>

#include "dense/sm90_conv_common.cuh"

namespace kforge::dense::sm90 {

// Transposes a 4x4 block of 32-bit values across the 4 lanes of a quad: on return, v[p] of lane q holds what
// v[q] of lane p held. Two rounds (lanes 2 apart swap the off-diagonal 2x2 blocks, then lanes 1 apart the
// off-diagonal elements of each block), two shuffles each; every lane of the warp must take part.
CUTLASS_DEVICE void transpose_quad(uint32_t (&v)[4], int lane_in_quad) {
  CUTLASS_PRAGMA_UNROLL
  for (int k = 0; k < 2; ++k) {
    const bool upper = lane_in_quad & 2;
    const uint32_t got = __shfl_xor_sync(0xffffffffu, upper ? v[k] : v[k + 2], 2);
    (upper ? v[k] : v[k + 2]) = got;
  }
  CUTLASS_PRAGMA_UNROLL
  for (int c = 0; c < 4; c += 2) {
    const bool odd = lane_in_quad & 1;
    const uint32_t got = __shfl_xor_sync(0xffffffffu, odd ? v[c] : v[c + 1], 1);
    (odd ? v[c] : v[c + 1]) = got;
  }
}

// The interface of CUTLASS's DefaultEpilogue (what Sm90TmaWarpSpecializedAdapter wraps for the warp-specialized
// GEMM kernels), with the flat bias / activation arguments of the TMA epilogues so that one argument builder
// (persistent_arguments) serves both.
struct DirectStoreEpilogue {
  using ElementC = void;  // no source operand
  using ElementD = Element;
  using StrideC = cute::Stride<int64_t, cute::_1, int64_t>;  // row-major [M, K_out, L]
  using StrideD = StrideC;
  using GmemTiledCopyC = void;
  using GmemTiledCopyD = void;
  using ThreadEpilogueOp = void;  // CUTLASS's device adapter names it; the math lives in finish_pair
  struct SharedStorage {};
  struct Arguments {
    FlatBiasActArguments thread{};
    StrideC dC{};  // no C is read; the argument builder sets it with dD for the TMA epilogues
    Element* ptr_D = nullptr;
    StrideD dD{};
  };
  using Params = Arguments;

  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const&, Arguments const& args, void*) {
    return args;
  }
  template <class ProblemShape>
  static size_t get_workspace_size(ProblemShape const&, Arguments const&) {
    return 0;
  }
  template <class ProblemShape>
  static cutlass::Status initialize_workspace(ProblemShape const&, Arguments const&, void*, cudaStream_t,
                                              cutlass::CudaHostAdapter* = nullptr) {
    return cutlass::Status::kSuccess;
  }
  template <class ProblemShape>
  static bool can_implement(ProblemShape const& problem, Arguments const& args) {
    const auto n = cute::get<1>(problem);
    return n % kAlignment == 0 && reinterpret_cast<uintptr_t>(args.ptr_D) % 16 == 0 &&
           cute::get<0>(args.dD) % kAlignment == 0;
  }

  CUTLASS_HOST_DEVICE explicit DirectStoreEpilogue(Params const& params, SharedStorage const& = {}) : params_(params) {}

  // act(acc + bias) in fp32 for columns n and n + 1 of N, rounded once to a bf16 pair. Columns past N (a partial N
  // tile) are never stored, and their bias is not read: it lies past the bias tensor (compute-sanitizer, 2026-12-03).
  CUTLASS_DEVICE uint32_t finish_pair(float a0, float a1, int64_t n, int N) const {
    if (params_.thread.bias_ptr && n < N) {
      const __nv_bfloat162 b = *reinterpret_cast<const __nv_bfloat162*>(params_.thread.bias_ptr + n);
      a0 += __bfloat162float(b.x);
      a1 += __bfloat162float(b.y);
    }
    if (params_.thread.activation.enabled) {
      a0 = fast_silu(a0);
      a1 = fast_silu(a1);
    }
    const __nv_bfloat162 pair = __floats2bfloat162_rn(a0, a1);
    return reinterpret_cast<const uint32_t&>(pair);
  }

  template <class ProblemShapeMNKL, class BlockShapeMNK, class BlockCoordMNKL, class FrgEngine, class FrgLayout,
            class TiledMma, class ResidueMNK>
  CUTLASS_DEVICE void operator()(ProblemShapeMNKL problem, BlockShapeMNK blk_shape, BlockCoordMNKL blk_coord,
                                 cute::Tensor<FrgEngine, FrgLayout> const& acc, TiledMma tiled_mma, ResidueMNK,
                                 int thread_idx, char*) {
    const int M = cute::get<0>(problem), N = cute::get<1>(problem);
    auto [m_coord, n_coord, k_coord, l_coord] = blk_coord;
    // Each accumulator's (m, n) in the whole output, partitioned as the accumulators are.
    auto tile_coords = cute::local_tile(cute::make_identity_tensor(cute::make_shape(M, N)), cute::take<0, 2>(blk_shape),
                                        cute::make_coord(m_coord, n_coord));
    auto coords = tiled_mma.get_thread_slice(thread_idx).partition_C(tile_coords);  // ((2, 2, chunks), MMA_M, MMA_N)
    // The wgmma accumulator layout this relies on: per atom, (2 adjacent columns, rows r and r + 8, 8-column chunks).
    using AtomValues = decltype(cute::shape<0>(FrgLayout{}));
    static_assert(cute::rank(AtomValues{}) == 3 && cute::size<0>(AtomValues{}) == 2 && cute::size<1>(AtomValues{}) == 2,
                  "expected a wgmma accumulator fragment: (2 columns, 2 row halves, 8-column chunks)");
    constexpr int kChunks = cute::size<2>(AtomValues{});
    static_assert(kChunks % 4 == 0, "the quad transpose takes 4 chunks at a time: tile N must be a multiple of 32");

    const int q = thread_idx % 4;
    const int64_t ldd = cute::get<0>(params_.dD);
    CUTLASS_PRAGMA_UNROLL
    for (int mm = 0; mm < cute::size<1>(acc); ++mm) {
      CUTLASS_PRAGMA_UNROLL
      for (int mn = 0; mn < cute::size<2>(acc); ++mn) {
        CUTLASS_PRAGMA_UNROLL
        for (int h = 0; h < 2; ++h) {
          CUTLASS_PRAGMA_UNROLL
          for (int j0 = 0; j0 < kChunks; j0 += 4) {
            uint32_t v[4];
            CUTLASS_PRAGMA_UNROLL
            for (int c = 0; c < 4; ++c) {
              const auto i0 = cute::make_coord(cute::make_coord(0, h, j0 + c), mm, mn);
              const auto i1 = cute::make_coord(cute::make_coord(1, h, j0 + c), mm, mn);
              v[c] = finish_pair(acc(i0), acc(i1), cute::get<1>(coords(i0)), N);
            }
            transpose_quad(v, q);
            // This lane now holds columns 8 * (j0 + q) .. + 7 (of the tile) of its row: its own pair of that chunk
            // starts at column 8 * (j0 + q) + 2q, i.e. 6q past its own pair of chunk j0.
            const auto first = coords(cute::make_coord(cute::make_coord(0, h, j0), mm, mn));
            const int64_t m = cute::get<0>(first), n = cute::get<1>(first) + 6 * q;
            if (m < M && n < N) {
              *reinterpret_cast<uint4*>(params_.ptr_D + m * ldd + n) = make_uint4(v[0], v[1], v[2], v[3]);
            }
          }
        }
      }
    }
  }

 private:
  Params params_;
};

// What the warp-specialized GEMM kernels take as their epilogue collective.
using DirectStoreCollective = cutlass::epilogue::collective::detail::Sm90TmaWarpSpecializedAdapter<DirectStoreEpilogue>;

}  // namespace kforge::dense::sm90
