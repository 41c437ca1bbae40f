// The overlapped-epilogue conv kernel (v57-v59): a cooperative implicit GEMM whose tile's y leaves while the
// tensor cores already run the next tile's MMAs, where the registers allow it.
//
// Why: CUTLASS's cooperative kernel (v3, v44) runs a tile's epilogue between its last MMA and the next tile's
// first, and the tensor cores idle meanwhile: ~4.4 k cycles per 256x128 tile, 8% of a c1024_k311 tile (48 K
// blocks), fitted from ncu cycles (NOTES.md, v49). Storing from registers instead (v49) cost more than it saved; the
// skewed consumers of the halo kernel did not change where the epilogue sits.
//
// How: the tile's rows are 64-row blocks (one wgmma's M), the first ceil(B/2) of them the first consumer
// warpgroup's and the rest the second's. With up to two blocks each (v57's 256x128, v59's 128x256: 128 accumulators
// per thread either way) the kernel is persistent: the warpgroups turn their accumulators into bf16 pairs (bias,
// SiLU) held in registers (64 per thread), start the next tile's first K block, and while its wgmmas run store the
// pairs in 32-column chunks (four of 128 columns, eight of 256), one per K block: stmatrix into a swizzled
// shared-memory buffer, one TMA store per 64-row block, two buffers per warpgroup so that a chunk's store drains
// while the next chunk is written. No barrier spans both warpgroups. With three (the 320-row tile, v58: 192
// accumulators per thread) the pairs do not fit beside accumulators that stay live into a next tile, so each CTA
// runs one tile and stores its chunks after the K loop; that tile is for grids that one wave of it covers
// (c64_stride2: 116 tiles of 320 rows on 132 SMs, against 144 of 256).
// The producer (one thread) is CUTLASS's im2col mainloop, as in every CUTLASS-composed variant; the consumers' K
// loop is ours because CUTLASS's `mma` runs a tile's whole loop.
// Cost: 8 KiB of shared memory per 64-row block for the buffers (4 stages of 48 KiB still fit beside 256 rows' 32
// KiB) and 64 registers per consumer thread for the pairs (232 available).
//
// Limits (can_implement): NDHWC y, K_out % 8 == 0 (16-byte TMA rows), M = N*Do*Ho*Wo < 2^31, fewer than 2^30
// tiles, and the im2col mainloop's own limits.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>

#include <cute/arch/copy_sm90.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>

#include <algorithm>

#include "core/cuda_check.hpp"
#include "core/tensor_map.hpp"
#include "dense/sm90_conv_persistent.cuh"

namespace kforge::dense::sm90 {

template <class TileShape>
struct OverlappedEpilogueConv {
  using Tile = TileShape;
  static constexpr OutputOrder kOutput = OutputOrder::ndhwc;
  static constexpr int kTileM = size<0>(TileShape{}), kTileN = size<1>(TileShape{});
  static constexpr int kChunkCols = 32;                    // one 64-byte row per pixel: TMA SWIZZLE_64B
  static constexpr int kChunks = kTileN / kChunkCols;      // stored under the next tile's first kChunks K blocks
  static constexpr int kBlockRows = 64;                    // a wgmma's rows: one TMA store box
  static constexpr int kBlocks = kTileM / kBlockRows;
  static constexpr int kFirstBlocks = (kBlocks + 1) / 2;  // the first consumer warpgroup's; the second has the rest
  static_assert(kTileM % kBlockRows == 0 && kBlocks >= 2 && kTileN % kChunkCols == 0,
                "64-row blocks, 32-column chunks");
  static constexpr int kBlockBytes = kBlockRows * kChunkCols * 2;
  static constexpr int kEpilogueBytes = 2 * kBlocks * kBlockBytes;  // two buffers of each block's chunk
  static constexpr int kStages = stages_beside<TileShape>(kEpilogueBytes + 1024);  // + the base's alignment slack
  // Two blocks per warpgroup: persistent, y stored under the next tile's first K blocks. Three (320 rows): the
  // pairs do not fit beside accumulators that stay live into a next tile's wgmmas (ptxas spills and serializes
  // them, C7511), so one tile per CTA, y stored after its K loop.
  static constexpr bool kPersistent = kFirstBlocks <= 2;
  // The same register budget: SiLU's temporaries beside three blocks' accumulators spill, so that tile leaves the
  // activation to other variants.
  static constexpr bool kFusesSilu = kPersistent;
  // The one-warpgroup TiledMma (as ping-pong's): each consumer warpgroup issues the wgmmas of its own blocks.
  using Mainloop =
      ImplicitGemmMainloop<TileShape, Shape<_1, _1, _1>, cutlass::gemm::KernelTmaWarpSpecializedPingpong, kStages>;
  using Collective = typename Mainloop::Collective;
  using TiledMma = typename Mainloop::TiledMma;

