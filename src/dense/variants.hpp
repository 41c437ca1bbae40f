// The dense family (groups < C): one accepts/launch pair per variant, each in its own file.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "dispatch/registry.hpp"

namespace kforge::dense {

std::string v0_direct_accepts(const ConvProblem& p);
void v0_direct_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

// The CUTLASS-composed sm90 kernels (one translation unit each: their compile time is minutes).
Variant v1_cutlass_as_shipped();
Variant v2_persistent_128x256x64();
Variant v3_persistent_256x128x64();
Variant v4_persistent_128x256x64_c2x1();
Variant v60_persistent_128x256x64_c2x1_operandwalk();  // v4's instantiation, another tile walk (tile_walk.hpp)
Variant v5_streamk_128x256x64();
Variant v6_persistent_256x128x16();
Variant v7_persistent_256x96x64();
Variant v8_pingpong_128x128x64();
Variant v9_persistent_128x192x64();
Variant v10_persistent_256x128x64_ncdhw();
Variant v11_persistent_128x256x64_c2x1_ncdhw();
Variant v62_persistent_128x256x64_c2x1_operandwalk_ncdhw();  // v11's instantiation, as v60
Variant v18_persistent_256x96x32();
Variant v19_persistent_256x128x64_c1x2();
Variant v20_persistent_256x128x64_c2x1();
Variant v21_persistent_256x96x32_c2x1();
Variant v22_persistent_256x96x32_c4x1();
Variant v23_pingpong_128x128x64_c2x1();
Variant v24_pingpong_128x128x64_c1x2();
Variant v25_pingpong_128x128x64_c2x2();
Variant v32_pingpong_64x256x64_c2x1();
Variant v36_persistent_256x128x16_e128x64();
Variant v37_pingpong_128x128x64_e64x64();
Variant v38_pingpong_128x128x64_e64x64_biasadd();
Variant v39_streamk_128x128x64_e128x64_biasadd();
Variant v40_persistent_256x128x64_biasadd();
Variant v42_pingpong_64x128x64_e64x64_biasadd();
Variant v43_pingpong_128x128x64_e64x64_biaswhengiven();
Variant v63_pingpong_192x64x64_e64x64_biaswhengiven();  // v43's kernel, 192x64 tiles
Variant v64_pingpong_192x64x64_c1x2_e64x64_biaswhengiven();
Variant v44_persistent_256x128x64_biaswhengiven();
Variant v45_streamk_256x128x64_biaswhengiven();
Variant v46_streamk_256x128x64_c2x1_biaswhengiven();
Variant v47_persistent_256x128x64_planes8();
Variant v48_pingpong_128x128x64_planes8();
Variant v49_persistent_256x128x64_directstore();
Variant v50_pingpong_128x128x64_directstore();
Variant v51_persistent_256x96x32_c2x1_directstore();
Variant v52_persistent_256x128x32_stages8();
Variant v55_persistent_256x128x32_stages8_mmas2();
// Our own kernel around the im2col mainloop (overlapped_epilogue_conv.cuh): persistent with y stored under the next
// tile's MMAs (v57 256x128, v59 128x256), or one 320-row tile per CTA (v58).
Variant v57_persistent_256x128x64_overlapped_epilogue();
Variant v58_cooperative_320x128x64();
Variant v59_persistent_128x256x64_overlapped_epilogue();
Variant v61_persistent_128x256x64_overlapped_epilogue_operandwalk();  // v59's instantiation, as v60
// Our own mainloop: one input row's halo staged once for all taps along W (halo_conv.cuh).
Variant v26_halo_256x96x32();
Variant v27_halo_256x128x32();
Variant v28_halo_256x96x32_c2x1();
Variant v29_halo_256x128x32_c2x1();
Variant v30_halo_256x96x32_c2x1_d8();
Variant v31_halo_256x128x32_c2x1_d8();
Variant v53_halo_256x16x32_d8();
Variant v54_halo_256x32x32_d8();
Variant v56_halo_256x64x32_d8();
// Pointwise convs as GEMMs on the caller's tensors (no staging in either layout).
Variant v12_pointwise_gemm_128x256x64_ncdhw();
Variant v13_pointwise_gemm_256x128x64_ndhwc();
Variant v14_pointwise_gemm_128x256x64_s4_ncdhw();
Variant v15_pointwise_gemm_128x256x64_c2x1_s4_ncdhw();
Variant v16_pointwise_gemm_256x128x64_c1x2_s4_ndhwc();
Variant v17_pointwise_gemm_128x256x16_ncdhw();
Variant v33_pointwise_gemm_pingpong_64x256x64_ncdhw();
Variant v34_pointwise_gemm_256x128x64_e128x64_ndhwc();
Variant v35_pointwise_gemm_128x256x64_e128x64_ncdhw();
Variant v41_pointwise_gemm_128x256x64_e128x64_biasadd_ncdhw();

}  // namespace kforge::dense
