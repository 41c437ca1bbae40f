#include "core/tensor_map.hpp"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <string>

#include "core/cuda_check.hpp"

namespace kforge {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult status{};
    KF_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &status));
    if (status != cudaDriverEntryPointSuccess || f == nullptr)
      throw Error("cuTensorMapEncodeTiled: not provided by this CUDA driver (TMA needs a 12.0+ driver)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

}  // namespace

template <int Rank>
CUtensorMap tiled_map_16bit(const void* base, const std::array<uint64_t, Rank>& dims,
                            const std::array<uint64_t, Rank - 1>& byte_strides, const std::array<uint32_t, Rank>& box,
                            CUtensorMapSwizzle swizzle) {
  CUtensorMap map{};
  std::array<uint32_t, Rank> element_strides;
  element_strides.fill(1);
  const CUresult r = encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, Rank, const_cast<void*>(base), dims.data(),
                                    byte_strides.data(), box.data(), element_strides.data(),
                                    CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::string what = "cuTensorMapEncodeTiled refused the map (CUresult " + std::to_string(int(r)) + "): dims";
    for (uint64_t d : dims) what += " " + std::to_string(d);
    what += ", box";
    for (uint32_t b : box) what += " " + std::to_string(b);
    throw Error(what);
  }
  return map;
}

template CUtensorMap tiled_map_16bit<2>(const void*, const std::array<uint64_t, 2>&, const std::array<uint64_t, 1>&,
                                        const std::array<uint32_t, 2>&, CUtensorMapSwizzle);
template CUtensorMap tiled_map_16bit<4>(const void*, const std::array<uint64_t, 4>&, const std::array<uint64_t, 3>&,
                                        const std::array<uint32_t, 4>&, CUtensorMapSwizzle);
template CUtensorMap tiled_map_16bit<5>(const void*, const std::array<uint64_t, 5>&, const std::array<uint64_t, 4>&,
                                        const std::array<uint32_t, 5>&, CUtensorMapSwizzle);

}  // namespace kforge
