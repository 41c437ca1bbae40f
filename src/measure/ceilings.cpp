// Measured ceilings: device-to-device copy bandwidth, cuBLAS bf16 and cuBLASLt fp8 GEMM rates, cached per device.
// The roofline "floor" of every benchmark row is computed from these, so they are measured (median of
// time_on_stream samples), never taken from a datasheet. Limits: one device (the current one); the cache
// is keyed by device name and SM count only (a driver or clock change needs --remeasure).
#include "measure/ceilings.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/cache_files.hpp"
#include "core/device_buffer.hpp"
#include "core/cuda_check.hpp"
#include "core/cuda_stream.hpp"
#include "core/owned_handle.hpp"
#include "core/random.hpp"
#include "measure/cublas_check.hpp"
#include "measure/gemm_bf16.hpp"
#include "measure/timer.hpp"

namespace kforge {
namespace {

constexpr int kCacheSchema = 1;
constexpr int64_t kGemmSize = 8192;                  // M = N = K: large enough to reach the tensor-core peak
constexpr size_t kCopyBytesMax = size_t{2} << 30;    // 2 GiB: far past L2, so the copy streams from DRAM
constexpr size_t kLtWorkspaceBytes = size_t{32} << 20;

// Settings shared by the three measurements: enough samples for a stable median within a few seconds.
TimerOptions ceiling_timer(bool flush_l2) {
  TimerOptions opt;
  opt.warmup = 3;
  opt.min_samples = 10;
  opt.max_samples = 100;
  opt.max_seconds = 2.0;
  opt.flush_l2 = flush_l2;
  return opt;
}

double gemm_flops() { return 2.0 * static_cast<double>(kGemmSize) * kGemmSize * kGemmSize; }

double measure_copy_tbps(cudaStream_t stream) {
  size_t free_bytes = 0, total_bytes = 0;
  KF_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Two buffers of 1/8 of free memory at most: the measurement never crowds out another process.
  const size_t bytes = std::min(kCopyBytesMax, free_bytes / 8) / 256 * 256;
  if (bytes == 0) throw Error("ceilings: no free device memory for the copy measurement");
  DeviceBuffer src(bytes), dst(bytes);
  KF_CUDA_CHECK(cudaMemsetAsync(src.get(), 0, bytes, stream));
  const Timing t = time_on_stream(
      [&](cudaStream_t s) {
        KF_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
      },
      stream, ceiling_timer(/*flush_l2=*/false));  // a multi-GiB copy evicts L2 on its own
  return 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e-3) / 1e12;  // read + written
}

double measure_gemm_bf16_tflops(cudaStream_t stream) {
  GemmBf16 gemm(kGemmSize, stream);
  const Timing t = time_on_stream([&](cudaStream_t s) { gemm.run(s); }, stream, ceiling_timer(/*flush_l2=*/true));
  return gemm.flops() / (t.median_ms * 1e-3) / 1e12;
}

template <class T>
void set_attribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const T& value) {
  KF_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof(value)));
}

cublasLtMatrixLayout_t make_layout(cudaDataType_t type, int64_t rows, int64_t cols) {
  cublasLtMatrixLayout_t layout = nullptr;
  KF_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols),
                                             rows));  // column-major, dense: ld = rows
  return layout;
}

double measure_gemm_fp8_tflops(cudaStream_t stream) {
  const int64_t n = kGemmSize * kGemmSize;
  DeviceBuffer a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  DeviceBuffer d(static_cast<size_t>(n) * dtype_size(DType::bf16));
  DeviceBuffer workspace(kLtWorkspaceBytes), unit_scale(sizeof(float));
  fill_uniform(a.get(), DType::fp8_e4m3, n, /*seed=*/3, -1.0f, 1.0f, stream);
  fill_uniform(b.get(), DType::fp8_e4m3, n, /*seed=*/4, -1.0f, 1.0f, stream);
  const float one = 1.0f;
  KF_CUDA_CHECK(cudaMemcpyAsync(unit_scale.get(), &one, sizeof(one), cudaMemcpyHostToDevice, stream));
  KF_CUDA_CHECK(cudaStreamSynchronize(stream));  // `one` is a stack value

  cublasLtHandle_t raw_handle = nullptr;
  KF_CUBLAS_CHECK(cublasLtCreate(&raw_handle));
  const OwnedHandle<cublasLtHandle_t, cublasLtDestroy> handle(raw_handle);
  cublasLtMatmulDesc_t raw_desc = nullptr;
  KF_CUBLAS_CHECK(cublasLtMatmulDescCreate(&raw_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const OwnedHandle<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy> desc(raw_desc);
  // fp8 GEMMs on Hopper exist only as "TN": A is stored K x M and transposed, B is K x N.
  set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
  set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(unit_scale.get()));
  set_attribute(desc.get(), CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(unit_scale.get()));

  using Layout = OwnedHandle<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
  const Layout a_layout(make_layout(CUDA_R_8F_E4M3, kGemmSize, kGemmSize));
  const Layout b_layout(make_layout(CUDA_R_8F_E4M3, kGemmSize, kGemmSize));
  const Layout d_layout(make_layout(CUDA_R_16BF, kGemmSize, kGemmSize));

  cublasLtMatmulPreference_t raw_pref = nullptr;
  KF_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw_pref));
  const OwnedHandle<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy> pref(raw_pref);
  const size_t max_workspace = kLtWorkspaceBytes;
  KF_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                       &max_workspace, sizeof(max_workspace)));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  KF_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(handle.get(), desc.get(), a_layout.get(), b_layout.get(),
                                                 d_layout.get(), d_layout.get(), pref.get(), 1, &heuristic, &found));
  if (found == 0) throw Error("ceilings: cuBLASLt has no fp8 e4m3 GEMM algorithm for 8192^3 TN on this device");

  const float alpha = 1.0f, beta = 0.0f;
  const Timing t = time_on_stream(
      [&](cudaStream_t s) {
        KF_CUBLAS_CHECK(cublasLtMatmul(handle.get(), desc.get(), &alpha, a.get(), a_layout.get(), b.get(),
                                       b_layout.get(), &beta, d.get(), d_layout.get(), d.get(), d_layout.get(),
                                       &heuristic.algo, workspace.get(), kLtWorkspaceBytes, s));
      },
      stream, ceiling_timer(/*flush_l2=*/true));
  return gemm_flops() / (t.median_ms * 1e-3) / 1e12;
}