  struct SharedStorage {
    typename Collective::TensorStorage tensors;
    alignas(1024) uint8_t epilogue[kEpilogueBytes];  // SWIZZLE_64B boxes start on the pattern's 512-byte boundary
    typename Collective::PipelineStorage pipeline;
  };
  static constexpr int kSmemBytes = int(sizeof(SharedStorage)) + 1024;  // + slack to align the dynamic base
  static_assert(kSmemBytes <= cutlass::gemm::collective::detail::sm90_smem_capacity_bytes, "shared memory");

  struct Params {
    typename Collective::Params mainloop;
    LinearProblemShape problem;
    CUtensorMap y_map;  // y as [M, K_out] rows, 32 x 64 boxes, SWIZZLE_64B
    const Element* bias;  // null: none
    bool silu;
    bool n_fastest;  // tile_mn
    int n_out, m_tiles, n_tiles;
    int num_tiles;  // < 2^30 (can_implement): 32-bit tile indices, no 64-bit division call in the consumers
  };

  struct Arguments {
    const Element* x = nullptr;
    const Element* w = nullptr;
    const Element* bias = nullptr;
    Element* y = nullptr;
    ConvShape conv{};
    bool silu = false;
    bool m_fastest = false;  // tile_mn's walk (tile_walk.hpp)
    int sm_count = 0;
  };

  // GemmUniversalAdapter's interface, which make_variant and run_cutlass drive.
  struct Device {
    using Arguments = OverlappedEpilogueConv::Arguments;
    static cutlass::Status can_implement(Arguments const& a) {
      const LinearProblemShape mnkl = linear_problem_shape(a.conv);
      const int n_out = get<1>(mnkl);
      const bool y_ok = n_out % kAlignment == 0 && reinterpret_cast<uintptr_t>(a.y) % 16 == 0;
      const int64_t tiles = (get<0>(mnkl) + kTileM - 1) / kTileM * ((n_out + kTileN - 1) / kTileN);
      const bool ok = y_ok && tiles < (int64_t{1} << 30) && Collective::can_implement(a.conv, {a.x, a.w});
      return ok ? cutlass::Status::kSuccess : cutlass::Status::kErrorInvalidProblem;
    }
    static size_t get_workspace_size(Arguments const&) { return 0; }
    cutlass::Status initialize(Arguments const& a, void*, cudaStream_t) {
      const LinearProblemShape mnkl = linear_problem_shape(a.conv);
      const int64_t m = get<0>(mnkl);
      params_.mainloop = Collective::to_underlying_arguments(a.conv, {a.x, a.w}, nullptr);
      params_.problem = mnkl;
      params_.n_out = get<1>(mnkl);
      params_.y_map = tiled_map_16bit<2>(a.y, {uint64_t(params_.n_out), uint64_t(m)}, {uint64_t(params_.n_out) * 2},
                                         {kChunkCols, kBlockRows}, CU_TENSOR_MAP_SWIZZLE_64B);
      params_.bias = a.bias;
      params_.silu = a.silu;
      params_.n_tiles = (params_.n_out + kTileN - 1) / kTileN;
      params_.m_tiles = int((m + kTileM - 1) / kTileM);
      params_.n_fastest = !a.m_fastest;
      params_.num_tiles = int(int64_t{params_.m_tiles} * params_.n_tiles);
      sm_count_ = a.sm_count;
      return cutlass::Status::kSuccess;
    }
    cutlass::Status run(cudaStream_t s);

