// dense_v38_pingpong_128x128x64_e64x64_biasadd: v37 (ping-pong 128x128, 64x64 epilogue sub-tiles; the rule's pick
// for short K loops) whose epilogue computes act(acc + bias), one FADD per output, where CUTLASS's linear
// combination spends two FFMAs (alpha * acc + bias, then beta * C): ncu counted those 17.7% of v37's warp
// instructions on c512_k111, against cuBLAS's kernel at half v37's instructions (NOTES.md, v34-v37).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v38_pingpong_128x128x64_e64x64_biasadd() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::gemm::PersistentScheduler,
                                    cutlass::layout::RowMajor, cute::Shape<cute::_64, cute::_64>,
                                    sm90::EpilogueMath::bias_add>;
  return sm90::persistent_variant<Conv>("dense_v38_pingpong_128x128x64_e64x64_biasadd",
                                        "v37 with an epilogue of act(acc + bias): no alpha / beta FFMAs",
                                        "src/dense/dense_v38_pingpong_128x128x64_e64x64_biasadd.cu");
}

}  // namespace kforge::dense
