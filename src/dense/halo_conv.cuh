// The halo-row conv kernel (v26-v31): an implicit GEMM whose A operand is staged once per filter row instead of
// once per filter tap.
//
// The im2col mainloop (v2-v25) loads, for every tap (t, r, s), the 256 input pixels that tap multiplies: every
// input pixel crosses L2 -> shared memory T*R*S times per N tile. Here a CTA's M tile is 256 consecutive output
// pixels of one output row (n, do, ho), and a stage holds, for one (t, r) and one 32-channel chunk, the halo of
// 256 + (S-1)*dilation input pixels that all S taps of that row read. Tap s is the same shared-memory tile shifted by
// s*dilation pixels: the wgmma descriptor of A starts s*dilation rows further. A's L2 -> SM bytes drop by S (3x on
// a 3x3x3 conv); B (the S taps' K_out x 32 filter slices) comes with each stage.
//
// Layout: NDHWC x, KTRSC w, NDHWC y, C % 8 == 0 (the channels-last plan stages anything else). A stage is
//   A: kHaloPixels rows of 64 bytes (32 channels), TMA SWIZZLE_64B, written by two boxes of kBoxPixels pixels
//      (a TMA box holds at most 256 rows); pixels outside [0, W) and channels past C read as zeros;
//   B: S slices of BN rows (output channels) x 64 bytes, SWIZZLE_64B; output channels past K read as zeros.
// Filter rows whose input row (d, h) lies in the padding are skipped by producer and consumers alike (they add 0).
// Warp specialization as in CUTLASS's cooperative kernel: warpgroup 0's first warp issues the TMA loads, warpgroups
// 1 and 2 each own 128 of the 256 pixels (two m64 wgmmas per tap and 16 channels) and store their accumulators
// straight from registers (bias, optional SiLU). The grid is persistent: cluster i takes tiles i, i + clusters, ...
// kCluster = 2 (v28-v31): the two CTAs of a cluster take neighbouring output rows (h, h + 1) of the same tile
// column and share B, which the first CTA multicasts into both; they walk the union of their valid filter rows (an
// input row outside the tensor reads as zeros), so both consume the same stage sequence.
// Limits: stride 1 and S <= 3 along W (a row of output pixels must map to consecutive input pixels).
#pragma once

#include <cuda.h>

#include <cute/arch/cluster_sm90.hpp>
#include <cute/arch/copy_sm90_desc.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cute/arch/mma_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/bfloat16.h>

#include <utility>

#include "dense/silu.cuh"