   private:
    Params params_{};
    int sm_count_ = 0;
  };
};

// Tile `tile`'s (M tile, N tile), walked as the variant's TileWalk chose (overlapped_arguments).
template <class Params>
__device__ inline cute::tuple<int, int> tile_mn(const Params& p, int tile) {
  if (p.n_fastest) return {tile / p.n_tiles, tile % p.n_tiles};
  return {tile % p.m_tiles, tile / p.m_tiles};
}

// Swizzle<2, 4, 3> of a byte offset into a box of 64-byte rows (TMA SWIZZLE_64B): bits 4-5 (the 16-byte unit in
// the row) XOR bits 7-8 (the row pair within 8 rows).
__device__ inline uint32_t swizzle_64b(uint32_t offset) { return offset ^ (((offset >> 7) & 3) << 4); }

__device__ inline uint32_t bf16_pair(float a, float b) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(a, b);
  return reinterpret_cast<const uint32_t&>(v);
}

// One consumer warpgroup's tiles: the K loops of its `Blocks` 64-row blocks, from block `FirstBlock` of each tile,
// and their epilogue (under the next tile's first K blocks where the kernel is persistent). Inlined:
// a call would end the setmaxnreg budget of 232 registers and serialize the wgmmas across it (ptxas C7510).
template <class Conv, int FirstBlock, int Blocks>
__device__ __forceinline__ void overlapped_epilogue_consumer(const typename Conv::Params& p,
                                                             typename Conv::SharedStorage& ss,
                                                             typename Conv::Collective::MainloopPipeline& pipeline,
                                                             int k_tiles, int half) {
  using TiledMma = typename Conv::TiledMma;
  using Mainloop = typename Conv::Mainloop;
  using PipelineState = typename Conv::Collective::PipelineState;
  const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
  TiledMma tiled_mma;
  auto mma = tiled_mma.get_thread_slice(threadIdx.x % 128);
  // A: (MMA, 64-row block of the tile, k, stage); this warpgroup reads blocks [FirstBlock, FirstBlock + Blocks).
  Tensor tCrA = mma.make_fragment_A(mma.partition_A(make_tensor(make_smem_ptr(ss.tensors.smem_A.data()),
                                                                typename Mainloop::SmemLayoutA{})));
  Tensor tCrB = mma.make_fragment_B(mma.partition_B(make_tensor(make_smem_ptr(ss.tensors.smem_B.data()),
                                                                typename Mainloop::SmemLayoutB{})));
  using Rows = Shape<Int<Blocks * Conv::kBlockRows>, Int<Conv::kTileN>>;
  Tensor accum = partition_fragment_C(tiled_mma, Rows{});  // ((2 cols, 2 row halves, 8-column groups), block, 1)
  Tensor coords = mma.partition_C(make_identity_tensor(Rows{}));  // (row, col) in this warpgroup's rows
  constexpr int kPairs = decltype(size<0, 2>(accum))::value;
  static_assert(decltype(size<1>(accum))::value == Blocks && kPairs == Conv::kTileN / 8 &&
                    decltype(size<2>(accum))::value == 1 && decltype(size<1>(tCrA))::value == Conv::kBlocks,
                "one m64 x kTileN wgmma per block");

  // The tile's y as bf16 pairs: [64-row block][8-column group][row half] (wgmma's accumulator layout: row 16 * warp
  // + lane / 4 (+ 8), columns 8j + 2 * (lane % 4) (+ 1)).
  uint32_t out[Blocks][kPairs][2];
  int pending_m0 = -1, pending_n0 = 0;  // the tile in `out`; -1: nothing to store
  constexpr int kBufferBytes = Blocks * Conv::kBlockBytes;  // one chunk of this warpgroup's blocks
  uint8_t* buffers = ss.epilogue + 2 * FirstBlock * Conv::kBlockBytes;
  const bool issuer = threadIdx.x % 128 == 0;
  // Chunk c of `out` (a compile-time index: `out` must stay in registers).
  auto store_chunk = [&](auto chunk) {
    constexpr int c = decltype(chunk)::value;
    uint8_t* buffer = buffers + (c & 1) * kBufferBytes;
    if (issuer) cute::tma_store_wait<1>();  // this buffer's previous store (two chunks back) has read it
    cutlass::arch::NamedBarrier::sync(128, half);
    // stmatrix x4: lane l addresses row l % 8 of matrix l / 8 = (row half, 8-column group) (l / 8 % 2, l / 16).
    const uint32_t row = 16 * warp + 8 * (lane / 8 % 2) + lane % 8;
#pragma unroll
    for (int b = 0; b < Blocks; ++b) {
#pragma unroll
      for (int g = 0; g < Conv::kChunkCols / 8; g += 2) {
        const int j = c * Conv::kChunkCols / 8 + g;
        const uint32_t offset = swizzle_64b(row * 64 + (g + lane / 16) * 16);
        cute::SM90_U32x4_STSM_N::copy(out[b][j][0], out[b][j][1], out[b][j + 1][0], out[b][j + 1][1],
                                      *reinterpret_cast<cute::uint128_t*>(buffer + b * Conv::kBlockBytes + offset));
      }
    }
    cute::tma_store_fence();  // the generic-proxy writes become visible to TMA
    cutlass::arch::NamedBarrier::sync(128, half);
    if (issuer) {
#pragma unroll
      for (int b = 0; b < Blocks; ++b) {
        cute::SM90_TMA_STORE_2D::copy(&p.y_map, buffer + b * Conv::kBlockBytes, pending_n0 + c * Conv::kChunkCols,
                                      pending_m0 + (FirstBlock + b) * Conv::kBlockRows);
      }
      cute::tma_store_arrive();
    }
  };
  // K block k of the tile: wait for its stage, issue its wgmmas, then `under` (the epilogue's work that runs while
  // they do), then wait for the previous K block's wgmmas and free that stage.
  PipelineState read, release;
  auto k_block = [&](int k, auto&& under) {
    pipeline.consumer_wait(read);
    const int stage = read.index();
    warpgroup_fence_operand(accum);
    warpgroup_arrive();
#pragma unroll
    for (int kb = 0; kb < size<2>(tCrA); ++kb) {
#pragma unroll
      for (int b = 0; b < Blocks; ++b) {
        cute::gemm(tiled_mma, tCrA(_, FirstBlock + b, kb, stage), tCrB(_, 0, kb, stage), accum(_, b, 0));
      }
      tiled_mma.accumulate_ = GMMA::ScaleOut::One;
    }
    warpgroup_commit_batch();
    under();
    warpgroup_wait<1>();
    warpgroup_fence_operand(accum);
    if (k > 0) {
      pipeline.consumer_release(release);
      ++release;
    }
    ++read;
  };
  // act(acc [+ bias]) as bf16 pairs into `out`; the flags are template arguments so that neither the bias nor SiLU
  // costs instructions where it is absent (uniform branches below pick the instantiation once per tile).
  auto finish = [&](auto with_bias, auto with_silu) {
#pragma unroll
    for (int j = 0; j < kPairs; ++j) {
      // This thread's two columns of group j; columns past K_out are never stored, and their bias is not read.
      float b0 = 0.f, b1 = 0.f;
      if constexpr (decltype(with_bias)::value) {
        const int n = pending_n0 + int(get<1>(coords(make_coord(make_coord(0, 0, j), 0, 0))));
        if (n < p.n_out) {
          const __nv_bfloat162 b = *reinterpret_cast<const __nv_bfloat162*>(p.bias + n);
          b0 = __bfloat162float(b.x), b1 = __bfloat162float(b.y);
        }
      }
#pragma unroll
      for (int blk = 0; blk < Blocks; ++blk) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float v0 = accum(make_coord(make_coord(0, h, j), blk, 0));
          float v1 = accum(make_coord(make_coord(1, h, j), blk, 0));
          if constexpr (decltype(with_bias)::value) v0 += b0, v1 += b1;
          if constexpr (decltype(with_silu)::value) v0 = fast_silu(v0), v1 = fast_silu(v1);
          out[blk][j][h] = bf16_pair(v0, v1);
        }
      }
    }
  };
  for (int tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
    // The first kChunks K blocks carry the previous tile's chunks (after the loop where the K loop is shorter).
    cute::for_each(cute::make_int_sequence<Conv::kChunks>{}, [&](auto chunk) {
      constexpr int c = decltype(chunk)::value;
      auto store = [&] {
        if constexpr (Conv::kPersistent) {
          if (pending_m0 >= 0) store_chunk(chunk);
        }
      };
      if (c < k_tiles) {
        k_block(c, store);
      } else {
        store();
      }
    });
    for (int k = Conv::kChunks; k < k_tiles; ++k) k_block(k, [] {});
    warpgroup_wait<0>();
    warpgroup_fence_operand(accum);
    pipeline.consumer_release(release);
    ++release;

    const auto [m_tile, n_tile] = tile_mn(p, tile);
    pending_m0 = m_tile * Conv::kTileM;
    pending_n0 = n_tile * Conv::kTileN;
    auto finish_tile = [&](auto with_silu) {
      p.bias ? finish(cute::true_type{}, with_silu) : finish(cute::false_type{}, with_silu);
    };
    if constexpr (Conv::kFusesSilu) {
      p.silu ? finish_tile(cute::true_type{}) : finish_tile(cute::false_type{});
    } else {
      finish_tile(cute::false_type{});
    }
    if constexpr (!Conv::kPersistent) break;  // one tile per CTA: no back edge, the accumulators die into `out`
  }
  if (pending_m0 >= 0) cute::for_each(cute::make_int_sequence<Conv::kChunks>{}, store_chunk);
  if (issuer) cute::tma_store_wait<0>();  // the buffers outlive the stores that read them
}

