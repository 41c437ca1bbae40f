// dense_v40_persistent_256x128x64_biasadd: v3 (the rule's tile for K_out <= 128 on long K loops: c1024_k311's 48
// K-blocks, hunyuan_up3's 54) with v38's epilogue, act(acc + bias). The epilogue is 2-4% of such a tile; what
// it sheds in instructions may buy clock on those power-capped cases. Not with v36's 128x64 sub-tiles: their
// 32 KiB of store buffers leave room for 3 pipeline stages instead of 4 (c1024_k311 +11%, NOTES.md).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v40_persistent_256x128x64_biasadd() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_256, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cutlass::epilogue::collective::EpilogueTileAuto,
                                    sm90::EpilogueMath::bias_add>;
  return sm90::persistent_variant<Conv>("dense_v40_persistent_256x128x64_biasadd",
                                        "v3 with an epilogue of act(acc + bias): no alpha / beta FFMAs",
                                        "src/dense/dense_v40_persistent_256x128x64_biasadd.cu");
}

}  // namespace kforge::dense
