// Probe (H200, 2026-11-29): which TMA box start columns load? Boxes at (0,0), (8,0), (0,-2), (-8,0) load with zero
// fill; a start column of -2 (4 bytes) faults with cudaErrorIllegalInstruction: the innermost box coordinate must
// be a multiple of 16 bytes (src/depthwise/NOTES.md, v9/v10). Build and run (from the repository root):
//   nvcc -std=c++20 -O2 -arch=sm_90a -I include -I src --expt-relaxed-constexpr bench/probes/tma_box_columns.cu \
//        src/core/tensor_map.cpp src/core/types.cpp -o tma_box_columns && ./tma_box_columns t N
// (N: case 0..6, all by default; "n" instead of "t": the same copy without the explicit .tile qualifier)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "core/tensor_map.hpp"
#include "depthwise/dw_pipelined_common.cuh"
using namespace kforge::depthwise::pipelined;

__global__ void probe(const __grid_constant__ CUtensorMap map, uint16_t* out, int cols, int rows, int x0, int x1,
                      bool notile) {
  extern __shared__ uint4 smem_words[];
  uint16_t* stage = reinterpret_cast<uint16_t*>(smem_words);
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(stage));
  const uint32_t bar = dst + 48 * 1024;
  if (threadIdx.x == 0) { mbarrier_init(bar, 1); fence_barrier_init(); }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbarrier_arrive_expect_tx(bar, 2 * cols * rows);
    if (notile) {
      asm volatile(
          "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
          "[%6];\n" ::"r"(dst), "l"(reinterpret_cast<uint64_t>(&map)), "r"(x0), "r"(x1), "r"(0), "r"(1), "r"(bar)
          : "memory");
    } else {
      tma_load_4d(dst, &map, bar, x0, x1, 0, 1);
    }
  }
  mbarrier_wait(bar, 0);
  for (int i = threadIdx.x; i < cols * rows; i += blockDim.x) out[i] = stage[i];
}

int main(int argc, char** argv) {
  const int W = 80, H = 45, D = 3, NC = 2;
  std::vector<uint16_t> x(size_t(W) * H * D * NC);
  for (size_t i = 0; i < x.size(); ++i) x[i] = uint16_t(i % 60000 + 1);
  uint16_t *dx, *dout;
  cudaMalloc(&dx, x.size() * 2); cudaMalloc(&dout, 256 * 256 * 2);
  cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice);
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
  const bool notile = argc > 1 && argv[1][0] == 'n';
  const int which = argc > 2 ? atoi(argv[2]) : -1;
  struct Case { int cols, rows, x0, x1; } cases[] = {{64, 32, 0, 0}, {64, 32, 8, 0}, {64, 32, 0, -2}, {64, 32, -8, 0},
                                                    {64, 32, -2, 0}, {96, 49, 0, 0}, {96, 49, -2, -2}};
  for (int ci = 0; ci < int(sizeof(cases) / sizeof(cases[0])); ++ci) {
    const Case& c = cases[ci];
    if (which >= 0 && ci != which) continue;
    CUtensorMap map = kforge::tiled_map_16bit<4>(dx, {uint64_t(W), uint64_t(H), uint64_t(D), uint64_t(NC)},
        {uint64_t(W) * 2, uint64_t(W) * H * 2, uint64_t(W) * H * D * 2}, {uint32_t(c.cols), uint32_t(c.rows), 1u, 1u});
    cudaMemset(dout, 0xff, 256 * 256 * 2);
    probe<<<1, 128, 64 * 1024>>>(map, dout, c.cols, c.rows, c.x0, c.x1, notile);
    cudaError_t e = cudaDeviceSynchronize();
    printf("box %dx%d at (%d, %d): %s", c.cols, c.rows, c.x0, c.x1, cudaGetErrorString(e));
    if (e != cudaSuccess) { printf("\n"); return 1; }
    std::vector<uint16_t> out(c.cols * c.rows);
    cudaMemcpy(out.data(), dout, out.size() * 2, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int r = 0; r < c.rows; ++r) for (int k = 0; k < c.cols; ++k) {
      const int ix = c.x0 + k, iy = c.x1 + r;
      const uint16_t want = (ix >= 0 && ix < W && iy >= 0 && iy < H) ? x[((size_t(1) * D + 0) * H + iy) * W + ix] : 0;
      bad += out[r * c.cols + k] != want;
    }
    printf(", mismatches %d of %d\n", bad, c.cols * c.rows);
  }
  return 0;
}
