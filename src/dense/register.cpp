// Registers the dense family and states its dispatch rule.
#include "dense/channels_last.hpp"
#include "dense/variants.hpp"
#include "dispatch/tune_cache.hpp"

namespace kforge {

void register_dense_variants(Registry& r) {
  Variant direct{"dense_v0_direct", "dense",
                 "one thread per output, any groups and strides: the correctness fallback (no tensor cores)",
                 dense::v0_direct_accepts, dense::v0_direct_launch, "src/dense/dense_v0_direct.cu"};
  direct.max_bench_flops = 2e11;
  direct.fuses_activation = true;
  r.add(std::move(direct));
  Variant as_shipped = dense::v1_cutlass_as_shipped();
  as_shipped.library = false;  // the anchor to beat, measured beside ours; kforge::conv never picks it
  r.add(std::move(as_shipped));
  r.add(dense::v2_persistent_128x256x64());
  r.add(dense::v3_persistent_256x128x64());
  r.add(dense::v4_persistent_128x256x64_c2x1());
  r.add(dense::v5_streamk_128x256x64());
  r.add(dense::v6_persistent_256x128x16());
  r.add(dense::v7_persistent_256x96x64());
  r.add(dense::v8_pingpong_128x128x64());
  r.add(dense::v9_persistent_128x192x64());
  r.add(dense::v10_persistent_256x128x64_ncdhw());
  r.add(dense::v11_persistent_128x256x64_c2x1_ncdhw());
  r.add(dense::v12_pointwise_gemm_128x256x64_ncdhw());
  r.add(dense::v13_pointwise_gemm_256x128x64_ndhwc());
  r.add(dense::v14_pointwise_gemm_128x256x64_s4_ncdhw());
  r.add(dense::v15_pointwise_gemm_128x256x64_c2x1_s4_ncdhw());
  r.add(dense::v16_pointwise_gemm_256x128x64_c1x2_s4_ndhwc());
  r.add(dense::v17_pointwise_gemm_128x256x16_ncdhw());
  r.add(dense::v18_persistent_256x96x32());
  r.add(dense::v19_persistent_256x128x64_c1x2());
  r.add(dense::v20_persistent_256x128x64_c2x1());
  r.add(dense::v21_persistent_256x96x32_c2x1());
  r.add(dense::v22_persistent_256x96x32_c4x1());
  r.add(dense::v23_pingpong_128x128x64_c2x1());
  r.add(dense::v24_pingpong_128x128x64_c1x2());
  r.add(dense::v25_pingpong_128x128x64_c2x2());
  r.add(dense::v32_pingpong_64x256x64_c2x1());
  r.add(dense::v33_pointwise_gemm_pingpong_64x256x64_ncdhw());
  r.add(dense::v34_pointwise_gemm_256x128x64_e128x64_ndhwc());
  r.add(dense::v35_pointwise_gemm_128x256x64_e128x64_ncdhw());
  r.add(dense::v36_persistent_256x128x16_e128x64());
  r.add(dense::v37_pingpong_128x128x64_e64x64());
  r.add(dense::v38_pingpong_128x128x64_e64x64_biasadd());
  r.add(dense::v39_streamk_128x128x64_e128x64_biasadd());
  r.add(dense::v40_persistent_256x128x64_biasadd());
  r.add(dense::v41_pointwise_gemm_128x256x64_e128x64_biasadd_ncdhw());
  r.add(dense::v42_pingpong_64x128x64_e64x64_biasadd());
  r.add(dense::v43_pingpong_128x128x64_e64x64_biaswhengiven());
  r.add(dense::v44_persistent_256x128x64_biaswhengiven());
  r.add(dense::v45_streamk_256x128x64_biaswhengiven());
  r.add(dense::v46_streamk_256x128x64_c2x1_biaswhengiven());
  // Measured negatives (NOTES.md, v47 and v48): the plane-blocked walk cut DRAM bytes, not time.
  r.add(dense::v47_persistent_256x128x64_planes8());
  r.add(dense::v48_pingpong_128x128x64_planes8());
  // Measured negatives (NOTES.md, v49-v51): y stored from the accumulator registers ran slower than the TMA epilogue.
  r.add(dense::v49_persistent_256x128x64_directstore());
  r.add(dense::v50_pingpong_128x128x64_directstore());
  r.add(dense::v51_persistent_256x96x32_c2x1_directstore());
  r.add(dense::v52_persistent_256x128x32_stages8());
  r.add(dense::v55_persistent_256x128x32_stages8_mmas2());
  r.add(dense::v57_persistent_256x128x64_overlapped_epilogue());
  r.add(dense::v58_cooperative_320x128x64());
  r.add(dense::v59_persistent_128x256x64_overlapped_epilogue());
  // The 128x256 tiles walked to share the larger operand (tile_walk.hpp): the rule's picks for that tile.
  r.add(dense::v60_persistent_128x256x64_c2x1_operandwalk());
  r.add(dense::v61_persistent_128x256x64_overlapped_epilogue_operandwalk());
  r.add(dense::v62_persistent_128x256x64_c2x1_operandwalk_ncdhw());
  // Ping-pong with 192x64 tiles: small grids balanced over the SMs (NOTES.md, v63); in 1x2 clusters (v64) no faster.
  r.add(dense::v63_pingpong_192x64x64_e64x64_biaswhengiven());
  r.add(dense::v64_pingpong_192x64x64_c1x2_e64x64_biaswhengiven());
  // Measured (NOTES.md, "Halo rows"); v30 is the tile rule's pick where rows fill 256-pixel tiles.
  r.add(dense::v26_halo_256x96x32());
  r.add(dense::v27_halo_256x128x32());
  r.add(dense::v28_halo_256x96x32_c2x1());
  r.add(dense::v29_halo_256x128x32_c2x1());
  r.add(dense::v30_halo_256x96x32_c2x1_d8());
  r.add(dense::v31_halo_256x128x32_c2x1_d8());
  r.add(dense::v53_halo_256x16x32_d8());
  r.add(dense::v54_halo_256x32x32_d8());
  r.add(dense::v56_halo_256x64x32_d8());
}

const Variant* choose_dense(const ConvProblem& p, std::string* why) {
  // A measurement on this device (kforge tune) beats any rule; the rule covers everything untuned.
  std::string autotune;
  if (const Variant* tuned = tuned_variant(p, &autotune)) {
    if (why) *why = autotune;
    return tuned;
  }
  const Registry& reg = Registry::instance();
  // A pointwise conv in NCDHW is a GEMM on the caller's tensors (NOTES.md, v12-v17): no staging of x and y
  // (c512_k111 0.34 -> 0.19 ms, cog_spatialnorm 0.46 -> 0.30 against the kernels that stage x). v35's 128x64
  // epilogue sub-tiles write y's channel rows in whole 128-byte lines: cog_spatialnorm 0.30 -> 0.26 ms in three
  // runs of three (2026-12-02 16:25 UTC), c512_k111 tied with v14's 4 stores in flight.
  if (const Variant* v = reg.find("dense_v35_pointwise_gemm_128x256x64_e128x64_ncdhw"); v && v->accepts(p).empty()) {
    if (why) *why = "pointwise conv in NCDHW: one GEMM per image on the tensors as they are (" + autotune + ")";
    return v;
  }
  // Measured on the H200 suite (src/dense/NOTES.md): few input channels want the 16-wide K tile (a 64-wide one
  // is mostly zero padding). Short K loops (<= 24 K-blocks; 8 until 2026-12-03) and grids of fewer than two waves
  // of 256x128 tiles want the ping-pong kernel's 128x128 tiles (c512_k111 -6%, c64_stride2 -23% against the 256x128
  // tile). Else the N tile that wastes the least: 96 (K_out <= 96; a 32-channel K tile in 2x1 clusters when that wastes
  // fewer channels), 128 (<= 128), 192 (a multiple of 192, not of 256) or 128x256 in 2x1 clusters (within 4% of
  // the best tile on every such case). The first two with 64-wide epilogue sub-tiles (y in 128-byte rows; v36, v37
  // against v6, v8 on 2026-12-02 16:47 UTC: c3_stem -3 to -5%, c512_k111 -4%, cog_spatialnorm -2%, c64_stride2 a tie),
  // the second also without CUTLASS's alpha / beta FFMAs and with the bias added only when there is one (v43 against
  // v37, 2026-12-02 19:25 UTC: c512_k111 -4 to -5%, c64_stride2 within the spread), and so does the 256x128 tile
  // (v44 against v3 on hunyuan_up3, -0.5 to -0.8% in four timings of 2026-12-02/03: in pairs, balanced round-robin,
  // after itself, settled; its 16% deficit in the tuner's old mix was carry-over, NOTES.md, v44).
  const int64_t m = p.N * p.Do * p.Ho * p.Wo;
  const int64_t k_blocks = (p.C + 63) / 64 * p.T * p.R * p.S;
  auto output_tiles = [&](int64_t tile_m, int64_t tile_n) {  // the grid of tile_m x tile_n tiles over [M, K_out]
    return (m + tile_m - 1) / tile_m * ((p.K + tile_n - 1) / tile_n);
  };
  const int64_t big_tiles = output_tiles(256, 128);
  // C % 64 in (0, 32]: the last 64-channel chunk of every tap is at least half zeros; 32-channel chunks cover C
  // with fewer MMAs, and 2x1 clusters share the filter tile of the L2-bound 96-wide N tile (wan21_up3, C = 96,
  // 2026-12-01: v21 2.81 ms, v18 3.10, v7 3.89).
  const bool narrow_last_chunk = p.C % 64 != 0 && p.C % 64 <= 32;
  // Where rows of output pixels fill whole 256-pixel tiles (to within 1/16), the halo-row kernel with its 8-plane
  // walk (v30) stages each input row once for its S taps: wan21_up3 2026-12-02, 2.62-2.65 ms against v21's 2.82-2.83
  // timed alone, 25.7 against 26.5 ms per two of Wan's residual blocks (bench/decoder_block.py), though v21 wins a
  // round-robin of the two alone (NOTES.md, "Halo rows").
  // Asked only where the rule gets that far (its refusal checks are not free, and dispatch runs per call).
  const int64_t tiled_row = (p.Wo + 255) / 256 * 256;
  auto halo_takes = [&](const char* name, int64_t fill_num, int64_t fill_den) {  // rows fill tiles to fill_num/den
    const Variant* halo = reg.find(name);
    return tiled_row * fill_num <= p.Wo * fill_den && halo && halo->accepts(p).empty();
  };
  auto rows_fill_halo_tiles = [&] { return halo_takes("dense_v30_halo_256x96x32_c2x1_d8", 16, 17); };
  // Few output channels (the heads of video VAEs: RGB, K = 3 padded to 8; an encoder's 2 x 16 latent channels;
  // LTX-Video's 48-channel patch head): the halo-row kernel with the narrowest N tile that covers K, where rows fill
  // at least half its 256-pixel tiles. The 96- and 128-wide tiles multiply 2-12x the zero filters (dense-vae suite,
  // 2026-12-03 19:38 UTC, NDHWC / NCDHW: wan21_head v53 1.37 / 2.40 ms against v30 4.41 / 5.56 and cuDNN 2.66 /
  // 3.75; wan21_enc_head (rows 62% of a tile) v54 0.046 / 0.078 against v7 0.091 / 0.122; ltx_head v56 0.33 / 0.59
  // against v7 0.56 / 0.84).
  const char* narrow_halo = p.K <= 16   ? "dense_v53_halo_256x16x32_d8"
                            : p.K <= 32 ? "dense_v54_halo_256x32x32_d8"
                            : p.K <= 64 ? "dense_v56_halo_256x64x32_d8"
                                        : nullptr;
  const int64_t sms = 132;  // H100 SXM / H200: the rule was fitted there (the autotune cache covers the rest)
  const bool k96_narrow = p.K <= 96 && narrow_last_chunk;
  // Ping-pong hides each tile's epilogue under the other warpgroup's MMAs: it pays up to 24 K-blocks per tile
  // (dense-vae, 2026-12-03 22:40 UTC round-robin: wan21_time_conv, 18 K-blocks, v43 0.0438 ms against v4's 0.0482),
  // unless its 128-wide N tile pads K_out where the 192-wide one does not (wan21_shortcut_384_192, K_out 192: v43
  // 0.408 ms against v9's 0.347, 22:55 UTC round-robin).
  const bool n192 = p.K % 192 == 0 && p.K % 256 != 0;  // the N tile rule's 192-wide tile (v9) covers K_out exactly
  // One 320-row tile per SM (v58) where that is one wave and 256-row tiles are more, for an x staged from NCDHW:
  // the staging kernel has just written it, so L2 holds it (c64_stride2 NCDHW, two images, 2026-12-04 12:23 UTC:
  // 0.0672-0.0684 ms against v43's 0.0727-0.0734 in both orders and round-robin). Not for an NDHWC x that the
  // previous kernel did not leave in L2: there v58 reads 14% more from DRAM than v43 (ncu after the bench's L2
  // flush) and runs 3-4% behind it (NOTES.md, v58). Not past ping-pong's short K loops, nor with a fused SiLU (v58
  // leaves it to the others).
  const int64_t tiles_320 = output_tiles(320, 128);
  const bool one_wave_320 = p.x_layout() == Layout::ncdhw && tiles_320 <= sms && big_tiles > sms && k_blocks > 24 &&
                            (p.K <= 128 || p.K % 128 == 0) && p.activation == Activation::none;
  const bool pingpong = (k_blocks <= 24 || big_tiles < 2 * sms) && !(n192 && p.K % 128 != 0);
  // Within ping-pong, 192x64 tiles (v63) where they cut the busiest SM's outputs (its tiles x tile area, padding
  // included) to <= 0.8x of the 128x128 tiles': they cost more shared-memory bytes and epilogues per output, so
  // near-equal loads stay on v43. Round-robin, 2026-12-04 20:41 UTC: c64_stride2 (0.75x) 0.0329-0.0332 ms against
  // 0.0357-0.0368, wan21_time_conv and wan21_time_down (0.875x) +1.6 / +1.7%, conv2d_512 (1.125x) +23%.
  auto busiest_sm_outputs = [&](int64_t tile_m, int64_t tile_n) {
    return (output_tiles(tile_m, tile_n) + sms - 1) / sms * tile_m * tile_n;
  };
  const bool pingpong_192x64 = pingpong && busiest_sm_outputs(192, 64) * 5 <= busiest_sm_outputs(128, 128) * 4;
  // The 256x128 tile in our own kernel (v57), which stores each tile's y under the next tile's first K blocks,
  // where CUTLASS's cooperative kernel would idle the tensor cores for ~4.4 k cycles per tile: every long K loop of
  // K_out <= 128 (2026-12-04 03:02 UTC round-robin: hunyuan_up3 19.99 ms against v44's 20.85 and v43's 20.66,
  // c128_k333 2.74 against 2.86), and K_out > 128 where a tile's K loop is short enough for that to be >= 6% of it
  // (<= 64 K-blocks: c1024_k311, 48, 15.88 against v4's 16.71; with 108-864 K-blocks v4 ties or wins: c256_k333
  // 1.36 against 1.38, c2048_k333 68.3 against 72.3).
  const bool overlap_epilogue = p.K % 128 == 0 && k_blocks <= 64;
  // Past 64 K-blocks, the 128x256 tile in the same kernel (v59) where K_out fills 256-wide tiles, up to 128 K-blocks
  // (v4's epilogue then >= ~3.5% of a tile; c256_k333, 108, 2026-12-04 15:30-15:40 UTC: 1.177 / 1.175 ms against
  // v4's 1.212 / 1.213 in both orders with spreads of 0.2-0.7%, 1.370 against 1.388 round-robin, at its spreads;
  // mochi_256 (108), c512_big_k133 and cog_up2d_512 (72) tie within the spreads). Longer K loops keep v4, whose
  // 2x1 multicast v59 lacks (mochi_768, 324: +1.3%; c2048_k333, 864: +0.7 to +1.5%).
  const bool overlap_epilogue_n256 = p.K % 256 == 0 && k_blocks > 64 && k_blocks <= 128;
  // The 128x256 tiles run as v60 / v61 (v62 for NCDHW y): v4's, v59's and v11's kernels walked so that CTAs side by
  // side share the larger operand, which differs from the shorter-extent walk only where the filter outweighs x
  // (ltx_upsampler, 2026-12-04 17:51-17:54 UTC round-robin in both orders: v60 1.916 / 1.920 ms against v4's
  // 2.046 / 2.027, v61 1.900 / 1.910 against v59's 2.072 / 2.074, NCDHW v62 2.092 / 2.093 against v11's 2.212 / 2.211;
  // DRAM reads 0.33 GB against 1.38: NOTES.md, v60-v62).
  const std::string tile = p.C <= 16                               ? "dense_v36_persistent_256x128x16_e128x64"
                           : narrow_halo && halo_takes(narrow_halo, 1, 2) ? narrow_halo
                           : one_wave_320                         ? "dense_v58_cooperative_320x128x64"
                           : pingpong_192x64                      ? "dense_v63_pingpong_192x64x64_e64x64_biaswhengiven"
                           : pingpong                             ? "dense_v43_pingpong_128x128x64_e64x64_biaswhengiven"
                           : k96_narrow && rows_fill_halo_tiles() ? "dense_v30_halo_256x96x32_c2x1_d8"
                           : k96_narrow                           ? "dense_v21_persistent_256x96x32_c2x1"
                           : p.K <= 96                            ? "dense_v7_persistent_256x96x64"
                           : p.K <= 128 || overlap_epilogue
                               ? "dense_v57_persistent_256x128x64_overlapped_epilogue"
                           : overlap_epilogue_n256
                               ? "dense_v61_persistent_128x256x64_overlapped_epilogue_operandwalk"
                           : n192                                 ? "dense_v9_persistent_128x192x64"
                                                                  : "dense_v60_persistent_128x256x64_c2x1_operandwalk";
  // One image's packed NCDHW output (PyTorch's default): the kernels that write it directly spare 2|y| bytes of
  // staging (NOTES.md, 00:06 UTC: 256x128 direct beat staging + v3 or v8 on every such case, c512_k111 0.341 vs
  // 0.457 ms, and staging + v6 on the pointwise cog_spatialnorm, 0.460 vs 0.881), but not the 96- and 192-wide N
  // tiles (wan21) nor the 16-wide K tile over several taps (c3_stem): those keep staging y.
  const bool ncdhw_out = dense::output_order_refusal(p, dense::OutputOrder::ncdhw_one_image).empty();
  // v43, v57-v59 and v63 write NDHWC only: for one image's NCDHW y a direct writer takes their place (v10's 256x128
  // for ping-pong's tiles and K_out <= 128, else v62's 128x256).
  const bool overlapped = tile == "dense_v57_persistent_256x128x64_overlapped_epilogue";
  const bool direct_256x128 = (overlapped && p.K <= 128) || tile == "dense_v58_cooperative_320x128x64" ||
                              tile == "dense_v43_pingpong_128x128x64_e64x64_biaswhengiven" ||
                              tile == "dense_v63_pingpong_192x64x64_e64x64_biaswhengiven" ||
                              (tile == "dense_v36_persistent_256x128x16_e128x64" && p.T * p.R * p.S == 1);
  const bool direct_128x256 = (overlapped && p.K > 128) ||
                              tile == "dense_v60_persistent_128x256x64_c2x1_operandwalk" ||
                              tile == "dense_v61_persistent_128x256x64_overlapped_epilogue_operandwalk";
  std::string first = tile;
  if (ncdhw_out && direct_256x128) first = "dense_v10_persistent_256x128x64_ncdhw";
  if (ncdhw_out && direct_128x256) first = "dense_v62_persistent_128x256x64_c2x1_operandwalk_ncdhw";
  for (const std::string& name : {first, std::string("dense_v60_persistent_128x256x64_c2x1_operandwalk"),
                                  std::string("dense_v3_persistent_256x128x64"), std::string("dense_v0_direct")}) {
    const Variant* v = reg.find(name);
    if (v && v->accepts(p).empty()) {
      const char* rule = name == first
                             ? "tile rule: K tile 16 when C <= 16, one 320x128 tile per SM where that is one wave and "
                               "256x128 tiles are more (x staged from NCDHW), "
                               "ping-pong 128x128 for short K loops or small grids (192x64 where that cuts "
                               "the busiest SM's outputs to <= 0.8x) "
                               "(not where K_out is a multiple of 192 that 128 does not divide), "
                               "halo rows with an N tile of 16, 32 or 64 for K_out <= 64, "
                               "else the N tile with the least padding (96, 128, 192; K tile 32 in 2x1 clusters where "
                               "C % 64 is in (0, 32] with K_out <= 96, as halo rows where rows fill 256-pixel tiles) "
                               "or 128x256 in 2x1 clusters, walked to share the larger operand; "
                               "256x128 with y stored under the next tile's MMAs for "
                               "K_out <= 128 and for K loops of <= 64 blocks, 128x256 so for K_out % 256 == 0 "
                               "and K loops of 65-128 blocks; "
                               "one image's NCDHW y written directly by the 256x128 or 128x256 tile"
                             : "the preferred tile refuses this problem; next accepting variant";
      if (why) *why = std::string(rule) + " (" + autotune + ")";
      return v;
    }
  }
  return nullptr;
}

}  // namespace kforge
