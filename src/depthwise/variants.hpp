// The depthwise ladder: one accepts/launch pair per variant (each defined in its own dw_v*.cu file).
// accepts() returns "" when the variant computes the problem correctly, else the reason it refuses.
// All variants: groups == C, K = m*C (depth multiplier m), fp32 accumulation, bias optional, output in y's strides.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "dispatch/registry.hpp"

namespace kforge::depthwise {

// Shared first check of every depthwise variant: "" if p is a depthwise problem in a dtype we compute.
std::string common_refusal(const ConvProblem& p);

std::string v1_direct_accepts(const ConvProblem& p);
void v1_direct_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v2_channels_last_accepts(const ConvProblem& p);
void v2_channels_last_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v3_smem_tile_accepts(const ConvProblem& p);
void v3_smem_tile_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v3b_smem_occupancy_accepts(const ConvProblem& p);
void v3b_smem_occupancy_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v4_mma_toeplitz_accepts(const ConvProblem& p);
void v4_mma_toeplitz_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v5_mma_pipelined_accepts(const ConvProblem& p);
void v5_mma_pipelined_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v6_mma_hoisted_accepts(const ConvProblem& p);
void v6_mma_hoisted_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v7_mma_occupancy_accepts(const ConvProblem& p);
void v7_mma_occupancy_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v8_mma_lean_accepts(const ConvProblem& p);
void v8_mma_lean_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v9_mma_tma_accepts(const ConvProblem& p);
void v9_mma_tma_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v10_mma_decoupled_accepts(const ConvProblem& p);
void v10_mma_decoupled_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v11_mma_persistent_accepts(const ConvProblem& p);
void v11_mma_persistent_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v12_mma_sliding_accepts(const ConvProblem& p);
void v12_mma_sliding_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v13_mma_shared_quads_accepts(const ConvProblem& p);
void v13_mma_shared_quads_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

std::string v14_mma_one_block_accepts(const ConvProblem& p);
void v14_mma_one_block_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

}  // namespace kforge::depthwise
