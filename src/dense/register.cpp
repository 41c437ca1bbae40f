// Registers the dense family and states its dispatch rule.
#include "dense/variants.hpp"

namespace kforge {

void register_dense_variants(Registry& r) {
  r.add({"dense_v0_direct", "dense",
         "one thread per output, any groups and strides: the correctness fallback (no tensor cores yet)",
         dense::v0_direct_accepts, dense::v0_direct_launch, "src/dense/dense_v0_direct.cu"});
}

const Variant* choose_dense(const ConvProblem& p, std::string* why) {
  const Variant* v = Registry::instance().find("dense_v0_direct");
  if (!v->accepts(p).empty()) return nullptr;
  if (why) *why = "the only dense variant so far (implicit-GEMM kernels: issue 4)";
  return v;
}

}  // namespace kforge
