// The variant registry: every kernel variant is one entry; every command iterates the registry.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "kforge/conv.hpp"

namespace kforge {

// Device pointers of one convolution call; shapes and strides live in the ConvProblem.
struct ConvArgs {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* bias = nullptr;  // null when !problem.has_bias
  void* y = nullptr;
  void* workspace = nullptr;   // variant.workspace(problem) bytes, or null when that is 0
};

struct Variant {
  std::string name;    // says what it is: dw_v4_mma_toeplitz, cudnn, ...
  std::string family;  // depthwise | dense | baseline
  std::string idea;    // one line: what this variant does differently from the one before it
  // "" when the variant computes this problem correctly; otherwise the reason it refuses.
  std::function<std::string(const ConvProblem&)> accepts;
  std::function<void(const ConvProblem&, const ConvArgs&, cudaStream_t)> launch;
  // Its translation unit relative to the source tree ("src/depthwise/dw_v1_direct.cu"), for `kforge asm`;
  // "" for anchors, whose kernels are not kforge's.
  std::string source;
  std::function<size_t(const ConvProblem&)> workspace = [](const ConvProblem&) { return size_t{0}; };
  bool library = true;  // false: a comparison anchor (cuDNN), never chosen by kforge::conv
  // true: applies ConvProblem::activation in its epilogue. Registry::add makes every other variant refuse problems
  // with an activation, so that no variant can silently return the conv without it.
  bool fuses_activation = false;
  // > 0: the benchmark skips problems of more FLOPs (a correctness fallback would take seconds per run there);
  // kforge::conv still runs it on anything it accepts.
  double max_bench_flops = 0;
};

class Registry {
 public:
  static Registry& instance();
  void add(Variant v);
  const std::vector<Variant>& all() const { return variants_; }
  const Variant* find(const std::string& name) const;
  std::vector<const Variant*> family(const std::string& family) const;

 private:
  Registry();
  std::vector<Variant> variants_;
};

// Each family registers its variants here (called once, in order, by Registry's constructor).
void register_depthwise_variants(Registry& r);
void register_dense_variants(Registry& r);
void register_baseline_variants(Registry& r);

// Each family's dispatch rule: the variant to run, or null when none accepts; *why says why it was chosen.
// choose_dense asks the autotune cache (dispatch/tune_cache.hpp) first.
const Variant* choose_depthwise(const ConvProblem& p, std::string* why);
const Variant* choose_dense(const ConvProblem& p, std::string* why);

// The variant kforge::conv runs for this problem: the family's rule, with the reason when
// KFORGE_PRINT_CONFIG=1. Throws kforge::Error (listing each variant's refusal) when none accepts.
const Variant& choose_variant(const ConvProblem& p);

}  // namespace kforge