template <class Conv>
__global__ void __launch_bounds__(384, 1) overlapped_epilogue_kernel(const __grid_constant__ typename Conv::Params p) {
#if defined(__CUDA_ARCH__) && defined(CUTE_ARCH_MMA_SM90A_ENABLED)
  using Collective = typename Conv::Collective;
  using Pipeline = typename Collective::MainloopPipeline;
  using PipelineState = typename Collective::PipelineState;
  extern __shared__ uint8_t smem_raw[];
  auto& ss = *reinterpret_cast<typename Conv::SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                                              ~uintptr_t(1023));
  const int warpgroup = threadIdx.x / 128, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;

  typename Pipeline::Params pipeline_params;
  if (warpgroup == 0 && warp == 0) pipeline_params.role = Pipeline::ThreadCategory::Producer;
  if (warpgroup > 0) pipeline_params.role = Pipeline::ThreadCategory::Consumer;
  pipeline_params.is_leader = threadIdx.x % 128 == 0;
  pipeline_params.num_consumers = 256;
  pipeline_params.transaction_bytes = p.mainloop.tma_transaction_bytes;
  Pipeline pipeline(ss.pipeline, pipeline_params, Shape<_1, _1, _1>{});
  __syncthreads();  // the barriers are initialized before anyone waits on them

  Collective mainloop;
  const auto [gA_mk, gB_nk] = mainloop.load_init(p.problem, p.mainloop);
  const int k_tiles = int(size<3>(gA_mk));

  if (warpgroup == 0) {
    cutlass::arch::warpgroup_reg_dealloc<40>();
    if (warp != 0) return;
    if (cute::elect_one_sync()) Collective::prefetch_tma_descriptors(p.mainloop);
    PipelineState write = cutlass::make_producer_start_state<Pipeline>();
    for (int tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
      const auto [m_tile, n_tile] = tile_mn(p, tile);
      const auto blk = make_coord(m_tile, n_tile, _, 0);
      mainloop.load(p.mainloop, pipeline, write, cute::make_tuple(gA_mk, gB_nk), blk,
                    make_coord_iterator(shape<3>(gA_mk)), k_tiles, lane, 0, ss.tensors);
      write.advance(k_tiles);
    }
    mainloop.load_tail(pipeline, write);
    return;
  }

  cutlass::arch::warpgroup_reg_alloc<232>();
  if (warpgroup == 1) {
    overlapped_epilogue_consumer<Conv, 0, Conv::kFirstBlocks>(p, ss, pipeline, k_tiles, 0);
  } else {
    overlapped_epilogue_consumer<Conv, Conv::kFirstBlocks, Conv::kBlocks - Conv::kFirstBlocks>(p, ss, pipeline,
                                                                                               k_tiles, 1);
  }
