// Registers the dense family and states its dispatch rule.
#include "dense/variants.hpp"
#include "dispatch/tune_cache.hpp"

namespace kforge {

void register_dense_variants(Registry& r) {
  Variant direct{"dense_v0_direct", "dense",
                 "one thread per output, any groups and strides: the correctness fallback (no tensor cores)",
                 dense::v0_direct_accepts, dense::v0_direct_launch, "src/dense/dense_v0_direct.cu"};
  direct.max_bench_flops = 2e11;
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
}

const Variant* choose_dense(const ConvProblem& p, std::string* why) {
  // A measurement on this device (kforge tune) beats any rule; the rule covers everything untuned.
  std::string autotune;
  if (const Variant* tuned = tuned_variant(p, &autotune)) {
    if (why) *why = autotune;
    return tuned;
  }
  const Registry& reg = Registry::instance();
  // Measured on the H200 suite (src/dense/NOTES.md): few input channels want the 16-wide K tile (a 64-wide one
  // is mostly zero padding); K_out <= 96 the 256x96 tile and K_out <= 128 the 256x128 one (a wider N tile would
  // be partly empty); larger K_out wants 128x256 in 2x1 clusters (within 4% of the best tile on every such case).
  const char* first = p.C <= 16   ? "dense_v6_persistent_256x128x16"
                      : p.K <= 96  ? "dense_v7_persistent_256x96x64"
                      : p.K <= 128 ? "dense_v3_persistent_256x128x64"
                                   : "dense_v4_persistent_128x256x64_c2x1";
  for (const char* name : {first, "dense_v4_persistent_128x256x64_c2x1", "dense_v3_persistent_256x128x64",
                           "dense_v0_direct"}) {
    const Variant* v = reg.find(name);
    if (v && v->accepts(p).empty()) {
      const char* rule = name == std::string(first)
                             ? "tile rule: K tile 16 when C <= 16, N tile 96 / 128 when K <= 96 / 128, else 128x256 in 2x1 clusters"
                             : "the preferred tile refuses this problem; next accepting variant";
      if (why) *why = std::string(rule) + " (" + autotune + ")";
      return v;
    }
  }
  return nullptr;
}

}  // namespace kforge