std::string utc_now_iso() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Ceilings read_cache(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(std::string("cannot open: ") + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  return Ceilings::from_json(nlohmann::json::parse(text.str()));  // parse errors are std::exceptions too
}

}  // namespace

nlohmann::json Ceilings::to_json() const {
  return nlohmann::json{{"schema", kCacheSchema},
                        {"device", device},
                        {"sm_count", sm_count},
                        {"measured_at", measured_at},
                        {"copy_tbps", copy_tbps},
                        {"gemm_bf16_tflops", gemm_bf16_tflops},
                        {"gemm_fp8_tflops", gemm_fp8_tflops}};
}

Ceilings Ceilings::from_json(const nlohmann::json& j) {
  try {
    const int schema = j.at("schema").get<int>();
    if (schema != kCacheSchema) {
      throw Error("expected ceilings schema " + std::to_string(kCacheSchema) + ", but got " + std::to_string(schema));
    }
    Ceilings c;
    c.device = j.at("device").get<std::string>();
    c.sm_count = j.at("sm_count").get<int>();
    c.measured_at = j.at("measured_at").get<std::string>();
    c.copy_tbps = j.at("copy_tbps").get<double>();
    c.gemm_bf16_tflops = j.at("gemm_bf16_tflops").get<double>();
    c.gemm_fp8_tflops = j.at("gemm_fp8_tflops").get<double>();
    // A zero or negative rate would turn every roofline floor into a division by zero.
    if (!(c.copy_tbps > 0 && c.gemm_bf16_tflops > 0 && c.gemm_fp8_tflops > 0))
      throw Error("expected positive ceilings, but got a non-positive rate");
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("ceilings JSON: ") + e.what());
  }
}

Ceilings measure_ceilings(const DeviceInfo& dev) {
  const CudaStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  Ceilings c;
  c.device = dev.name;
  c.sm_count = dev.sm_count;
  c.measured_at = utc_now_iso();
  c.copy_tbps = measure_copy_tbps(stream);
  c.gemm_bf16_tflops = measure_gemm_bf16_tflops(stream);
  c.gemm_fp8_tflops = measure_gemm_fp8_tflops(stream);
  return c;
}

std::string ceilings_cache_path(const DeviceInfo& dev) {
  std::string name = dev.name;
  for (char& ch : name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.' || ch == '_';
    if (!keep) ch = '_';
  }
  return (cache_dir() / ("ceilings-" + name + "-" + std::to_string(dev.sm_count) + ".json")).string();
}

Ceilings load_or_measure_ceilings(const DeviceInfo& dev, bool remeasure) {
  const std::string path = ceilings_cache_path(dev);
  std::error_code no_throw;
  if (!remeasure && std::filesystem::exists(path, no_throw)) {
    try {
      const Ceilings cached = read_cache(path);
      if (cached.device == dev.name && cached.sm_count == dev.sm_count) return cached;
      std::cerr << "kforge: ceilings cache " << path << " is for " << cached.device << " (" << cached.sm_count
                << " SMs), not " << dev.name << " (" << dev.sm_count << " SMs); measuring again\n";
    } catch (const std::exception& e) {
      std::cerr << "kforge: ceilings cache " << path << " is unreadable (" << e.what() << "); measuring again\n";
    }
  }
  const Ceilings c = measure_ceilings(dev);
  // The measurement stands even when the cache cannot be written (read-only home, full disk).
  try {
    write_file_atomically(path, c.to_json().dump(2) + "\n");
  } catch (const std::exception& e) {
    std::cerr << "kforge: could not write the ceilings cache (" << e.what() << "); continuing\n";
  }
  return c;
}

}  // namespace kforge