#endif
}

template <class TileShape>
cutlass::Status OverlappedEpilogueConv<TileShape>::Device::run(cudaStream_t s) {
  using Conv = OverlappedEpilogueConv<TileShape>;
  const int64_t grid = Conv::kPersistent ? std::min<int64_t>(params_.num_tiles, sm_count_) : params_.num_tiles;
  if (grid == 0) return cutlass::Status::kSuccess;
  auto* kernel = overlapped_epilogue_kernel<Conv>;
  KF_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Conv::kSmemBytes));
  kernel<<<dim3(unsigned(grid)), dim3(384), Conv::kSmemBytes, s>>>(params_);
  return cudaGetLastError() == cudaSuccess ? cutlass::Status::kSuccess : cutlass::Status::kErrorInternal;
}

template <class Conv>
typename Conv::Arguments overlapped_arguments(const ConvProblem& in, const void* x, const void* w, const void* bias,
                                              void* y, const cutlass::KernelHardwareInfo& hw, TileWalk walk) {
  typename Conv::Arguments a;
  a.x = static_cast<const Element*>(x);
  a.w = static_cast<const Element*>(w);
  a.bias = static_cast<const Element*>(bias);
  a.y = static_cast<Element*>(y);
  a.conv = conv_shape(in);
  a.silu = in.activation == Activation::silu;
  const int64_t m_tiles = (in.N * in.Do * in.Ho * in.Wo + Conv::kTileM - 1) / Conv::kTileM;
  a.m_fastest = walks_m_fastest(walk, in, m_tiles, (in.K + Conv::kTileN - 1) / Conv::kTileN);
  a.sm_count = hw.sm_count;
  return a;
}

template <class Conv>
Variant overlapped_epilogue_variant(std::string name, std::string idea, std::string source,
                                    TileWalk walk = TileWalk::shorter_extent_first) {
  Variant v = make_variant<Conv>(std::move(name), std::move(idea), std::move(source), Conv::kOutput,
                                 [walk](const ConvProblem& in, const void* x, const void* w, const void* b, void* y,
                                        const cutlass::KernelHardwareInfo& hw) {
                                   return overlapped_arguments<Conv>(in, x, w, b, y, hw, walk);
                                 });
  v.fuses_activation = Conv::kFusesSilu;
  return v;
}

}  // namespace kforge::dense::sm90