namespace kforge::dense::halo {

constexpr int kTileM = 256;                        // output pixels per tile: two consumer warpgroups x 128
constexpr int kChunk = 32;                         // input channels per stage
constexpr int kRowBytes = kChunk * 2;              // one 64-byte row per pixel, swizzled: SWIZZLE_64B
constexpr int kSwizzleBytes = 8 * kRowBytes;       // the swizzle pattern repeats every 8 rows
constexpr CUtensorMapSwizzle kTmaSwizzle = CU_TENSOR_MAP_SWIZZLE_64B;
constexpr uint64_t kWgmmaLayout = 2;               // the wgmma descriptor's code for SWIZZLE_64B
constexpr int kMaxS = 3;                           // filter taps along W
constexpr int kBoxPixels = 136;                    // two boxes of 136 rows (17 patterns each: aligned)
constexpr int kHaloPixels = 2 * kBoxPixels;        // >= kTileM + (S-1) * dilation
constexpr int kABytes = kHaloPixels * kRowBytes;
constexpr int kThreads = 384;                      // producer warpgroup + two consumer warpgroups
constexpr int kSmemLimit = 227 * 1024;             // sm_90 dynamic shared memory per block

template <int BN>
struct Tile {
  static_assert(BN % 16 == 0 && BN <= 256, "wgmma N");
  static constexpr int kBBytes = kMaxS * BN * kRowBytes;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static_assert(kStageBytes % kSwizzleBytes == 0, "stages must keep the swizzle pattern's alignment");
  static constexpr int kBarrierBytes = 1024;  // full/empty mbarriers, rounded up
  static constexpr int kStages = (kSmemLimit - kBarrierBytes - 1024) / kStageBytes;
  static constexpr int kSmemBytes = kStages * kStageBytes + kBarrierBytes + 1024;  // + alignment slack
  static_assert(kStages >= 3, "tile too large for three stages");
};

// The conv geometry the kernel walks (inner problem: NDHWC x, KTRSC w, NDHWC y).
struct HaloParams {
  int D, H, C, K, T, R, S, Do, Ho, Wo;  // W: TMA bounds the rows
  int stride_d, stride_h, pad_d, pad_h, pad_w, dil_d, dil_h, dil_w;
  int k_tiles, w_tiles;
  int plane_block;  // output planes walked before the tile column moves on (decode_tile)
  int64_t num_tiles;
  int64_t y_n, y_d, y_h, y_w;  // y's element strides (channels innermost)
  __nv_bfloat16* y;
  const __nv_bfloat16* bias;  // null: none
  bool silu;
};

struct TileCoord {
  int n, d, h, w0, k0;
  int h_first;  // the first of the cluster's kCluster output rows (h = h_first + rank)
};

// A tile is (k0, d, w0, a group of kCluster output rows, n), walked in that order (fastest first) within blocks of
// plane_block output planes; `rank` picks this CTA's row of the group. Output channels innermost: CTAs running side
// by side share the input rows they read from L2. Planes next: the T output planes that read an input plane (one per
// filter plane t) run close together, so that plane crosses DRAM -> L2 once instead of up to T times when a plane of
// input rows is larger than L2 (plane_block 1, v26-v29's order: wan21_up3's planes are 177 MB). The block bounds the
// distance between the row groups that share input rows (R - 1 rows each way) to plane_block planes of tiles.
template <int kCluster>
__device__ inline TileCoord decode_tile(const HaloParams& p, int64_t tile, int bn, int rank) {
  const int row_groups = (p.Ho + kCluster - 1) / kCluster;
  const int64_t plane_tiles = int64_t{p.k_tiles} * p.w_tiles * row_groups;
  const int64_t image_tiles = plane_tiles * p.Do, block_tiles = plane_tiles * p.plane_block;
  TileCoord c;
  c.n = int(tile / image_tiles);
  tile %= image_tiles;
  const int block = int(tile / block_tiles);  // every block before it is full
  tile %= block_tiles;
  const int planes = min(p.plane_block, p.Do - block * p.plane_block);
  c.k0 = int(tile % p.k_tiles) * bn;
  tile /= p.k_tiles;
  c.d = block * p.plane_block + int(tile % planes);
  tile /= planes;
  c.w0 = int(tile % p.w_tiles) * kTileM;
  c.h_first = int(tile / p.w_tiles) * kCluster;
  c.h = c.h_first + rank;
  return c;
}

// Calls f(t, r, d_in, h_in) for the filter rows that read an input row inside the tensor for at least one CTA of the
// cluster, in the same order for the producers and the consumers of every CTA (the stage rings' phases and the
// multicast B depend on it). h_in is this CTA's row, which may lie outside (TMA then reads zeros).
template <int kCluster, class F>
__device__ inline void for_each_filter_row(const HaloParams& p, const TileCoord& c, F&& f) {
  for (int t = 0; t < p.T; ++t) {
    const int d_in = c.d * p.stride_d - p.pad_d + t * p.dil_d;
    if (d_in < 0 || d_in >= p.D) continue;
    for (int r = 0; r < p.R; ++r) {
      const int first_in = c.h_first * p.stride_h - p.pad_h + r * p.dil_h;
      const int last_in = first_in + (kCluster - 1) * p.stride_h;
      if (last_in < 0 || first_in >= p.H) continue;
      f(t, r, d_in, first_in + (c.h - c.h_first) * p.stride_h);
    }
  }
}

// wgmma descriptor of a K-major swizzled operand starting at `addr` (rows kRowBytes apart, 8-row groups
// kSwizzleBytes apart). A starts at any row of the halo, not only at a multiple of 8, with the matrix base offset
// left 0: the hardware swizzles the absolute shared-memory address, as TMA wrote it. Measured on the H200
// (2026-12-02 06:37 UTC): with the base offset set to (addr >> 7) & 7, as the PTX ISA describes it for starts off
// the pattern's boundary, every tap whose start moved bit 7 or above read the wrong rows (calc_diff 0.33 with
// taps 64 and 128 bytes in, 0.65 with dilation 2: 128 and 256 bytes), while the 64-byte start read right.
__device__ inline uint64_t swizzled_desc(uint32_t addr) {
  uint64_t d = (addr & 0x3FFFF) >> 4;                  // start address, 16-byte units
  d |= uint64_t(1) << 16;                              // leading byte offset: unused by swizzled K-major layouts
  d |= uint64_t(kSwizzleBytes >> 4) << 32;             // stride byte offset: next 8 rows
  d |= kWgmmaLayout << 62;                             // base offset (bits 49-51): 0
  return d;
}

// The m64 x BN x k16 bf16 wgmma (fp32 accumulators, both operands K-major in shared memory), as CuTe picks it.
template <int BN>
using WgmmaOp = decltype(cute::SM90::GMMA::ss_op_selector<cute::bfloat16_t, cute::bfloat16_t, float,
                                                          cute::Shape<cute::_64, cute::Int<BN>, cute::_16>,
                                                          cute::SM90::GMMA::Major::K, cute::SM90::GMMA::Major::K>());

template <class Op, size_t... I>
__device__ inline void wgmma(uint64_t a, uint64_t b, float* acc, std::index_sequence<I...>) {
  Op::fma(a, b, acc[I]...);
}

template <int N>
__device__ inline void fence_accumulators(float (&acc)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) cute::warpgroup_fence_operand(acc[i]);
}

