// The plane-blocked walk of output tiles (v47, v48): which M tile runs at each position of a persistent kernel's
// walk, so that the output planes that read the same input planes run side by side.
//
// The im2col kernels walk M = (n, do, ho, wo) in order. Output planes do and do + 1 read T - stride input planes in
// common, but run a whole plane of tiles apart; when an input plane is not small against L2, it crosses DRAM -> L2
// once per output plane that reads it. ncu on the H200 (2026-12-03 11:31 UTC, one launch each): v3 read 10.9 GB
// from DRAM for c1024_k311's 3.5 GB input (c1024_k133, the same tensors with the taps inside a plane: 8.7 GB), v8
// 26.6 GB for hunyuan_up3's 4.5 GB.
// The walk here sees the M tiles as rows of `plane_tiles` tiles (an output plane, rounded to whole tiles) and walks
// them in blocks of `block` rows, column by column: position q of a block is row q % block, column q / block. An
// input plane then crosses DRAM about (block - 1 + T) / block times at stride 1. Tiles past the last full block keep
// their order. Every position maps to one tile and back: only the order changes, never what runs.
// Measured (NOTES.md, v47 and v48; 2026-12-03 12:28 UTC): DRAM reads 10.6 -> 6.3 GB on c1024_k311, 19.3 -> 17.8 GB
// on hunyuan_up3, and both ran slower (1.3-1.6% and 9%): not in the dispatch rule.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kforge/conv.hpp"

namespace kforge::dense {

struct PlaneOrder {
  int64_t tiles = 0;        // M tiles of the problem
  int64_t plane_tiles = 1;  // M tiles per output plane, rounded to the nearest
  int64_t block = 1;        // planes walked side by side; 1: CUTLASS's order
};

// The M tile at position `pos` of the walk.
KF_HOST_DEVICE inline int64_t plane_ordered_tile(int64_t pos, const PlaneOrder& o) {
  const int64_t span = o.plane_tiles * o.block;
  if (o.block <= 1) return pos;
  const int64_t first = pos / span * span;
  if (first + span > o.tiles) return pos;
  const int64_t q = pos - first;
  return first + (q % o.block) * o.plane_tiles + q / o.block;
}

// The walk for conv `p` (inner problem, NDHWC) in tiles of `tile_m` output pixels: `block` planes side by side
// where consecutive output planes share input planes and a plane rounds to at least two tiles; else CUTLASS's order.
inline PlaneOrder plane_order(const ConvProblem& p, int64_t tile_m, int64_t block) {
  const int64_t plane = p.Ho * p.Wo;
  const bool planes_share_input = (p.T - 1) * p.dilation[0] + 1 > p.stride[0];
  PlaneOrder o;
  o.tiles = (p.N * p.Do * plane + tile_m - 1) / tile_m;
  o.plane_tiles = std::max<int64_t>(1, (plane + tile_m / 2) / tile_m);
  o.block = planes_share_input && o.plane_tiles >= 2 ? block : 1;
  return o;
}

}  // namespace kforge::dense
