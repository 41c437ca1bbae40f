// Shared by the tools tests: a temporary folder removed at scope exit, an environment variable set (or unset)
// for a scope and restored after it, and where the run ABI's example kernels are.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <optional>
#include <string>

#include "tools/asm.hpp"
#include "tools/history.hpp"
#include "tools/run/kernel_build.hpp"

namespace kforge::testing {

class TempDir {
 public:
  TempDir() : path_(make_temp_dir("kforge-test-")) {}
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_ ? old_->c_str() : nullptr); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  // nullptr unsets it.
  void set(const char* value) {
    if (value) setenv(name_.c_str(), value, 1);
    else unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The example kernels of the run ABI, in the source tree the tools read (source_root: $KFORGE_SOURCE_DIR first,
// so a test binary built in one checkout and run from another, a device bundle, reads the examples beside it).
inline std::string run_examples_dir() { return (source_root() / "examples/run/").string(); }

// A timed PASS row of the history: a depthwise bench of evokernel's size on an H200. Tests override what they vary.
inline HistoryRecord pass_record(const std::string& case_name, const std::string& variant, double median_ms) {
  HistoryRecord r;
  r.time_utc = "2025-01-31T12:00:00Z";
  r.git_revision = "abc1234";
  r.gpu = "NVIDIA H200";
  r.sm_count = 132;
  r.command = "bench";
  r.suite = "depthwise";
  r.case_name = case_name;
  r.variant = variant;
  r.problem = "N1 C512 K512 61x45x80 k3x5x5 bf16 ncdhw";
  r.layout = "ncdhw";
  r.dtype = "bf16";
  r.status = "PASS";
  r.median_ms = median_ms;
  r.min_ms = median_ms * 0.99;
  r.max_ms = median_ms * 1.05;
  r.iqr_rel = 0.01;
  r.samples = 50;
  r.calc_diff = 1e-7;
  r.rel_l2 = 3e-4;
  r.deterministic = true;
  r.flops = 1.63e10;
  r.bytes = 4.42e8;
  r.copy_tbps = 4.26;
  r.gemm_bf16_tflops = 780.5;
  return r;
}

// The message of the kforge::Error `fn` throws ("" when it throws none).
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace kforge::testing
