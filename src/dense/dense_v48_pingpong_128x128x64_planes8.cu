// dense_v48_pingpong_128x128x64_planes8: v43 (ping-pong 128x128, 64x64 epilogue sub-tiles, the bias only when
// given) walking its output tiles eight output planes side by side (plane_order.hpp). hunyuan_up3's input planes
// are 237 MB each, far past L2: v8 read 26.6 GB from DRAM for its 4.5 GB x. Measured: v43 reads 19.3 GB, v48
// 17.8, and v48 runs 9% slower than v43 (tensor pipes 77% against 93%; NOTES.md).
#include "dense/sm90_conv_persistent.cuh"
#include "dense/variants.hpp"

namespace kforge::dense {

Variant v48_pingpong_128x128x64_planes8() {
  using Conv = sm90::PersistentConv<cute::Shape<cute::_128, cute::_128, cute::Shape<cute::_64>>,
                                    cute::Shape<cute::_1, cute::_1, cute::_1>,
                                    cutlass::gemm::KernelTmaWarpSpecializedPingpong, sm90::PlaneOrderedScheduler,
                                    cutlass::layout::RowMajor, cute::Shape<cute::_64, cute::_64>,
                                    sm90::EpilogueMath::bias_when_given>;
  return sm90::persistent_variant<Conv>("dense_v48_pingpong_128x128x64_planes8",
                                        "v43 walking eight output planes side by side: input planes re-read from DRAM less",
                                        "src/dense/dense_v48_pingpong_128x128x64_planes8.cu", {.plane_block = 8});
}

}  // namespace kforge::dense
