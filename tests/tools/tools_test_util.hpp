// Shared by the tools tests: a temporary folder removed at scope exit, and an environment variable set (or unset)
// for a scope and restored after it.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <optional>
#include <string>

#include "tools/asm.hpp"

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

}  // namespace kforge::testing
