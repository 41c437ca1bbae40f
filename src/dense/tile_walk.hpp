// How a persistent conv kernel's CTAs walk the output tiles: which tile index moves fastest, and so which operand's
// tile the CTAs running side by side share (each such tile then crosses DRAM about once per wave, not once per CTA).
#pragma once

#include <cstdint>

#include "kforge/conv.hpp"

namespace kforge::dense {

enum class TileWalk {
  // The index with fewer tiles moves fastest (CUTLASS's RasterOrderOptions::Heuristic; v2-v59).
  shorter_extent_first,
  // M fastest where the filter has more elements than x, so that side-by-side CTAs share a filter slice and x stays
  // in L2; else N fastest, sharing x's rows. ltx_upsampler's 128x256 tiles (48 M x 16 N, filter 16x x) are where
  // the two differ: the shorter extent is N and the 226 MB filter crossed DRAM ~6 times (NOTES.md, v59 and v60).
  share_larger_operand,
};

// share_larger_operand's choice: M tiles fastest. `inner`: the packed NDHWC problem the kernel runs.
inline bool filter_outweighs_x(const ConvProblem& inner) { return inner.w_numel() > inner.x_numel(); }

// true: M tiles fastest.
inline bool walks_m_fastest(TileWalk walk, const ConvProblem& inner, int64_t m_tiles, int64_t n_tiles) {
  return walk == TileWalk::share_larger_operand ? filter_outweighs_x(inner) : n_tiles > m_tiles;
}

}  // namespace kforge::dense