// kS: the filter's taps along W (a compile-time count keeps each stage's wgmmas one straight-line batch; a
// run-time loop bound makes ptxas fence the accumulators between them, warning C7519). kCluster: CTAs sharing B.
template <int BN, int kS, int kCluster>
__global__ void __launch_bounds__(kThreads, 1)
    halo_conv_kernel(const __grid_constant__ CUtensorMap x_map, const __grid_constant__ CUtensorMap w_map,
                     const HaloParams p) {
#if defined(__CUDA_ARCH__) && defined(CUTE_ARCH_MMA_SM90A_ENABLED)
  using Cfg = Tile<BN>;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + Cfg::kStages * Cfg::kStageBytes);
  uint64_t* empty = full + Cfg::kStages;
  auto stage_a = [&](int st) { return smem + st * Cfg::kStageBytes; };
  auto stage_b = [&](int st) { return smem + st * Cfg::kStageBytes + kABytes; };

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warpgroup = threadIdx.x / 128;
  const int rank = kCluster == 1 ? 0 : int(cute::block_rank_in_cluster());
  const int64_t cluster_id = blockIdx.x / kCluster, clusters = gridDim.x / kCluster;
  constexpr int kConsumerWarps = 8;
  if (threadIdx.x == 0) {
    for (int st = 0; st < Cfg::kStages; ++st) {
      cutlass::arch::ClusterTransactionBarrier::init(&full[st], 1);
      // A stage is free once every consumer warp of the cluster is done with it (B landed in all of them at once).
      cutlass::arch::ClusterBarrier::init(&empty[st], kConsumerWarps * kCluster);
    }
    cutlass::arch::fence_barrier_init();
  }
  if constexpr (kCluster > 1) {
    cute::cluster_sync();  // the peer's barriers are initialized before anyone arrives on them
  } else {
    __syncthreads();
  }

  const int chunks = (p.C + kChunk - 1) / kChunk;
  if (warpgroup == 0) {
    cutlass::arch::warpgroup_reg_dealloc<56>();  // CUTLASS's 40 spill the tile and filter-row walk here
    if (warp != 0 || lane != 0) return;
    cute::prefetch_tma_descriptor(reinterpret_cast<const cute::TmaDescriptor*>(&x_map));
    cute::prefetch_tma_descriptor(reinterpret_cast<const cute::TmaDescriptor*>(&w_map));
    constexpr uint64_t hint = uint64_t(cute::TMA::CacheHintSm90::EVICT_NORMAL);
    const uint32_t stage_tx = kABytes + kS * BN * kRowBytes;
    int st = 0;
    uint32_t phase = 0;
    for (int64_t tile = cluster_id; tile < p.num_tiles; tile += clusters) {
      const TileCoord c = decode_tile<kCluster>(p, tile, BN, rank);
      for_each_filter_row<kCluster>(p, c, [&](int t, int r, int d_in, int h_in) {
        for (int ch = 0; ch < chunks; ++ch) {
          cutlass::arch::ClusterBarrier::wait(&empty[st], phase ^ 1);
          cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&full[st], stage_tx);
          const int c0 = ch * kChunk, w_in = c.w0 - p.pad_w;
          cute::SM90_TMA_LOAD_5D::copy(&x_map, &full[st], hint, stage_a(st), c0, w_in, h_in, d_in, c.n);
          cute::SM90_TMA_LOAD_5D::copy(&x_map, &full[st], hint, stage_a(st) + kBoxPixels * kRowBytes, c0,
                                       w_in + kBoxPixels, h_in, d_in, c.n);
          if constexpr (kCluster == 1) {
            cute::SM90_TMA_LOAD_5D::copy(&w_map, &full[st], hint, stage_b(st), c0, c.k0, 0, r, t);
          } else if (rank == 0) {  // B into every CTA of the cluster, each completing its own stage barrier
            cute::SM90_TMA_LOAD_MULTICAST_5D::copy(&w_map, &full[st], uint16_t((1 << kCluster) - 1), hint,
                                                   stage_b(st), c0, c.k0, 0, r, t);
          }
          if (++st == Cfg::kStages) st = 0, phase ^= 1;
        }
      });
    }
    // Stay until every consumer of the cluster has released every stage: the peer's consumers arrive on this
    // CTA's barriers, which must outlive those arrivals.
    for (int i = 0; i < Cfg::kStages; ++i) {
      cutlass::arch::ClusterBarrier::wait(&empty[st], phase ^ 1);
      if (++st == Cfg::kStages) st = 0, phase ^= 1;
    }
    return;
  }

  cutlass::arch::warpgroup_reg_alloc<224>();
  using Op = WgmmaOp<BN>;
  constexpr int kAcc = BN / 2;  // fp32 accumulators per thread of one m64 x BN wgmma
  const int half = warpgroup - 1;  // this warpgroup's 128 pixels of the tile
  float acc[2][kAcc];
  int st = 0;
  uint32_t phase = 0;
  // Descriptors advance by adding 16-byte units to their start address field (it cannot carry: shared memory ends
  // below 2^18 bytes). Tap s starts s * dilation rows further into the halo.
  const uint64_t tap_step = uint64_t(p.dil_w) * kRowBytes / 16;
  auto release = [&](int stage) {  // every consumer warp tells every producer of the cluster
    if (lane == 0)
      for (int cta = 0; cta < kCluster; ++cta) cutlass::arch::ClusterBarrier::arrive(&empty[stage], cta, 1);
  };
  for (int64_t tile = cluster_id; tile < p.num_tiles; tile += clusters) {
    const TileCoord c = decode_tile<kCluster>(p, tile, BN, rank);
#pragma unroll
    for (int i = 0; i < kAcc; ++i) acc[0][i] = acc[1][i] = 0.f;
    // The epilogue's bias, loaded now so that its latency hides under the mainloop: this thread's columns
    // 8j + 2 * (lane % 4) (+1).
    float bias[BN / 8][2];
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int k = c.k0 + 8 * j + 2 * (lane % 4);
      const bool has = p.bias && k < p.K;
      bias[j][0] = has ? __bfloat162float(p.bias[k]) : 0.f;
      bias[j][1] = has ? __bfloat162float(p.bias[k + 1]) : 0.f;
    }
    int last = -1;  // the stage whose wgmmas may still be in flight
    for_each_filter_row<kCluster>(p, c, [&](int, int, int, int) {
      for (int ch = 0; ch < chunks; ++ch) {
        cutlass::arch::ClusterBarrier::wait(&full[st], phase);
        fence_accumulators(acc[0]);
        fence_accumulators(acc[1]);
        cute::warpgroup_arrive();
        const uint64_t a_desc = swizzled_desc(cute::cast_smem_ptr_to_uint(stage_a(st)) + half * 128 * kRowBytes);
        const uint64_t b_desc = swizzled_desc(cute::cast_smem_ptr_to_uint(stage_b(st)));
#pragma unroll
        for (int s = 0; s < kS; ++s) {
#pragma unroll
          for (int k16 = 0; k16 < kChunk / 16; ++k16) {  // 16 channels per wgmma: 32 bytes into the swizzled row
            const uint64_t b = b_desc + (s * BN * kRowBytes + k16 * 32) / 16;
#pragma unroll
            for (int m = 0; m < 2; ++m) {
              const uint64_t a = a_desc + (m * 64 * kRowBytes + k16 * 32) / 16 + s * tap_step;
              wgmma<Op>(a, b, acc[m], std::make_index_sequence<kAcc>{});
            }
          }
        }
        cute::warpgroup_commit_batch();
        cute::warpgroup_wait<1>();  // the previous stage's wgmmas are done: its buffers may be refilled
        fence_accumulators(acc[0]);
        fence_accumulators(acc[1]);
        if (last >= 0) release(last);
        last = st;
        if (++st == Cfg::kStages) st = 0, phase ^= 1;
      }
    });
    cute::warpgroup_wait<0>();
    fence_accumulators(acc[0]);
    fence_accumulators(acc[1]);
    if (last >= 0) release(last);
    if (c.h >= p.Ho) continue;  // the second row of a cluster's last row group, past the tensor

    // Epilogue: wgmma's accumulator layout (thread's row = 16 * warp + lane / 4 (+8), columns 8j + 2 * (lane % 4)
    // (+1)) straight to y as bf16 pairs; pixels past Wo and channels past K are not written.
    const int row0 = half * 128 + (warp % 4) * 16 + lane / 4;
    __nv_bfloat16* y_row = p.y + c.n * p.y_n + c.d * p.y_d + c.h * p.y_h;
#pragma unroll
    for (int m = 0; m < 2; ++m) {
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int k = c.k0 + 8 * j + 2 * (lane % 4);
        if (k >= p.K) continue;
#pragma unroll
        for (int rh = 0; rh < 2; ++rh) {
          const int w = c.w0 + row0 + m * 64 + rh * 8;
          if (w >= p.Wo) continue;
          float v0 = acc[m][4 * j + 2 * rh] + bias[j][0], v1 = acc[m][4 * j + 2 * rh + 1] + bias[j][1];
          if (p.silu) v0 = fast_silu(v0), v1 = fast_silu(v1);
          *reinterpret_cast<__nv_bfloat162*>(y_row + w * p.y_w + k) = __floats2bfloat162_rn(v0, v1);
        }
      }
    }
  }
#endif
}

}  // namespace kforge::dense::halo
