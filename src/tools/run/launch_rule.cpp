// Run ABI on the host: parameter packing, launch-rule checks, grid sizing.
#include "tools/run/launch_rule.hpp"

#include <algorithm>

namespace kforge {

// The ABI's dtype numbers are kforge::DType's: kernels compare p.dtype with KFORGE_RUN_*.
static_assert(KFORGE_RUN_F32 == static_cast<int>(DType::f32) && KFORGE_RUN_BF16 == static_cast<int>(DType::bf16) &&
              KFORGE_RUN_F16 == static_cast<int>(DType::f16) &&
              KFORGE_RUN_FP8_E4M3 == static_cast<int>(DType::fp8_e4m3));
static_assert(sizeof(long long) == sizeof(int64_t), "the ABI's 64-bit sizes are long long");

kforge_run_params run_params(const ConvProblem& p, const void* x, const void* w, const void* bias, void* y) {
  kforge_run_params r{};
  r.N = p.N, r.C = p.C, r.K = p.K;
  r.D = p.D, r.H = p.H, r.W = p.W;
  r.T = p.T, r.R = p.R, r.S = p.S;
  r.Do = p.Do, r.Ho = p.Ho, r.Wo = p.Wo;
  for (int i = 0; i < 3; ++i) {
    r.stride[i] = p.stride[i];
    r.pad[i] = p.pad_lo[i];
    r.dilation[i] = p.dilation[i];
  }
  for (int i = 0; i < 5; ++i) {
    r.x_stride[i] = p.x_strides[i];
    r.w_stride[i] = p.w_strides[i];
    r.y_stride[i] = p.y_strides[i];
  }
  r.groups = p.groups;
  r.has_bias = p.has_bias ? 1 : 0;
  r.dtype = static_cast<int>(p.dtype);
  r.x = x;
  r.w = w;
  r.bias = p.has_bias ? bias : nullptr;
  r.y = y;
  return r;
}

std::string rule_refusal(const kforge_launch_rule& rule, const ConvProblem& p) {
  if (rule.abi_version != KFORGE_RUN_ABI_VERSION)
    return "kforge_launch.abi_version is " + std::to_string(rule.abi_version) + ", expected " +
           std::to_string(KFORGE_RUN_ABI_VERSION) + " (rebuild against this kforge's run_abi.h)";
  if (rule.block_threads < 1 || rule.block_threads > 1024)
    return "kforge_launch.block_threads must be in 1..1024, but is " + std::to_string(rule.block_threads);
  if (rule.dynamic_smem_bytes < 0)
    return "kforge_launch.dynamic_smem_bytes must be >= 0, but is " + std::to_string(rule.dynamic_smem_bytes);
  if (rule.grid_over < KFORGE_GRID_OUTPUTS || rule.grid_over > KFORGE_GRID_CHANNELS)
    return "kforge_launch.grid_over must be one of KFORGE_GRID_*, but is " + std::to_string(rule.grid_over);
  if (rule.per_block < 1) return "kforge_launch.per_block must be >= 1, but is " + std::to_string(rule.per_block);
  if (rule.max_blocks_per_sm < 0)
    return "kforge_launch.max_blocks_per_sm must be >= 0, but is " + std::to_string(rule.max_blocks_per_sm);
  if ((rule.dtypes & KFORGE_DTYPE_BIT(static_cast<int>(p.dtype))) == 0)
    return std::string("the kernel does not handle ") + dtype_name(p.dtype) + " (kforge_launch.dtypes)";
  if ((rule.needs & KFORGE_NEEDS_DEPTHWISE) && !(p.groups == p.C && p.K == p.C))
    return "the kernel requires a depthwise problem (groups == C == K), but got C " + std::to_string(p.C) + ", K " +
           std::to_string(p.K) + ", groups " + std::to_string(p.groups);
  if (rule.needs & ~KFORGE_NEEDS_DEPTHWISE)
    return "kforge_launch.needs has flags this kforge does not know: " + std::to_string(rule.needs);
  return "";
}

LaunchGeometry launch_geometry(const kforge_launch_rule& rule, const ConvProblem& p, int sm_count) {
  int64_t extent = p.N * p.K;
  if (rule.grid_over <= KFORGE_GRID_PLANES) extent *= p.Do;
  if (rule.grid_over <= KFORGE_GRID_ROWS) extent *= p.Ho;
  if (rule.grid_over == KFORGE_GRID_OUTPUTS) extent *= p.Wo;
  int64_t blocks = (extent + rule.per_block - 1) / rule.per_block;
  if (rule.max_blocks_per_sm > 0) blocks = std::min<int64_t>(blocks, int64_t{sm_count} * rule.max_blocks_per_sm);
  blocks = std::min<int64_t>(blocks, (int64_t{1} << 31) - 1);
  return {blocks, rule.block_threads, rule.dynamic_smem_bytes};
}

}  // namespace kforge
